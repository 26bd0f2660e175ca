-- NOM-151 conservation stamps (RFC 3161 tokens over SHA-256 of the exact bytes they cover): those
-- of documents' renditions, stamped by the nom151_stamp job, and those issued through the API
-- (POST /api/timestamp, POST /api/nom151/stamp), kept for the account's record and consumption.
alter table accounts add column nom151_default boolean not null default false;
-- Whether the completed document's renditions are stamped: the create payload's `nom151`, else
-- the account's default at creation.
alter table documents add column nom151 boolean not null default false;

create table stamps (
  id          bigserial primary key,
  account_id  bigint not null references accounts(id) on delete cascade,
  -- null for a stamp issued through the API on a client's hash or file
  document_id bigint references documents(id) on delete cascade,
  -- 'original' | 'universal' for a document's rendition; 'hash' | 'pdf' for API stamps
  subject     text not null check (subject in ('original', 'universal', 'hash', 'pdf')),
  -- SHA-256 (hex) of the bytes the token's imprint covers; for a document's rendition, its blob key
  covered_sha256 text not null check (covered_sha256 ~ '^[0-9a-f]{64}$'),
  -- the DER TimeStampToken as the authority encoded it
  token       bytea not null,
  -- 'built_in' (the service's own authority) or 'psc' (the operator's certification-service provider)
  provider    text not null check (provider in ('built_in', 'psc')),
  tsa_name    text not null,
  gen_time    timestamptz not null,
  serial      text not null,
  created_at  timestamptz not null default now()
);
-- One stamp per rendition of a document: a retried job finds it and does not stamp twice.
create unique index stamps_document_subject on stamps(document_id, subject) where document_id is not null;
create index stamps_account_created on stamps(account_id, created_at);
