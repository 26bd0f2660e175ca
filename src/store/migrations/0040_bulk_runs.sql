-- Bulk send (decisions.md "Bulk send"): a run is one template or PDF with its boxes and many rows;
-- each row becomes one document through the same use case as POST /developers/json. The run and
-- its rows are rows here, so a worker that stops midway is followed by another that goes on.

create table bulk_runs (
  id              bigserial primary key,
  -- public, random, opaque (decisions.md "Identifiers")
  bulk_id         text not null unique,
  account_id      bigint not null references accounts(id),
  -- the client's Idempotency-Key, and the SHA-256 of the body it came with: the same key and body
  -- again answer the same run; the same key with another body is refused
  idempotency_key text not null,
  body_sha256     text not null,
  state           text not null default 'running' check (state in ('running', 'completed', 'stopped')),
  -- what every row's create payload is made from: the create keys with {{row.…}} placeholders;
  -- a b64_doc or url_doc source is read once and kept as a blob (source_sha256), never per row
  base            jsonb not null,
  source_sha256   text,
  source_name     text,
  row_count       integer not null,
  created_at      timestamptz not null,
  finished_at     timestamptz,
  -- the rows' outcomes when the run ended, as the bulk_completed event carries them
  created_rows    integer,
  refused_rows    integer,
  unique (account_id, idempotency_key)
);

create table bulk_rows (
  id           bigserial primary key,
  run_id       bigint not null references bulk_runs(id) on delete cascade,
  -- the row's position in the request's rows, from 0
  index        integer not null,
  data         jsonb not null,
  -- pending: not tried yet; claimed: a worker holds it (claim_token); created: its document exists;
  -- refused: its create failed (error); not_made: the account's package ran out before it
  state        text not null default 'pending' check (state in ('pending', 'claimed', 'created', 'refused', 'not_made')),
  claim_token  text,
  -- set in the transaction that creates the document, with the claim checked: at most one document per row
  document_id  bigint unique references documents(id),
  error        jsonb,
  updated_at   timestamptz not null,
  unique (run_id, index)
);
-- The worker takes the next rows to do in order.
create index bulk_rows_to_do on bulk_rows(run_id, index) where state in ('pending', 'claimed');

-- The thirteenth event kind, bulk_completed, is about a run rather than a document or a set.
alter table notifications add column bulk_run_id bigint references bulk_runs(id);
alter table notifications drop constraint notifications_check;
alter table notifications add constraint notifications_subject_check
  check (document_id is not null or set_id is not null or bulk_run_id is not null);
alter table notifications drop constraint notifications_kind_check;
alter table notifications add constraint notifications_kind_check check (kind in (
  'original_signed', 'universal_signed', 'document_completed', 'document_rejected',
  'workflow_expired', 'whatsapp_error', 'sms_error', 'email_error',
  'original_nom151_stamped', 'universal_nom151_stamped',
  'identity_verification_failed', 'identity_verification_passed', 'bulk_completed'));
alter table subscriptions drop constraint subscriptions_event_check;
alter table subscriptions add constraint subscriptions_event_check check (event in (
  'original_signed', 'universal_signed', 'document_completed', 'document_rejected',
  'workflow_expired', 'whatsapp_error', 'sms_error', 'email_error',
  'original_nom151_stamped', 'universal_nom151_stamped',
  'identity_verification_failed', 'identity_verification_passed', 'bulk_completed'));
