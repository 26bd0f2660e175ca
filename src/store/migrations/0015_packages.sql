-- Contracted packages and what each billable action consumed (decisions.md "Accounts and packages").
-- A package holds `pieces` of one kind, valid from valid_from (inclusive) to valid_to (exclusive);
-- `used` only grows, in the transaction of the action that consumed the piece, and never passes
-- `pieces`. An operator ends a package early by setting ended_at; it is then no longer valid.
create table packages (
  id          bigserial primary key,
  public_id   text not null unique,
  account_id  bigint not null references accounts(id),
  kind        text not null check (kind in ('documents', 'verifications', 'messages', 'stamps')),
  pieces      integer not null check (pieces > 0),
  used        integer not null default 0 check (used >= 0 and used <= pieces),
  valid_from  timestamptz not null,
  valid_to    timestamptz not null,
  ended_at    timestamptz,
  created_at  timestamptz not null default now(),
  check (valid_to > valid_from)
);
create index packages_account_kind on packages (account_id, kind, valid_to);

-- One row per billable action, with the package its piece came from (null when the account has no
-- package of that kind, and so no limit of it): the consumption report counts these rows.
create table consumption (
  id           bigserial primary key,
  account_id   bigint not null references accounts(id),
  kind         text not null check (kind in ('documents', 'verifications', 'messages', 'stamps')),
  channel      text not null,
  package_id   bigint references packages(id),
  document_id  bigint references documents(id) on delete set null,
  at           timestamptz not null
);
create index consumption_account_at on consumption (account_id, at);
