// The certified email's part of the send_email job (jobs/send-email.ts): the raw message is built
// on the first attempt, stored as a blob with its SHA-256 recorded, and that blob is what every
// attempt sends, so content_sha256 names the bytes the SMTP server received whichever attempt
// succeeds. The blob is sealed under the master key: the message holds the download and open links,
// whose tokens the database keeps only as hashes (migration 0032).
// The server's acceptance (the moment and its reply, with the queue id) or its final refusal is
// recorded with the outbox row's settlement, in the same transaction.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { composeRawMessage } from '../../notify/compose-raw-message.js';
import type { MailAttachment, SentMail } from '../../notify/email-transport.js';
import { findByMessageId, recordRefused, recordSent, setRawOnce, type StoredRaw } from '../../store/certified-email-repo.js';
import { sha256Hex } from '../../store/blobs.js';
import { putHeldBlob } from '../../store/blob-fence.js';
import type { OutboxMessage } from '../../store/mail-repo.js';
import type { Database } from '../../store/schema.js';

export async function sendCertifiedEmail(
  deps: Pick<Deps, 'db' | 'blobs' | 'clock' | 'secrets'> & { mail: NonNullable<Deps['mail']> },
  m: OutboxMessage,
  attachments: MailAttachment[],
): Promise<SentMail> {
  const c = await findByMessageId(deps.db, m.message_id);
  if (!c?.header_message_id) {
    throw new Error(`certified email of outbox message ${m.message_id} not found`);
  }
  let stored: StoredRaw | null = c.raw_sha256 ? { sha256: c.raw_sha256, sealedBlob: c.raw_blob } : null;
  if (!stored) {
    const raw = await composeRawMessage({
      from: deps.mail.from,
      to: m.recipient,
      subject: m.subject,
      text: m.body_text,
      html: m.body_html,
      attachments,
      messageId: c.header_message_id,
      date: deps.clock.now(),
    });
    // Durable before it is sent: a crash after the send leaves the hash of what was sent.
    const sealed = deps.secrets.seal(raw.toString('base64'));
    stored = await deps.db.transaction().execute(async (trx) => {
      const sealedBlob = await putHeldBlob(trx, deps.blobs, sealed);
      return setRawOnce(trx, c.id, { sha256: sha256Hex(raw), bytes: raw.length, sealedBlob });
    });
  }
  const raw = stored.sealedBlob
    ? Buffer.from(deps.secrets.open(await deps.blobs.get(stored.sealedBlob)), 'base64')
    : await deps.blobs.get(stored.sha256);
  return deps.mail.transport.sendRaw({ from: deps.mail.from, to: m.recipient }, raw, { envelopeId: c.envelope_id });
}

export async function recordCertifiedSent(trx: Transaction<Database>, deps: Pick<Deps, 'clock'>, m: OutboxMessage, sent: SentMail) {
  const c = await findByMessageId(trx, m.message_id);
  const at = deps.clock.now();
  if (c && (await recordSent(trx, c.id, { at, reply: sent.response }))) {
    await appendHistory(trx, {
      documentId: c.document_id,
      at,
      action: 'certified_email_sent',
      actor: 'system',
      details: { recipient: c.recipient, content_sha256: c.raw_sha256, smtp_reply: sent.response },
    });
  }
}

/**
 * The message failed for good: refused by the SMTP server (`byServer`), or never handed over (no
 * answer, a timeout, an unreadable attachment): the evidence must not claim a refusal that a server
 * never gave.
 */
export async function recordCertifiedRefusal(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock'>,
  m: OutboxMessage,
  reply: string,
  byServer: boolean,
) {
  const c = await findByMessageId(trx, m.message_id);
  const at = deps.clock.now();
  if (c && (await recordRefused(trx, c.id, { at, reply, byServer }))) {
    await appendHistory(trx, {
      documentId: c.document_id,
      at,
      action: byServer ? 'certified_email_refused' : 'certified_email_failed',
      actor: 'system',
      details: { recipient: c.recipient, reply },
    });
  }
}
