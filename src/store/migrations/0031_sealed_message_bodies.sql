-- Message bodies sealed at rest. An invitation, a reminder or a sign-in email carries a personal
-- link, a code message a live one-time code: whoever reads the outbox tables could sign or sign in
-- as the recipient. From now on each body is stored only as body_sealed, AES-256-GCM under the
-- master key (pki/secret-box.ts): {text, html} for email, {text, params} for SMS and WhatsApp (the
-- template parameters carry the same code or link); the plaintext columns stay null.
alter table mail_messages add column body_sealed bytea;
alter table mail_messages alter column body_text drop not null, alter column body_html drop not null;
alter table channel_messages add column body_sealed bytea;
alter table channel_messages alter column body_text drop not null;

-- Rows written before: sealing needs the master key, which SQL does not have, so the service seals
-- those still to be delivered or read from the outbox when it starts (store/seal-message-bodies.ts).
-- Those whose delivery is over (sent, delivered, failed) are not needed whole again: their secrets
-- are redacted here, once, so they do not wait for a start to leave the database. Every random token
-- Sello puts in a link is 32 or more base64url characters (ids.ts); codes are six digits.
create function pg_temp.redact_secrets(t text) returns text language sql immutable as $$
  select regexp_replace(regexp_replace(t, '[A-Za-z0-9_-]{32,}', '[removed]', 'g'), '\m[0-9]{6}\M', '[removed]', 'g')
$$;

update mail_messages
   set body_text = pg_temp.redact_secrets(body_text), body_html = pg_temp.redact_secrets(body_html)
 where status in ('sent', 'failed');

update channel_messages
   set body_text = pg_temp.redact_secrets(body_text),
       template_params = coalesce((select jsonb_agg(to_jsonb(pg_temp.redact_secrets(p)) order by n)
                                     from jsonb_array_elements_text(template_params) with ordinality as e(p, n)), '[]'::jsonb)
 where status in ('sent', 'delivered', 'failed');
