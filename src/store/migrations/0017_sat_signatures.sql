-- Signing with the signer's own SAT e.firma happens in two requests around the signer's browser:
-- what the first prepared (the revision with its empty /Contents, the signed attributes the browser
-- signs, the certificate and its chain) is kept here, so that a retry or a restart between the two
-- loses nothing. A preparation belongs to one signer, expires after a few minutes and is used once.
create table sat_preparations (
  id uuid primary key default gen_random_uuid(),
  signer_row_id bigint not null references signers(id) on delete cascade,
  document_id bigint not null references documents(id) on delete cascade,
  -- The revision the preparation was made on: a finish after another signature is refused.
  base_sha256 text not null,
  prepared_sha256 text not null,
  byte_range integer[] not null,
  contents_start integer not null,
  contents_end integer not null,
  signed_attributes bytea not null,
  certificate bytea not null,
  -- The CA certificates the CMS carries, as PEM.
  chain_pem text not null,
  rfc text not null,
  certificate_number text not null,
  ocsp_status text not null check (ocsp_status in ('good', 'unknown')),
  signed_at timestamptz not null,
  language text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  finished_at timestamptz
);
create index sat_preparations_signer on sat_preparations (signer_row_id);

-- An e.firma signature draws no image: its type is its own, and its certificate's revocation
-- status as the SAT's responder answered at signing time goes to the report.
alter table signers drop constraint signers_signature_type_check;
alter table signers add constraint signers_signature_type_check check (signature_type in ('drawn', 'typed', 'efirma'));
alter table signers add column certificate_status text;
