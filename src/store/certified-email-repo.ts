// SQL for certified emails and their evidence (migration 0024). Every "first" moment (open,
// download, delivery, bounce) is written with a conditional UPDATE, so a second occurrence, or two
// at once, never moves it.
import { type Selectable, sql, type Transaction, type Updateable } from 'kysely';
import type { Db } from './db.js';
import type { CertifiedEmailsTable, Database, DocumentsTable, MailMessagesTable } from './schema.js';

type Conn = Db | Transaction<Database>;

/** One delivery-status notification matched to a certified email (RFC 3464 fields, as parsed). */
export interface StoredDeliveryReport {
  received_at: string;
  action: string;
  status: string | null;
  recipient: string | null;
  diagnostic_code: string | null;
  reporting_mta: string | null;
  remote_mta: string | null;
  /** false: matched by the original's Message-ID only, which anyone who received the message knows. */
  verified: boolean;
}

const EMAIL_COLUMNS = [
  'recipient',
  'subject',
  'message',
  'send_on',
  'created_at',
  'message_id',
  'header_message_id',
  'envelope_id',
  'document_sha256',
  'attached',
  'queued_at',
  'raw_sha256',
  'raw_bytes',
  'raw_blob',
  'sent_at',
  'smtp_reply',
  'refused_at',
  'refusal_reply',
  'refused_by_server',
  'delivered_at',
  'bounced_at',
  'delivery_reports',
  'opened_at',
  'open_ip',
  'open_user_agent',
  'downloaded_at',
  'download_ip',
  'download_user_agent',
  'evidence_pdf_sha256',
  'evidence_fingerprint',
] as const;

/**
 * A certified email with its document, account and mail message. envelope_id: the RFC 3461 ENVID
 * sent with the message, a secret only reports made from its envelope carry; raw_blob: the raw
 * message sealed under the master key (0032), null before it or until built; refused_by_server
 * false: not delivered because the SMTP server never answered (0024_certified_email.sql).
 */
export type CertifiedEmailRow = Omit<Pick<Selectable<CertifiedEmailsTable>, (typeof EMAIL_COLUMNS)[number]>, 'delivery_reports'> & {
  id: string;
  document_id: string;
  account_id: string;
  ticket: string;
  document_name: string;
  account_name: string;
  time_zone: string;
  document_status: Selectable<DocumentsTable>['status'];
  document_workflow: unknown;
  document_nom151: boolean;
  delivery_reports: StoredDeliveryReport[];
  mail_status: Selectable<MailMessagesTable>['status'] | null;
};

/** The certified emails with what their answers show, to be narrowed by a where. */
function certifiedEmails(q: Conn) {
  return q
    .selectFrom('certified_emails as c')
    .innerJoin('documents as d', 'd.id', 'c.document_id')
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .leftJoin('mail_messages as m', 'm.message_id', 'c.message_id')
    .select(['c.id', 'c.document_id', 'd.account_id', 'd.ticket', 'd.name as document_name', 'a.name as account_name', 'a.time_zone'])
    .select(['d.status as document_status', 'd.workflow as document_workflow', 'd.nom151 as document_nom151', 'm.status as mail_status'])
    .select(EMAIL_COLUMNS.map((col) => `c.${col}` as const))
    .$narrowType<{ delivery_reports: StoredDeliveryReport[] }>();
}

export async function insertCertifiedEmail(
  trx: Transaction<Database>,
  c: { documentId: string; recipient: string; subject: string; message: string; sendOn: 'created' | 'completed'; at: Date },
): Promise<void> {
  await trx
    .insertInto('certified_emails')
    .values({
      document_id: c.documentId,
      recipient: c.recipient,
      subject: c.subject,
      message: c.message,
      send_on: c.sendOn,
      created_at: c.at,
    })
    .execute();
}

/** The document's certified email, locked, when it is still to be queued. */
export async function claimUnqueued(trx: Transaction<Database>, documentId: string): Promise<CertifiedEmailRow | undefined> {
  return certifiedEmails(trx).where('c.document_id', '=', documentId).where('c.message_id', 'is', null).forUpdate('c').executeTakeFirst();
}

export async function markQueued(
  trx: Transaction<Database>,
  id: string,
  q: {
    messageId: string;
    headerMessageId: string;
    documentSha256: string;
    attached: boolean;
    openTokenHash: Buffer;
    downloadTokenHash: Buffer;
    at: Date;
  },
): Promise<void> {
  await trx
    .updateTable('certified_emails')
    .set({
      message_id: q.messageId,
      header_message_id: q.headerMessageId,
      document_sha256: q.documentSha256,
      attached: q.attached,
      open_token_hash: q.openTokenHash,
      download_token_hash: q.downloadTokenHash,
      queued_at: q.at,
    })
    .where('id', '=', id)
    .execute();
}

export async function findByTicket(db: Conn, accountId: string, ticket: string): Promise<CertifiedEmailRow | undefined> {
  return certifiedEmails(db).where('d.ticket', '=', ticket).where('d.account_id', '=', accountId).executeTakeFirst();
}

export async function findByMessageId(db: Conn, messageId: string): Promise<CertifiedEmailRow | undefined> {
  return certifiedEmails(db).where('c.message_id', '=', messageId).executeTakeFirst();
}

export async function findByEnvelopeId(db: Conn, envelopeId: string): Promise<CertifiedEmailRow | undefined> {
  return certifiedEmails(db).where('c.envelope_id', '=', envelopeId).executeTakeFirst();
}

export async function findByHeaderMessageId(db: Conn, headerMessageId: string): Promise<CertifiedEmailRow | undefined> {
  return certifiedEmails(db).where('c.header_message_id', '=', headerMessageId).executeTakeFirst();
}

export async function findByOpenToken(db: Conn, hash: Buffer): Promise<CertifiedEmailRow | undefined> {
  return certifiedEmails(db).where('c.open_token_hash', '=', hash).executeTakeFirst();
}

export async function findByDownloadToken(db: Conn, hash: Buffer): Promise<CertifiedEmailRow | undefined> {
  return certifiedEmails(db).where('c.download_token_hash', '=', hash).executeTakeFirst();
}

/** Where a certified email's raw message is kept: the blob and the SHA-256 of the message itself. */
export interface StoredRaw {
  /** SHA-256 of the bytes sent (the evidence's content_sha256). */
  sha256: string;
  /** The blob holding them: sealed under the master key, or, for rows from before 0032, the message in the clear (null). */
  sealedBlob: string | null;
}

/**
 * Records the raw message's blob once; returns the one that stands (an attempt that raced this one
 * may have stored its own first: every later attempt sends that one).
 */
export async function setRawOnce(db: Conn, id: string, raw: StoredRaw & { bytes: number }): Promise<StoredRaw> {
  await db
    .updateTable('certified_emails')
    .set({ raw_sha256: raw.sha256, raw_bytes: raw.bytes, raw_blob: raw.sealedBlob })
    .where('id', '=', id)
    .where('raw_sha256', 'is', null)
    .execute();
  const r = await db.selectFrom('certified_emails').select(['raw_sha256', 'raw_blob']).where('id', '=', id).executeTakeFirstOrThrow();
  return { sha256: r.raw_sha256!, sealedBlob: r.raw_blob };
}

/** Sets `change` when `moment` is not set yet (the conditional UPDATE of the file's header); false when it was. */
async function firstTime(
  trx: Transaction<Database>,
  id: string,
  moment: 'sent_at' | 'refused_at' | 'opened_at' | 'downloaded_at',
  change: Updateable<CertifiedEmailsTable>,
): Promise<boolean> {
  const r = await trx.updateTable('certified_emails').set(change).where('id', '=', id).where(moment, 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The SMTP server accepted the message: when, and what it answered. False when recorded already. */
export async function recordSent(trx: Transaction<Database>, id: string, s: { at: Date; reply: string }): Promise<boolean> {
  return firstTime(trx, id, 'sent_at', { sent_at: s.at, smtp_reply: s.reply });
}

export async function recordRefused(
  trx: Transaction<Database>,
  id: string,
  s: { at: Date; reply: string; byServer: boolean },
): Promise<boolean> {
  return firstTime(trx, id, 'refused_at', { refused_at: s.at, refusal_reply: s.reply, refused_by_server: s.byServer });
}

/** First open through the tracking image; false when an earlier open was recorded. */
export async function recordOpen(trx: Transaction<Database>, id: string, o: { at: Date; ip: string | null; userAgent: string | null }) {
  return firstTime(trx, id, 'opened_at', { opened_at: o.at, open_ip: o.ip, open_user_agent: o.userAgent });
}

/** First download through the link; false when an earlier download was recorded. */
export async function recordDownload(
  trx: Transaction<Database>,
  id: string,
  o: { at: Date; ip: string | null; userAgent: string | null },
): Promise<boolean> {
  return firstTime(trx, id, 'downloaded_at', { downloaded_at: o.at, download_ip: o.ip, download_user_agent: o.userAgent });
}

/** Most reports kept per email: a looping or hostile sender cannot grow the row without end. */
const MAX_REPORTS = 50;

/**
 * Appends a delivery-status report and sets delivered_at or bounced_at the first time one says so.
 * Returns which of the two this report set first.
 */
export async function recordDeliveryReport(
  trx: Transaction<Database>,
  id: string,
  report: StoredDeliveryReport,
  at: Date,
  /** Matched by the secret envelope id: only then may it set delivered_at or bounced_at. */
  verified: boolean,
): Promise<{ firstDelivered: boolean; firstBounced: boolean }> {
  // The row is locked first, so two reports at once cannot both be the first.
  const old = await trx
    .selectFrom('certified_emails')
    .select(['delivered_at', 'bounced_at'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  const firstDelivered = verified && report.action === 'delivered' && !!old && old.delivered_at === null;
  const firstBounced = verified && report.action === 'failed' && !!old && old.bounced_at === null;
  // jsonb's || and jsonb_array_length: said in SQL, where the builder would only wrap them.
  await sql`update certified_emails set
      delivery_reports = case when jsonb_array_length(delivery_reports) < ${MAX_REPORTS}
                              then delivery_reports || ${JSON.stringify([report])}::jsonb else delivery_reports end,
      delivered_at = case when ${firstDelivered} then ${at}::timestamptz else delivered_at end,
      bounced_at = case when ${firstBounced} then ${at}::timestamptz else bounced_at end
    where id = ${id}`.execute(trx);
  return { firstDelivered, firstBounced };
}

/**
 * Runs `work` while no other request makes the evidence PDF of the same certified email (a
 * transaction-scoped advisory lock, taken on a connection of its own and released when `work` ends):
 * two requests at once would each seal and stamp a file, and spend a stamp each. `work` gets the
 * lock's transaction: what it writes there (the stamps piece, the file kept) commits together.
 */
export async function underEvidenceLock<T>(db: Db, id: string, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('certified_email_evidence'), (${id}::bigint % 2147483647)::int)`.execute(trx);
    return work(trx);
  });
}

export async function saveEvidencePdf(db: Conn, id: string, e: { sha256: string; fingerprint: string }): Promise<void> {
  await db
    .updateTable('certified_emails')
    .set({ evidence_pdf_sha256: e.sha256, evidence_fingerprint: e.fingerprint })
    .where('id', '=', id)
    .execute();
}
