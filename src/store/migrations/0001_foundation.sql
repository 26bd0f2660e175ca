-- Accounts, their API keys, document sets, documents, signers and stickers.
-- Secrets (API keys, webhook secrets) are stored encrypted under the master key: the server must
-- know them to check HMACs, so they cannot be hashed.

create table accounts (
  id            bigserial primary key,
  web_id        text not null unique,
  name          text not null,
  webhook_url   text,
  webhook_secret_enc bytea,
  time_zone     text not null default 'America/Mexico_City',
  created_at    timestamptz not null default now()
);

create table api_keys (
  id          bigserial primary key,
  account_id  bigint not null references accounts(id) on delete cascade,
  key_enc     bytea not null,
  active      boolean not null default true,
  created_at  timestamptz not null default now()
);
create index api_keys_active on api_keys(account_id) where active;

create table document_sets (
  id          bigserial primary key,
  uuid        text not null unique,
  account_id  bigint not null references accounts(id),
  name        text not null default '',
  metadata    jsonb,
  status      text not null default 'OPEN'
              check (status in ('OPEN', 'CLOSED', 'COMPLETED', 'REJECTED', 'EXPIRED', 'CANCELLED')),
  workflow    jsonb,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now()
);
create index document_sets_account on document_sets(account_id, created_at desc);

create table documents (
  id              bigserial primary key,
  ticket          text not null unique,
  account_id      bigint not null references accounts(id),
  set_id          bigint references document_sets(id),
  name            text not null,
  status          text not null
                  check (status in ('draft', 'pending', 'completed', 'rejected', 'expired', 'cancelled', 'deleted')),
  -- the state a restore returns to
  status_before_delete text,
  origin          text not null check (origin in ('b64_doc', 'url_doc', 'template')),
  -- blob keys (sha256 hex): the unsigned PDF as created, and the latest signed revision
  source_sha256   text not null,
  original_sha256 text not null,
  size_bytes      integer not null,
  page_count      integer not null,
  has_flow        boolean not null,
  workflow        jsonb,
  -- payload fields kept for later capabilities (qr, certified_email, ...)
  extra           jsonb not null default '{}',
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now(),
  deleted_at      timestamptz
);
create index documents_account_created on documents(account_id, created_at desc, id desc);
create index documents_set on documents(set_id) where set_id is not null;

create table signers (
  id          bigserial primary key,
  signer_id   text not null unique,
  document_id bigint not null references documents(id) on delete cascade,
  position    integer not null,
  authority   text not null,
  data        text not null,
  name        text,
  email       text,
  status      text not null default 'pending',
  -- sha256 of the personal signing link's token; the token itself is never stored
  token_hash  bytea unique,
  created_at  timestamptz not null default now(),
  unique (document_id, authority, data)
);

create table stickers (
  id            bigserial primary key,
  sticker_id    text not null unique,
  document_id   bigint not null references documents(id) on delete cascade,
  signer_row_id bigint not null references signers(id) on delete cascade,
  sticker_index integer not null,
  page          integer not null,
  lx double precision not null,
  ly double precision not null,
  tx double precision not null,
  ty double precision not null,
  extra         jsonb not null default '{}',
  unique (document_id, sticker_index)
);
