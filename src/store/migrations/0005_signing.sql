-- Signing by signers: when each signed or rejected (and why), with which certificate, and every
-- revision of a document's PDF (each signature is one incremental revision).
alter table signers
  add column viewed_at timestamptz,
  add column signed_at timestamptz,
  add column rejected_at timestamptz,
  add column rejection_reason text,
  add column certificate_serial text,
  add column signature_type text check (signature_type in ('drawn', 'typed'));

alter table documents add column completed_at timestamptz;

create table document_revisions (
  id            bigserial primary key,
  document_id   bigint not null references documents(id) on delete cascade,
  revision      integer not null,
  sha256        text not null,
  signer_row_id bigint references signers(id) on delete set null,
  created_at    timestamptz not null,
  unique (document_id, revision)
);
