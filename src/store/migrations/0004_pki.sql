-- The service's PKI: its material (certificates and sealed keys, one row), and every certificate
-- it issued, which the OCSP responder and the CRL answer for.
create table pki_material (
  id          smallint primary key check (id = 1),
  source      text not null check (source in ('generated', 'operator')),
  -- certificates in Base64 DER, keys sealed under the master key (src/pki/sealed-material.ts)
  sealed      jsonb not null,
  created_at  timestamptz not null default now()
);

create table issued_certificates (
  serial_hex   text primary key,
  kind         text not null check (kind in ('signer', 'tsa', 'ocsp')),
  subject      text not null,
  document_id  bigint references documents(id) on delete set null,
  signer_row_id bigint references signers(id) on delete set null,
  not_before   timestamptz not null,
  not_after    timestamptz not null,
  revoked_at   timestamptz,
  -- RFC 5280 §5.3.1 reason code
  revocation_reason smallint,
  created_at   timestamptz not null default now()
);
create index issued_certificates_revoked on issued_certificates(revoked_at) where revoked_at is not null;

-- CRL numbers must increase monotonically per issuer (RFC 5280 §5.2.3).
create sequence crl_number_issuing;
create sequence crl_number_root;
