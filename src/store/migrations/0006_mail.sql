-- Every email the service sends is a row first (the outbox), then a job delivers it: a restart at
-- any moment loses no message. Without an SMTP server the rows stay readable as the outbox.
create table mail_messages (
  id           bigserial primary key,
  message_id   text not null unique,
  account_id   bigint references accounts(id),
  document_id  bigint references documents(id) on delete set null,
  kind         text not null check (kind in ('invitation', 'reminder', 'conclusion', 'otp')),
  recipient    text not null,
  subject      text not null,
  body_text    text not null,
  body_html    text not null,
  -- [{filename, sha256, content_type}]: attachment bytes live in the blob store
  attachments  jsonb not null default '[]',
  status       text not null default 'queued' check (status in ('queued', 'sent', 'outbox', 'failed')),
  attempts     integer not null default 0,
  reply        text,
  created_at   timestamptz not null,
  sent_at      timestamptz
);
create index mail_messages_created on mail_messages(created_at desc);
