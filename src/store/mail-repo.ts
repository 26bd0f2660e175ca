// SQL for the mail outbox. A body carries personal links and one-time codes, so it is stored sealed
// under the master key (migration 0031): sealed here on the way in and opened on the way out, so no
// caller writes a body in the clear or has to remember to open one. Rows from before that migration
// hold their body in body_text/body_html (whole while waiting, secrets redacted once delivered).
import { sql, type Transaction } from 'kysely';
import type { SecretBox } from '../pki/secret-box.js';
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
  await sql`insert into mail_messages (message_id, account_id, document_id, kind, recipient, subject, body_sealed, attachments, created_at)
            values (${m.message_id}, ${m.account_id}, ${m.document_id}, ${m.kind}, ${m.recipient}, ${m.subject}, ${sealed},
                    ${JSON.stringify(m.attachments)}::jsonb, ${m.created_at})`.execute(trx);
}

const COLUMNS = sql`message_id, account_id::text as account_id, document_id::text as document_id, kind, recipient, subject,
  body_text, body_html, body_sealed, attachments, status, attempts, reply, created_at, sent_at`;

type StoredMessage = Omit<OutboxMessage, 'body_text' | 'body_html'> & {
  body_text: string | null;
  body_html: string | null;
  body_sealed: Buffer | null;
};

function opened(secrets: SecretBox, row: StoredMessage): OutboxMessage {
  const { body_sealed, ...rest } = row;
  const body = body_sealed ? (JSON.parse(secrets.open(body_sealed)) as { text: string; html: string }) : undefined;
  return { ...rest, body_text: body?.text ?? row.body_text ?? '', body_html: body?.html ?? row.body_html ?? '' };
}

export async function findMessage(o: Outbox, messageId: string): Promise<OutboxMessage | undefined> {
  const r = await sql<StoredMessage>`select ${COLUMNS} from mail_messages where message_id = ${messageId}`.execute(o.db);
  return r.rows[0] && opened(o.secrets, r.rows[0]);
}

export async function listMessages(o: Outbox, limit: number): Promise<OutboxMessage[]> {
  const r = await sql<StoredMessage>`select ${COLUMNS} from mail_messages order by created_at desc, id desc limit ${limit}`.execute(o.db);
  return r.rows.map((row) => opened(o.secrets, row));
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
