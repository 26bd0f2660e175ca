// SQL for signing: the signer behind a link token, the document locked for one signature at a
// time, and the state changes a signature or a rejection makes.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

type Q = Db | Transaction<Database>;

export interface SigningSigner {
  id: string;
  signer_id: string;
  document_id: string;
  position: number;
  authority: string;
  data: string;
  name: string | null;
  email: string | null;
  status: string;
  signed_at: Date | null;
  /** null when no identity verification was asked for this signer. */
  identity_status: 'verification_pending' | 'verified' | 'verification_failed' | null;
  /** 'endorser': the signer of an endorsement of a completed document (domain/endorsements). */
  role: 'signer' | 'endorser';
}

export interface SigningDocument {
  id: string;
  ticket: string;
  account_id: string;
  name: string;
  status: string;
  original_sha256: string;
  page_count: number;
  workflow: unknown;
}

const SIGNER = sql`s.id::text as id, s.signer_id, s.document_id::text as document_id, s.position, s.authority, s.data, s.name,
  s.email, s.status, s.signed_at, s.identity_status, s.role`;
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
  const fresh = await sql<SigningSigner>`select ${SIGNER} from signers s where s.id = ${row.s.id} and s.token_hash = ${tokenHash}`.execute(
    q,
  );
  return fresh.rows[0] ? { signer: fresh.rows[0], document: row.d } : undefined;
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
export async function signersOf(q: Q, documentId: string, o: { endorsers?: boolean } = {}) {
  const roles = o.endorsers ? sql`` : sql`and s.role = 'signer'`;
  const r =
    await sql<SigningSigner>`select ${SIGNER} from signers s where s.document_id = ${documentId} ${roles} order by s.position`.execute(q);
  return r.rows;
}

export async function markViewed(q: Q, signerRowId: string, at: Date) {
  await sql`update signers set viewed_at = coalesce(viewed_at, ${at}),
              status = case when status in ('pending', 'invited') then 'viewed' else status end
            where id = ${signerRowId}`.execute(q);
}

export async function recordSignature(
  trx: Transaction<Database>,
  s: {
    documentId: string;
    signerRowId: string;
    sha256: string;
    at: Date;
    certificateSerial: string;
    type: 'drawn' | 'typed' | 'efirma';
    ip: string | null;
    /** Revocation status learnt from an outside responder (SAT e.firma); null for the service's own certificates. */
    certificateStatus?: string | null;
  },
): Promise<void> {
  await sql`update signers set status = 'signed', signed_at = ${s.at}, certificate_serial = ${s.certificateSerial},
              signature_type = ${s.type}, action_ip = ${s.ip}, certificate_status = ${s.certificateStatus ?? null}
            where id = ${s.signerRowId}`.execute(trx);
  await sql`update documents set original_sha256 = ${s.sha256}, updated_at = ${s.at} where id = ${s.documentId}`.execute(trx);
  await sql`insert into document_revisions (document_id, revision, sha256, signer_row_id, created_at)
            values (${s.documentId},
                    (select coalesce(max(revision), 0) + 1 from document_revisions where document_id = ${s.documentId}),
                    ${s.sha256}, ${s.signerRowId}, ${s.at})`.execute(trx);
}

export async function recordRejection(
  trx: Transaction<Database>,
  r: { documentId: string; signerRowId: string; reason: string; at: Date; ip: string | null },
) {
  await sql`update signers set status = 'rejected', rejected_at = ${r.at}, rejection_reason = ${r.reason}, action_ip = ${r.ip}
            where id = ${r.signerRowId}`.execute(trx);
  await sql`update documents set status = 'rejected', updated_at = ${r.at} where id = ${r.documentId}`.execute(trx);
}

export async function completeDocument(trx: Transaction<Database>, documentId: string, at: Date) {
  await sql`update documents set status = 'completed', completed_at = ${at}, updated_at = ${at} where id = ${documentId}`.execute(trx);
}

export interface OtpState {
  otp_hash: Buffer | null;
  otp_expires_at: Date | null;
  otp_sent_at: Date | null;
  otp_attempts: number;
  verified_at: Date | null;
}

export async function otpStateOf(q: Q, signerRowId: string): Promise<OtpState> {
  const r =
    await sql<OtpState>`select otp_hash, otp_expires_at, otp_sent_at, otp_attempts, verified_at from signers where id = ${signerRowId}`.execute(
      q,
    );
  return r.rows[0];
}

export async function storeOtp(q: Q, signerRowId: string, o: { hash: Buffer; expiresAt: Date; sentAt: Date }) {
  await sql`update signers set otp_hash = ${o.hash}, otp_expires_at = ${o.expiresAt}, otp_sent_at = ${o.sentAt}, otp_attempts = 0
            where id = ${signerRowId}`.execute(q);
}

export async function countOtpAttempt(q: Q, signerRowId: string) {
  await sql`update signers set otp_attempts = otp_attempts + 1 where id = ${signerRowId}`.execute(q);
}

export async function markVerified(q: Q, signerRowId: string, at: Date) {
  await sql`update signers set verified_at = ${at}, otp_hash = null, otp_expires_at = null where id = ${signerRowId}`.execute(q);
}
