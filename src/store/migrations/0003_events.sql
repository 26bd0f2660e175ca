-- Events: notifications (one per event that happened), their deliveries (one per target URL:
-- the account's webhook, or a subscription), and per-event subscriptions.
-- The twelve event kinds are listed in src/domain/events/event-types.ts as well.

create table subscriptions (
  id              bigserial primary key,
  -- public, random, opaque (decisions.md "Identifiers")
  subscription_id text not null unique,
  account_id      bigint not null references accounts(id),
  event           text not null check (event in (
                    'original_signed', 'universal_signed', 'document_completed', 'document_rejected',
                    'workflow_expired', 'whatsapp_error', 'sms_error', 'email_error',
                    'original_nom151_stamped', 'universal_nom151_stamped',
                    'identity_verification_failed', 'identity_verification_passed')),
  url             text not null,
  -- the whsec_... signing secret, sealed under the master key like accounts.webhook_secret_enc
  secret_enc      bytea not null,
  active          boolean not null default true,
  -- why it stopped: a 410 from the receiver, or the client's unsubscribe
  disabled_reason text,
  disabled_at     timestamptz,
  deleted_at      timestamptz,
  created_at      timestamptz not null default now()
);
-- emitEvent: the active subscriptions of an account for one kind.
create index subscriptions_active on subscriptions(account_id, event) where active;
-- Subscribing twice to one event with one URL returns the subscription that exists.
create unique index subscriptions_one_per_url on subscriptions(account_id, event, url) where active;
-- GET /api/subscriptions
create index subscriptions_listed on subscriptions(account_id, created_at) where deleted_at is null;

create table notifications (
  id              bigserial primary key,
  -- public, random, opaque; also the webhook-id header of every delivery
  notification_id text not null unique,
  account_id      bigint not null references accounts(id),
  document_id     bigint references documents(id),
  set_id          bigint references document_sets(id),
  kind            text not null check (kind in (
                    'original_signed', 'universal_signed', 'document_completed', 'document_rejected',
                    'workflow_expired', 'whatsapp_error', 'sms_error', 'email_error',
                    'original_nom151_stamped', 'universal_nom151_stamped',
                    'identity_verification_failed', 'identity_verification_passed')),
  meta            jsonb not null default '{}',
  -- optional producer key: a producer that runs again (a retried job) emits the event once
  dedupe_key      text,
  -- summary of the deliveries: pending while one is pending; then delivered if one was, failed if
  -- one failed, else discarded (document deleted, target removed, no target at all)
  state           text not null default 'pending'
                  check (state in ('pending', 'delivered', 'failed', 'discarded')),
  attempts        integer not null default 0,
  last_status     integer,
  last_error      text,
  delivered_at    timestamptz,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now(),
  check (document_id is not null or set_id is not null),
  unique (account_id, dedupe_key)
);
-- Deleting a document discards its pending notifications.
create index notifications_document_pending on notifications(document_id) where state = 'pending';
create index notifications_account_created on notifications(account_id, created_at desc);

create table notification_deliveries (
  id              bigserial primary key,
  notification_id bigint not null references notifications(id) on delete cascade,
  -- 'account' (the account's webhook URL at the time of each attempt) or 'subscription:<id>'
  target          text not null,
  subscription_id bigint references subscriptions(id),
  state           text not null default 'pending'
                  check (state in ('pending', 'delivered', 'failed', 'discarded')),
  attempts        integer not null default 0,
  last_status     integer,
  last_error      text,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  delivered_at    timestamptz,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now(),
  -- one delivery per target: the key of the idempotent delivery job
  unique (notification_id, target)
);
