-- What remains of a document purged after SELLO_DELETED_RETENTION_DAYS (decisions.md "States"):
-- its rows and blobs are gone, and so are its history entries (they name signers, addresses and
-- IPs, which the retention exists to erase). The last entry of its chain stays here: a `purged`
-- entry written by appendHistory on top of the chain as it stood, so its prev_hash is the head that
-- any history PDF or export of the document showed, and its hash can be recomputed from this row
-- (domain/history/history-hash.ts with document = ticket).
create table document_tombstones (
  ticket      text primary key,
  account_id  bigint not null references accounts(id) on delete cascade,
  created_at  timestamptz not null,
  deleted_at  timestamptz not null,
  -- the tombstone entry, as it was written in the document's chain
  seq         integer not null check (seq > 1),
  at          timestamptz not null,
  action      text not null check (action = 'purged'),
  actor       text not null,
  details     jsonb not null,
  prev_hash   text not null check (prev_hash ~ '^[0-9a-f]{64}$'),
  hash        text not null check (hash ~ '^[0-9a-f]{64}$')
);
create index document_tombstones_account on document_tombstones (account_id, at);

-- The purge finds documents deleted longer ago than the retention without reading the others.
create index documents_deleted_at on documents (deleted_at) where status = 'deleted';
