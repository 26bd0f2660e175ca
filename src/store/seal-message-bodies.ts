// Seals the bodies of messages written before migration 0031 that still wait: queued, being sent or
// kept in the outbox (no provider configured). The migration redacted those already delivered; these
// are still to be sent or read by the operator, whole, and sealing them needs the master key, which
// only the service has, so each start does it (the service starts before its workers take a job).
// Idempotent and safe with several processes starting at once: a row is written only while it still
// holds plaintext, so the first to get there seals it and the others change nothing.
import { sql } from 'kysely';
import type { SecretBox } from '../pki/secret-box.js';
import type { Db } from './db.js';

const BATCH = 500;

/** The number of message bodies sealed (email, SMS and WhatsApp). */
export async function sealMessageBodies(db: Db, secrets: SecretBox): Promise<number> {
  let sealed = 0;
  for (;;) {
    const r = await sql<{ id: string; body_text: string; body_html: string | null }>`
      select id::text as id, body_text, body_html from mail_messages
       where body_sealed is null and body_text is not null and status in ('queued', 'outbox')
       order by id limit ${BATCH}`.execute(db);
    for (const m of r.rows) {
      const box = secrets.seal(JSON.stringify({ text: m.body_text, html: m.body_html ?? '' }));
      const u = await sql`update mail_messages set body_sealed = ${box}, body_text = null, body_html = null
                           where id = ${m.id} and body_sealed is null`.execute(db);
      sealed += Number(u.numAffectedRows ?? 0);
    }
    if (r.rows.length < BATCH) {
      break;
    }
  }
  for (;;) {
    const r = await sql<{ id: string; body_text: string; template_params: string[] }>`
      select id::text as id, body_text, template_params from channel_messages
       where body_sealed is null and body_text is not null and status in ('queued', 'sending', 'outbox')
       order by id limit ${BATCH}`.execute(db);
    for (const m of r.rows) {
      const box = secrets.seal(JSON.stringify({ text: m.body_text, params: m.template_params }));
      const u = await sql`update channel_messages set body_sealed = ${box}, body_text = null, template_params = '[]'::jsonb
                           where id = ${m.id} and body_sealed is null`.execute(db);
      sealed += Number(u.numAffectedRows ?? 0);
    }
    if (r.rows.length < BATCH) {
      break;
    }
  }
  return sealed;
}
