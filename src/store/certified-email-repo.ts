// SQL for certified emails and their evidence (migration 0024). Every "first" moment (open,
// download, delivery, bounce) is written with a conditional UPDATE, so a second occurrence, or two
// at once, never moves it.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

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

export interface CertifiedEmailRow {
  id: string;
  document_id: string;
  account_id: string;
  ticket: string;
  document_name: string;
  account_name: string;
  time_zone: string;
  document_status: string;
  document_workflow: unknown;
  document_nom151: boolean;
  recipient: string;
  subject: string;
  message: string;
  send_on: 'created' | 'completed';
  created_at: Date;
  message_id: string | null;
  header_message_id: string | null;
  /** The RFC 3461 ENVID sent with the message: a secret only reports made from its envelope carry. */
  envelope_id: string;
  document_sha256: string | null;
  attached: boolean | null;
  queued_at: Date | null;
  raw_sha256: string | null;
  raw_bytes: number | null;
  /** The blob of the raw message sealed under the master key (migration 0032); null before it, or until built. */
  raw_blob: string | null;
  sent_at: Date | null;
  smtp_reply: string | null;
  refused_at: Date | null;
  refusal_reply: string | null;
  /** false: not delivered because the SMTP server never answered (see 0024_certified_email.sql). */
  refused_by_server: boolean | null;
  delivered_at: Date | null;
  bounced_at: Date | null;
  delivery_reports: StoredDeliveryReport[];
  opened_at: Date | null;
  open_ip: string | null;
  open_user_agent: string | null;
  downloaded_at: Date | null;
  download_ip: string | null;
  download_user_agent: string | null;
  evidence_pdf_sha256: string | null;
  evidence_fingerprint: string | null;
  mail_status: 'queued' | 'sent' | 'outbox' | 'failed' | null;
}

const SELECT = sql`select c.id::text as id, c.document_id::text as document_id, d.account_id::text as account_id, d.ticket,
    d.name as document_name, a.name as account_name, a.time_zone, d.status as document_status, d.workflow as document_workflow, d.nom151 as document_nom151,
    c.recipient, c.subject, c.message, c.send_on, c.created_at, c.message_id, c.header_message_id, c.envelope_id, c.document_sha256,
    c.attached, c.queued_at, c.raw_sha256, c.raw_bytes, c.raw_blob, c.sent_at, c.smtp_reply, c.refused_at, c.refusal_reply, c.refused_by_server,
    c.delivered_at, c.bounced_at, c.delivery_reports, c.opened_at, c.open_ip, c.open_user_agent, c.downloaded_at,
    c.download_ip, c.download_user_agent, c.evidence_pdf_sha256, c.evidence_fingerprint, m.status as mail_status
  from certified_emails c join documents d on d.id = c.document_id join accounts a on a.id = d.account_id left join mail_messages m on m.message_id = c.message_id`;

export async function insertCertifiedEmail(
  trx: Transaction<Database>,
  c: { documentId: string; recipient: string; subject: string; message: string; sendOn: 'created' | 'completed'; at: Date },
): Promise<void> {
  await sql`insert into certified_emails (document_id, recipient, subject, message, send_on, created_at)
            values (${c.documentId}, ${c.recipient}, ${c.subject}, ${c.message}, ${c.sendOn}, ${c.at})`.execute(trx);
}

/** The document's certified email, locked, when it is still to be queued. */
export async function claimUnqueued(trx: Transaction<Database>, documentId: string): Promise<CertifiedEmailRow | undefined> {
  const r = await sql<CertifiedEmailRow>`${SELECT} where c.document_id = ${documentId} and c.message_id is null for update of c`.execute(
    trx,
  );
  return r.rows[0];
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
  await sql`update certified_emails set message_id = ${q.messageId}, header_message_id = ${q.headerMessageId},
              document_sha256 = ${q.documentSha256}, attached = ${q.attached}, open_token_hash = ${q.openTokenHash},
              download_token_hash = ${q.downloadTokenHash}, queued_at = ${q.at}
            where id = ${id}`.execute(trx);
}

export async function findByTicket(db: Conn, accountId: string, ticket: string): Promise<CertifiedEmailRow | undefined> {
  const r = await sql<CertifiedEmailRow>`${SELECT} where d.ticket = ${ticket} and d.account_id = ${accountId}`.execute(db);
  return r.rows[0];
}

export async function findByMessageId(db: Conn, messageId: string): Promise<CertifiedEmailRow | undefined> {
  const r = await sql<CertifiedEmailRow>`${SELECT} where c.message_id = ${messageId}`.execute(db);
  return r.rows[0];
}

export async function findByEnvelopeId(db: Conn, envelopeId: string): Promise<CertifiedEmailRow | undefined> {
  const r = await sql<CertifiedEmailRow>`${SELECT} where c.envelope_id = ${envelopeId}`.execute(db);
  return r.rows[0];
}

export async function findByHeaderMessageId(db: Conn, headerMessageId: string): Promise<CertifiedEmailRow | undefined> {
  const r = await sql<CertifiedEmailRow>`${SELECT} where c.header_message_id = ${headerMessageId}`.execute(db);
  return r.rows[0];
}

export async function findByOpenToken(db: Conn, hash: Buffer): Promise<CertifiedEmailRow | undefined> {
  const r = await sql<CertifiedEmailRow>`${SELECT} where c.open_token_hash = ${hash}`.execute(db);
  return r.rows[0];
}

export async function findByDownloadToken(db: Conn, hash: Buffer): Promise<CertifiedEmailRow | undefined> {
  const r = await sql<CertifiedEmailRow>`${SELECT} where c.download_token_hash = ${hash}`.execute(db);
  return r.rows[0];
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
  await sql`update certified_emails set raw_sha256 = ${raw.sha256}, raw_bytes = ${raw.bytes}, raw_blob = ${raw.sealedBlob}
             where id = ${id} and raw_sha256 is null`.execute(db);
  const r = await sql<{
    raw_sha256: string;
    raw_blob: string | null;
  }>`select raw_sha256, raw_blob from certified_emails where id = ${id}`.execute(db);
  return { sha256: r.rows[0].raw_sha256, sealedBlob: r.rows[0].raw_blob };
}

/** The SMTP server accepted the message: when, and what it answered. False when recorded already. */
export async function recordSent(trx: Transaction<Database>, id: string, s: { at: Date; reply: string }): Promise<boolean> {
  const r = await sql`update certified_emails set sent_at = ${s.at}, smtp_reply = ${s.reply}
                      where id = ${id} and sent_at is null`.execute(trx);
  return Number(r.numAffectedRows ?? 0) === 1;
}

export async function recordRefused(
  trx: Transaction<Database>,
  id: string,
  s: { at: Date; reply: string; byServer: boolean },
): Promise<boolean> {
  const r = await sql`update certified_emails set refused_at = ${s.at}, refusal_reply = ${s.reply}, refused_by_server = ${s.byServer}
                      where id = ${id} and refused_at is null`.execute(trx);
  return Number(r.numAffectedRows ?? 0) === 1;
}

/** First open through the tracking image; false when an earlier open was recorded. */
export async function recordOpen(trx: Transaction<Database>, id: string, o: { at: Date; ip: string | null; userAgent: string | null }) {
  const r = await sql`update certified_emails set opened_at = ${o.at}, open_ip = ${o.ip}, open_user_agent = ${o.userAgent}
                      where id = ${id} and opened_at is null`.execute(trx);
  return Number(r.numAffectedRows ?? 0) === 1;
}

/** First download through the link; false when an earlier download was recorded. */
export async function recordDownload(
  trx: Transaction<Database>,
  id: string,
  o: { at: Date; ip: string | null; userAgent: string | null },
): Promise<boolean> {
  const r = await sql`update certified_emails set downloaded_at = ${o.at}, download_ip = ${o.ip}, download_user_agent = ${o.userAgent}
                      where id = ${id} and downloaded_at is null`.execute(trx);
  return Number(r.numAffectedRows ?? 0) === 1;
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
  const before = await sql<{ delivered_at: Date | null; bounced_at: Date | null }>`
    select delivered_at, bounced_at from certified_emails where id = ${id} for update`.execute(trx);
  const old = before.rows[0];
  const firstDelivered = verified && report.action === 'delivered' && !!old && old.delivered_at === null;
  const firstBounced = verified && report.action === 'failed' && !!old && old.bounced_at === null;
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
  await sql`update certified_emails set evidence_pdf_sha256 = ${e.sha256}, evidence_fingerprint = ${e.fingerprint} where id = ${id}`.execute(
    db,
  );
}
