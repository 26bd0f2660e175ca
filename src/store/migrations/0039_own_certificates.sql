-- Signers of the CERT authority sign with their own certificate from a CA the operator trusts, in
-- the same two requests as an SAT e.firma (prepare, finish). The sticker may say which subject
-- attribute of that certificate must hold which value (certificate_match: {field, value}) instead
-- of the signer's email. A preparation now says whose authority made it; the RFC and the SAT's
-- certificate number exist only for the SAT's.
alter table signers add column certificate_match jsonb;
alter table sat_preparations add column authority text not null default 'SAT' check (authority in ('SAT', 'CERT', 'CSC'));
-- CSC: the remote signing provider whose credential made the signature, for the report.
alter table sat_preparations add column csc_provider text;
alter table sat_preparations alter column rfc drop not null;
alter table sat_preparations alter column certificate_number drop not null;
-- A signature with the signer's own certificate draws no image, like an e.firma's.
alter table signers drop constraint signers_signature_type_check;
alter table signers add constraint signers_signature_type_check check (signature_type in ('drawn', 'typed', 'efirma', 'certificate'));

-- Signers of the CSC authority sign with a credential their trust service provider holds: the
-- signer authorizes on the provider's page (OAuth 2.0 authorization code with PKCE) and comes back
-- to the service with a code. What the return needs is kept from the moment the signer leaves: the
-- state (only its hash: it travels in URLs), the PKCE verifier (sealed under the master key), the
-- signer and the provider. Used once; expires.
create table csc_authorizations (
  state_hash text primary key,
  signer_row_id bigint not null references signers(id) on delete cascade,
  provider text not null,
  code_verifier_sealed bytea not null,
  language text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index csc_authorizations_signer on csc_authorizations (signer_row_id);
