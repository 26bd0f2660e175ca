// Seals the bodies of messages written before migration 0031 that still wait: queued, being sent or
// kept in the outbox (no provider configured). The migration redacted those already delivered; these
// are still to be sent or read by the operator, whole, and sealing them needs the master key, which
// only the service has, so each start does it (the service starts before its workers take a job).
// Idempotent and safe with several processes starting at once: a row is written only while it still
// holds plaintext, so the first to get there seals it and the others change nothing.
import type { SecretBox } from '../pki/secret-box.js';
import type { Db } from './db.js';

const BATCH = 500;

/** The number of message bodies sealed (email, SMS and WhatsApp). */
export async function sealMessageBodies(db: Db, secrets: SecretBox): Promise<number> {
  let sealed = 0;
  for (;;) {
    const rows = await db
      .selectFrom('mail_messages')
      .select(['id', 'body_text', 'body_html'])
      .where('body_sealed', 'is', null)
      .where('body_text', 'is not', null)
      .where('status', 'in', ['queued', 'outbox'])
      .orderBy('id')
      .limit(BATCH)
      .$narrowType<{ body_text: string }>()
      .execute();
    for (const m of rows) {
      const box = secrets.seal(JSON.stringify({ text: m.body_text, html: m.body_html ?? '' }));
      const u = await db
        .updateTable('mail_messages')
        .set({ body_sealed: box, body_text: null, body_html: null })
        .where('id', '=', m.id)
        .where('body_sealed', 'is', null)
        .executeTakeFirst();
      sealed += Number(u.numUpdatedRows);
    }
    if (rows.length < BATCH) {
      break;
    }
  }
  for (;;) {
    const rows = await db
      .selectFrom('channel_messages')
      .select(['id', 'body_text', 'template_params'])
      .where('body_sealed', 'is', null)
      .where('body_text', 'is not', null)
      .where('status', 'in', ['queued', 'sending', 'outbox'])
      .orderBy('id')
      .limit(BATCH)
      .$narrowType<{ body_text: string }>()
      .execute();
    for (const m of rows) {
      const box = secrets.seal(JSON.stringify({ text: m.body_text, params: m.template_params }));
      const u = await db
        .updateTable('channel_messages')
        .set({ body_sealed: box, body_text: null, template_params: '[]' })
        .where('id', '=', m.id)
        .where('body_sealed', 'is', null)
        .executeTakeFirst();
      sealed += Number(u.numUpdatedRows);
    }
    if (rows.length < BATCH) {
      break;
    }
  }
  return sealed;
}
