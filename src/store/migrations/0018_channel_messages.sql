-- SMS and WhatsApp messages to signers (decisions.md "Channels and identity verification"). Like
-- mail_messages, every message is a row first (the outbox), committed with what causes it, then a
-- job delivers it: a restart at any moment loses none. Without a configured provider the rows stay
-- readable as the outbox. The provider's own id (Twilio's MessageSid, Meta's wamid) ties its
-- status callbacks to the row.
create table channel_messages (
  id                  bigserial primary key,
  message_id          text not null unique,
  account_id          bigint references accounts(id),
  document_id         bigint references documents(id) on delete set null,
  -- the public signer_id of the document signer the message is for (history and listings)
  signer_id           text,
  channel             text not null check (channel in ('sms', 'whatsapp')),
  kind                text not null check (kind in ('invitation', 'reminder', 'otp')),
  language            text not null check (language in ('es', 'en')),
  recipient           text not null,
  body_text           text not null,
  -- the values of the provider's approved template (Meta: body parameters, in order)
  template_params     jsonb not null default '[]',
  -- queued: waiting for its job; sending: handed to the provider, answer not yet recorded;
  -- sent: accepted by the provider; delivered: the provider reported delivery; outbox: no provider
  -- configured; failed: refused for good (or no messages piece left: error_code PACKAGE_EXHAUSTED)
  status              text not null default 'queued'
                      check (status in ('queued', 'sending', 'sent', 'delivered', 'outbox', 'failed')),
  provider            text,
  provider_message_id text,
  attempts            integer not null default 0,
  -- when the last attempt handed the message to the provider (status sending)
  claimed_at          timestamptz,
  error_code          text,
  reply               text,
  created_at          timestamptz not null,
  sent_at             timestamptz,
  delivered_at        timestamptz,
  failed_at           timestamptz
);
create index channel_messages_created on channel_messages(created_at desc);
create unique index channel_messages_provider_id on channel_messages(provider, provider_message_id)
  where provider_message_id is not null;
create index channel_messages_signer on channel_messages(document_id, signer_id);
