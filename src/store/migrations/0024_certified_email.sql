-- Certified email (decisions.md "Certified email"): one per document, sent through the mail outbox
-- (kind 'certified'), with the evidence of its delivery kept on this row. The raw message is built
-- once, stored as a blob under its SHA-256 (raw_sha256), and those exact bytes are what the SMTP
-- server receives on every attempt.
alter table mail_messages drop constraint mail_messages_kind_check;
alter table mail_messages add constraint mail_messages_kind_check
  check (kind in ('invitation', 'reminder', 'conclusion', 'otp', 'certified'));

create table certified_emails (
  id                  bigserial primary key,
  document_id         bigint not null unique references documents(id) on delete cascade,
  recipient           text not null,
  subject             text not null,
  message             text not null,
  -- 'created': sent with the document; 'completed': sent with the signed original once every signer signed
  send_on             text not null check (send_on in ('created', 'completed')),
  created_at          timestamptz not null,
  -- Set when the email is queued (the outbox row and its job commit in the same transaction).
  message_id          text unique references mail_messages(message_id),
  header_message_id   text unique,
  -- The envelope id (RFC 3461 ENVID) the SMTP server is asked to return in delivery-status reports:
  -- random and never in the message's headers, so only a report made from the SMTP envelope carries
  -- it, and the recipient (who sees the Message-ID) cannot write one that counts.
  envelope_id         text not null unique default replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''),
  document_sha256     text,
  attached            boolean,
  -- The open image and the download link: random tokens, only their SHA-256 stored.
  open_token_hash     bytea unique,
  download_token_hash bytea unique,
  queued_at           timestamptz,
  raw_sha256          text,
  raw_bytes           integer,
  sent_at             timestamptz,
  smtp_reply          text,
  refused_at          timestamptz,
  refusal_reply       text,
  -- true: the SMTP server answered with a refusal (it received the envelope, and the message when
  -- it refused after DATA); false: it never answered (no connection, a timeout, an unreadable file)
  refused_by_server   boolean,
  delivered_at        timestamptz,
  bounced_at          timestamptz,
  -- Every delivery-status notification matched to this email, as parsed (RFC 3464), oldest first.
  delivery_reports    jsonb not null default '[]',
  opened_at           timestamptz,
  open_ip             text,
  open_user_agent     text,
  downloaded_at       timestamptz,
  download_ip         text,
  download_user_agent text,
  -- The last evidence PDF issued and a fingerprint of the evidence it states: asked again while
  -- nothing new is known, the same sealed (and, with NOM-151, stamped) file is served again.
  evidence_pdf_sha256 text,
  evidence_fingerprint text
);
