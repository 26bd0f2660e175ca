// SQL for the mail outbox.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

export type MailKind = 'invitation' | 'reminder' | 'conclusion' | 'otp' | 'certified' | 'panel_sign_in';

export interface OutboxMessage {
  message_id: string;
  account_id: string | null;
  document_id: string | null;
  kind: MailKind;
  recipient: string;
  subject: string;
  body_text: string;
  body_html: string;
  attachments: { filename: string; sha256: string; content_type: string }[];
  status: 'queued' | 'sent' | 'outbox' | 'failed';
  attempts: number;
  reply: string | null;
  created_at: Date;
  sent_at: Date | null;
}

/** Inserts the message; its delivery job is added by the caller, in the same transaction. */
export async function insertMessage(
  trx: Transaction<Database>,
  m: Omit<OutboxMessage, 'status' | 'attempts' | 'reply' | 'sent_at'>,
): Promise<void> {
  await sql`insert into mail_messages (message_id, account_id, document_id, kind, recipient, subject, body_text, body_html, attachments, created_at)
            values (${m.message_id}, ${m.account_id}, ${m.document_id}, ${m.kind}, ${m.recipient}, ${m.subject}, ${m.body_text},
                    ${m.body_html}, ${JSON.stringify(m.attachments)}::jsonb, ${m.created_at})`.execute(trx);
}

const COLUMNS = sql`message_id, account_id::text as account_id, document_id::text as document_id, kind, recipient, subject,
  body_text, body_html, attachments, status, attempts, reply, created_at, sent_at`;

export async function findMessage(db: Db, messageId: string): Promise<OutboxMessage | undefined> {
  const r = await sql<OutboxMessage>`select ${COLUMNS} from mail_messages where message_id = ${messageId}`.execute(db);
  return r.rows[0];
}

export async function listMessages(db: Db, limit: number): Promise<OutboxMessage[]> {
  const r = await sql<OutboxMessage>`select ${COLUMNS} from mail_messages order by created_at desc, id desc limit ${limit}`.execute(db);
  return r.rows;
}

/** Moves a queued message to its outcome; false when it was not queued any more (already settled). */
export async function settleMessage(
  db: Db | Transaction<Database>,
  messageId: string,
  outcome: { status: 'sent' | 'outbox' | 'failed'; reply: string | null; at: Date },
): Promise<boolean> {
  const r = await sql`update mail_messages set status = ${outcome.status}, reply = ${outcome.reply}, attempts = attempts + 1,
                        sent_at = case when ${outcome.status} = 'sent' then ${outcome.at}::timestamptz else sent_at end
                      where message_id = ${messageId} and status = 'queued'`.execute(db);
  return Number(r.numAffectedRows ?? 0) === 1;
}

export async function countAttempt(db: Db, messageId: string, reply: string): Promise<void> {
  await sql`update mail_messages set attempts = attempts + 1, reply = ${reply} where message_id = ${messageId}`.execute(db);
}
