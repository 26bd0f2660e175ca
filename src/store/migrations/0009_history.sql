-- The history of each document: every state change, invitation, reminder, view, signature,
-- rejection and edit, written in the transaction of the change (src/domain/history/append-history.ts).
-- Each entry carries the hash of the one before it, so an altered or deleted entry breaks the chain;
-- the documents row keeps the chain's head and length, so deleting the last entries shows too.
create table document_history (
  id          bigserial primary key,
  document_id bigint not null references documents(id) on delete cascade,
  -- 1, 2, 3… per document, without gaps
  seq         integer not null check (seq > 0),
  at          timestamptz not null,
  action      text not null,
  -- 'account' (the API caller), 'signer:<signer_id>' or 'system'
  actor       text not null,
  ip          text,
  details     jsonb not null default '{}',
  -- sha256 hex: of the previous entry (64 zeros for the first), and of this one
  prev_hash   text not null,
  hash        text not null,
  -- also the index that reads a document's history in order
  unique (document_id, seq)
);

alter table documents
  add column history_head text not null default repeat('0', 64),
  add column history_count integer not null default 0;
