-- The account panel (/panel): the people an operator invited to an account, their one-time
-- sign-in links and their sessions. Links and session ids are random values of which only the
-- SHA-256 is stored, so a copy of the database opens no session.
create table panel_users (
  id          bigserial primary key,
  account_id  bigint not null references accounts(id) on delete cascade,
  -- lower case: the address a person types on the sign-in page finds them however they capitalise it
  email       text not null check (email = lower(email)),
  created_at  timestamptz not null,
  unique (account_id, email)
);
create index panel_users_email on panel_users(email);

create table panel_sign_in_links (
  id          bigserial primary key,
  user_id     bigint not null references panel_users(id) on delete cascade,
  token_hash  bytea not null unique,
  created_at  timestamptz not null,
  expires_at  timestamptz not null,
  -- set by the one sign-in it allowed: a link works once
  used_at     timestamptz
);

create table panel_sessions (
  id            bigserial primary key,
  session_hash  bytea not null unique,
  user_id       bigint not null references panel_users(id) on delete cascade,
  -- copied from the user so that every panel query is scoped by it without a join
  account_id    bigint not null references accounts(id) on delete cascade,
  -- sent by the page in a header on every change; compared in constant time
  csrf_token    text not null,
  created_at    timestamptz not null,
  last_seen_at  timestamptz not null,
  -- the absolute end, whatever the activity; the idle end is last_seen_at plus the idle time
  expires_at    timestamptz not null,
  ended_at      timestamptz
);
create index panel_sessions_user on panel_sessions(user_id) where ended_at is null;

alter table mail_messages drop constraint mail_messages_kind_check;
alter table mail_messages add constraint mail_messages_kind_check
  check (kind in ('invitation', 'reminder', 'conclusion', 'otp', 'certified', 'panel_sign_in'));
