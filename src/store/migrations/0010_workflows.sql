-- Workflows: the service sends the invitations, reminders and conclusion emails, expires and
-- cancels flows; document sets get signers of their own and one invitation per signer.

-- A signing link must be sent again (reminders, a restarted set flow) and must stay the link the
-- create response handed out, so its token is also kept sealed under the master key (AES-GCM):
-- the hash still serves the lookup; only the service can open the sealed copy.
alter table signers
  add column token_sealed bytea,
  add column invited_at timestamptz,
  add column last_reminded_at timestamptz,
  add column reminders_sent integer not null default 0;

-- The running flow of a standalone document (a set's documents follow the set's flow).
-- flow_generation counts how often the flow started (a set's grows with each workflowSet restart).
-- Scheduled jobs are not told apart by it: they carry a job key and check the time they are due.
alter table documents
  add column flow_started_at timestamptz,
  add column expires_at timestamptz,
  add column flow_generation integer not null default 0,
  add column concluded_at timestamptz;

alter table document_sets
  add column closed_at timestamptz,
  add column flow_started_at timestamptz,
  add column expires_at timestamptz,
  add column flow_generation integer not null default 0,
  add column concluded_at timestamptz;

-- Signers of a set: preloaded with POST /api/documentset/{uuid}/signer, or found on the set's
-- documents when it closes. One invitation per set signer covers every document where that person
-- (authority, data) has a box.
create table set_signers (
  id               bigserial primary key,
  signer_id        text not null unique,
  set_id           bigint not null references document_sets(id) on delete cascade,
  position         integer not null,
  authority        text not null,
  data             text not null,
  name             text,
  email            text,
  preloaded        boolean not null,
  status           text not null default 'pending'
                   check (status in ('pending', 'invited', 'viewed', 'signed', 'rejected')),
  token_hash       bytea unique,
  token_sealed     bytea,
  invited_at       timestamptz,
  last_reminded_at timestamptz,
  reminders_sent   integer not null default 0,
  created_at       timestamptz not null,
  unique (set_id, authority, data)
);

alter table signers add column set_signer_id bigint references set_signers(id) on delete set null;
create index signers_set_signer on signers(set_signer_id) where set_signer_id is not null;

-- Download links of conclusion emails whose signed PDF is too large to attach: a random token
-- (only its hash is stored), the document it opens, and until when.
create table download_links (
  id          bigserial primary key,
  token_hash  bytea not null unique,
  document_id bigint not null references documents(id) on delete cascade,
  expires_at  timestamptz not null,
  created_at  timestamptz not null
);
