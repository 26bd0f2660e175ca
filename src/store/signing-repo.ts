// SQL for signing: the signer behind a link token, the document locked for one signature at a
// time, and the state changes a signature or a rejection makes.
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DocumentsTable, SignersTable } from './schema.js';

type Q = Db | Transaction<Database>;

const SIGNER_COLUMNS = [
  'id',
  'signer_id',
  'document_id',
  'position',
  'authority',
  'data',
  'name',
  'email',
  'status',
  'signed_at',
  'identity_status',
  'role',
  'certificate_match',
] as const;

/**
 * A signer row as signing needs it. identity_status: null when no identity verification was asked;
 * role 'endorser': the signer of an endorsement of a completed document (domain/endorsements).
 */
export type SigningSigner = Pick<Selectable<SignersTable>, (typeof SIGNER_COLUMNS)[number]>;

export type SigningDocument = Pick<
  Selectable<DocumentsTable>,
  'id' | 'ticket' | 'account_id' | 'name' | 'status' | 'original_sha256' | 'page_count' | 'workflow'
>;

const SIGNER = sql`s.id::text as id, s.signer_id, s.document_id::text as document_id, s.position, s.authority, s.data, s.name,
  s.email, s.status, s.signed_at, s.identity_status, s.role, s.certificate_match`;
const DOCUMENT = sql`d.id::text as id, d.ticket, d.account_id::text as account_id, d.name, d.status, d.original_sha256,
  d.page_count, d.workflow`;

/**
 * The signer whose link token hashes to `tokenHash`, with its document. lock=true locks the
 * document row and then reads the signer again: the first read happened before the lock was
 * granted, and under READ COMMITTED only the locked row is re-read when a lock wait ends, so a
 * signature, rejection or correction committed meanwhile would otherwise go unseen.
 */
export async function findByToken(
  q: Q,
  tokenHash: Buffer,
  lock = false,
): Promise<{ signer: SigningSigner; document: SigningDocument } | undefined> {
  // One statement reads the signer and locks its document (a LATERAL subquery FOR UPDATE): kept in SQL.
  const r = await sql<{ s: SigningSigner; d: SigningDocument }>`
    select row_to_json(x) as s, row_to_json(y) as d from
      (select ${SIGNER} from signers s where s.token_hash = ${tokenHash}) x,
      lateral (select ${DOCUMENT} from documents d where d.id = x.document_id::bigint ${lock ? sql`for update` : sql``}) y`.execute(q);
  const row = r.rows[0];
  if (!row) {
    return undefined;
  }
  if (!lock) {
    return { signer: reviveSigner(row.s), document: row.d };
  }
  const fresh = await q
    .selectFrom('signers')
    .select(SIGNER_COLUMNS)
    .where('id', '=', row.s.id)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return fresh ? { signer: fresh, document: row.d } : undefined;
}

function reviveSigner(s: SigningSigner): SigningSigner {
  return { ...s, signed_at: s.signed_at ? new Date(s.signed_at) : null };
}

export async function stickersOf(q: Q, signerRowId: string) {
  return q
    .selectFrom('stickers')
    .select(['sticker_id', 'sticker_index', 'page', 'lx', 'ly', 'tx', 'ty'])
    .where('signer_row_id', '=', signerRowId)
    .orderBy('sticker_index')
    .execute();
}

/** The document's signers in order; with `endorsers`, the endorsers of its endorsements after them. */
export async function signersOf(q: Q, documentId: string, o: { endorsers?: boolean } = {}): Promise<SigningSigner[]> {
  return q
    .selectFrom('signers')
    .select(SIGNER_COLUMNS)
    .where('document_id', '=', documentId)
    .$if(!o.endorsers, (qb) => qb.where('role', '=', 'signer'))
    .orderBy('position')
    .execute();
}

export async function markViewed(q: Q, signerRowId: string, at: Date) {
  await q
    .updateTable('signers')
    .set((eb) => ({
      viewed_at: eb.fn.coalesce('viewed_at', eb.val(at)),
      status: eb.case().when('status', 'in', ['pending', 'invited']).then('viewed').else(eb.ref('status')).end(),
    }))
    .where('id', '=', signerRowId)
    .execute();
}

export async function recordSignature(
  trx: Transaction<Database>,
  s: {
    documentId: string;
    signerRowId: string;
    sha256: string;
    at: Date;
    certificateSerial: string;
    type: 'drawn' | 'typed' | 'efirma' | 'certificate';
    ip: string | null;
    /** Revocation status learnt from an outside responder (SAT e.firma); null for the service's own certificates. */
    certificateStatus?: string | null;
  },
): Promise<void> {
  await trx
    .updateTable('signers')
    .set({
      status: 'signed',
      signed_at: s.at,
      certificate_serial: s.certificateSerial,
      signature_type: s.type,
      action_ip: s.ip,
      certificate_status: s.certificateStatus ?? null,
    })
    .where('id', '=', s.signerRowId)
    .execute();
  await trx.updateTable('documents').set({ original_sha256: s.sha256, updated_at: s.at }).where('id', '=', s.documentId).execute();
  await trx
    .insertInto('document_revisions')
    .values((eb) => ({
      document_id: s.documentId,
      revision: eb
        .selectFrom('document_revisions')
        .select(sql<number>`coalesce(max(revision), 0) + 1`.as('next'))
        .where('document_id', '=', s.documentId),
      sha256: s.sha256,
      signer_row_id: s.signerRowId,
      created_at: s.at,
    }))
    .execute();
}

export async function recordRejection(
  trx: Transaction<Database>,
  r: { documentId: string; signerRowId: string; reason: string; at: Date; ip: string | null },
) {
  await trx
    .updateTable('signers')
    .set({ status: 'rejected', rejected_at: r.at, rejection_reason: r.reason, action_ip: r.ip })
    .where('id', '=', r.signerRowId)
    .execute();
  await trx.updateTable('documents').set({ status: 'rejected', updated_at: r.at }).where('id', '=', r.documentId).execute();
}

export async function completeDocument(trx: Transaction<Database>, documentId: string, at: Date) {
  await trx.updateTable('documents').set({ status: 'completed', completed_at: at, updated_at: at }).where('id', '=', documentId).execute();
}

const OTP_COLUMNS = ['otp_hash', 'otp_expires_at', 'otp_sent_at', 'otp_attempts', 'verified_at'] as const;

export type OtpState = Pick<Selectable<SignersTable>, (typeof OTP_COLUMNS)[number]>;

export async function otpStateOf(q: Q, signerRowId: string): Promise<OtpState> {
  const row = await q.selectFrom('signers').select(OTP_COLUMNS).where('id', '=', signerRowId).executeTakeFirst();
  // Undefined for an unknown row, as before; the type is the one callers were written against.
  return row as OtpState;
}

export async function storeOtp(q: Q, signerRowId: string, o: { hash: Buffer; expiresAt: Date; sentAt: Date }) {
  await q
    .updateTable('signers')
    .set({ otp_hash: o.hash, otp_expires_at: o.expiresAt, otp_sent_at: o.sentAt, otp_attempts: 0 })
    .where('id', '=', signerRowId)
    .execute();
}

export async function countOtpAttempt(q: Q, signerRowId: string) {
  await q
    .updateTable('signers')
    .set((eb) => ({ otp_attempts: eb('otp_attempts', '+', 1) }))
    .where('id', '=', signerRowId)
    .execute();
}

export async function markVerified(q: Q, signerRowId: string, at: Date) {
  await q.updateTable('signers').set({ verified_at: at, otp_hash: null, otp_expires_at: null }).where('id', '=', signerRowId).execute();
}
