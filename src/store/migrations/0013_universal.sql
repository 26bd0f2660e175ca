-- The universal rendition (PAdES B-LTA) of a completed document: built by the universal_build job
-- after completion, renewed (a fresh DSS and document time stamp) by universal_renew before the
-- certificate of its last document time stamp ends.
--   universal_status: null before completion; pending (queued or being retried), ready, failed
--   (the last attempt failed; universal_error says why; the job may still retry).
alter table documents
  add column universal_sha256 text,
  add column universal_status text check (universal_status in ('pending', 'ready', 'failed')),
  add column universal_error text,
  add column universal_at timestamptz,
  -- notAfter of the certificate of the last document time stamp, and when its renewal is due.
  add column universal_tsa_not_after timestamptz,
  add column universal_renew_at timestamptz;

-- Every universal revision made (the first and each renewal): which bytes, which time stamp.
create table universal_revisions (
  id bigserial primary key,
  document_id bigint not null references documents (id) on delete cascade,
  seq integer not null,
  kind text not null check (kind in ('initial', 'renewal')),
  sha256 text not null,
  timestamp_time timestamptz not null,
  tsa text not null,
  tsa_not_after timestamptz not null,
  created_at timestamptz not null,
  unique (document_id, seq)
);
