// SQL for the mail outbox. A body carries personal links and one-time codes, so it is stored sealed
// under the master key (migration 0031): sealed here on the way in and opened on the way out, so no
// caller writes a body in the clear or has to remember to open one. Rows from before that migration
// hold their body in body_text/body_html (whole while waiting, secrets redacted once delivered).
import type { Selectable, Transaction } from 'kysely';
import type { SecretBox } from '../pki/secret-box.js';
import type { Db } from './db.js';
import type { Database, MailMessagesTable } from './schema.js';

type MailRow = Selectable<MailMessagesTable>;

export type MailKind = MailRow['kind'];

const COLUMNS = [
  'message_id',
  'account_id',
  'document_id',
  'kind',
  'recipient',
  'subject',
  'body_text',
  'body_html',
  'body_sealed',
  'attachments',
  'status',
  'attempts',
  'reply',
  'created_at',
  'sent_at',
] as const;

/** A message as callers see it: its body opened, its attachments (jsonb) typed. */
export type OutboxMessage = Omit<Pick<MailRow, (typeof COLUMNS)[number]>, 'body_sealed' | 'body_text' | 'body_html' | 'attachments'> & {
  body_text: string;
  body_html: string;
  attachments: { filename: string; sha256: string; content_type: string }[];
};

/** The outbox and the key its bodies are sealed under. */
export interface Outbox {
  db: Db;
  secrets: SecretBox;
}

/** Inserts the message, its body sealed; its delivery job is added by the caller, in the same transaction. */
export async function insertMessage(
  trx: Transaction<Database>,
  secrets: SecretBox,
  m: Omit<OutboxMessage, 'status' | 'attempts' | 'reply' | 'sent_at'>,
): Promise<void> {
  const sealed = secrets.seal(JSON.stringify({ text: m.body_text, html: m.body_html }));
  await trx
    .insertInto('mail_messages')
    .values({
      message_id: m.message_id,
      account_id: m.account_id,
      document_id: m.document_id,
      kind: m.kind,
      recipient: m.recipient,
      subject: m.subject,
      body_sealed: sealed,
      attachments: JSON.stringify(m.attachments),
      created_at: m.created_at,
    })
    .execute();
}

function opened(secrets: SecretBox, row: Pick<MailRow, (typeof COLUMNS)[number]>): OutboxMessage {
  const { body_sealed, ...rest } = row;
  const body = body_sealed ? (JSON.parse(secrets.open(body_sealed)) as { text: string; html: string }) : undefined;
  return {
    ...rest,
    attachments: row.attachments as OutboxMessage['attachments'],
    body_text: body?.text ?? row.body_text ?? '',
    body_html: body?.html ?? row.body_html ?? '',
  };
}

export async function findMessage(o: Outbox, messageId: string): Promise<OutboxMessage | undefined> {
  const row = await o.db.selectFrom('mail_messages').select(COLUMNS).where('message_id', '=', messageId).executeTakeFirst();
  return row && opened(o.secrets, row);
}

export async function listMessages(o: Outbox, limit: number): Promise<OutboxMessage[]> {
  const rows = await o.db
    .selectFrom('mail_messages')
    .select(COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => opened(o.secrets, row));
}

/** Moves a queued message to its outcome; false when it was not queued any more (already settled). */
export async function settleMessage(
  db: Db | Transaction<Database>,
  messageId: string,
  outcome: { status: 'sent' | 'outbox' | 'failed'; reply: string | null; at: Date },
): Promise<boolean> {
  const r = await db
    .updateTable('mail_messages')
    .set((eb) => ({
      status: outcome.status,
      reply: outcome.reply,
      attempts: eb('attempts', '+', 1),
      ...(outcome.status === 'sent' ? { sent_at: outcome.at } : {}),
    }))
    .where('message_id', '=', messageId)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function countAttempt(db: Db, messageId: string, reply: string): Promise<void> {
  await db
    .updateTable('mail_messages')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), reply }))
    .where('message_id', '=', messageId)
    .execute();
}
