// SQL of endorsements (0023_endorsements.sql): the chain of a document, the one waiting for its
// endorser, and the endorser's signers row and box, written together.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, EndorsementType } from './schema.js';

type Q = Db | Transaction<Database>;

export type EndorsementStatus = 'pending' | 'signed' | 'declined' | 'withdrawn';

export interface EndorsementRow {
  endorsement_id: string;
  sequence: number;
  type: EndorsementType;
  text: string;
  endorser_name: string;
  endorsee_name: string;
  endorsee_email: string | null;
  endorsee_rfc: string | null;
  status: EndorsementStatus;
  created_at: Date;
  signed_at: Date | null;
  declined_at: Date | null;
  withdrawn_at: Date | null;
  /** The account's note when it withdrew the endorsement, if it gave one. */
  withdrawal_reason: string | null;
  signer_id: string;
  authority: string;
  data: string;
}

const ROW = sql`e.endorsement_id, e.sequence, e.type, e.text, e.endorser_name, e.endorsee_name, e.endorsee_email, e.endorsee_rfc,
  e.status, e.created_at, e.signed_at, e.declined_at, e.withdrawn_at, e.withdrawal_reason, s.signer_id, s.authority, s.data`;

/** Every endorsement of the document, the chain's order first (declined and withdrawn ones included). */
export async function endorsementsOf(q: Q, documentId: string): Promise<EndorsementRow[]> {
  const r = await sql<EndorsementRow>`select ${ROW} from endorsements e join signers s on s.id = e.signer_row_id
    where e.document_id = ${documentId} order by e.sequence`.execute(q);
  return r.rows;
}

/** The endorsement a signers row signs, if that row is an endorser. */
export async function endorsementOfSigner(q: Q, signerRowId: string): Promise<EndorsementRow | undefined> {
  const r = await sql<EndorsementRow>`select ${ROW} from endorsements e join signers s on s.id = e.signer_row_id
    where e.signer_row_id = ${signerRowId}`.execute(q);
  return r.rows[0];
}

export interface NewEndorsement {
  endorsementId: string;
  documentId: string;
  type: EndorsementType;
  text: string;
  endorser: { name: string; authority: string; data: string; email: string | null };
  endorsee: { name: string; email: string | null; rfc: string | null };
  signerId: string;
  tokenHash: Buffer;
  tokenSealed: Buffer;
  stickerId: string;
  box: { page: number; lx: number; ly: number; tx: number; ty: number };
  at: Date;
}

/**
 * The endorsement, its endorser as a signers row (role 'endorser', after every other row) and the
 * endorser's box (after every other box). Runs under the document row's lock (create-endorsement.ts),
 * so the sequence, position and sticker index cannot be taken twice.
 */
export async function insertEndorsement(trx: Transaction<Database>, e: NewEndorsement): Promise<number> {
  const signer = await sql<{ id: string }>`insert into signers
      (signer_id, document_id, position, authority, data, name, email, token_hash, token_sealed, role, status)
    values (${e.signerId}, ${e.documentId},
            (select coalesce(max(position), 0) + 1 from signers where document_id = ${e.documentId}),
            ${e.endorser.authority}, ${e.endorser.data}, ${e.endorser.name}, ${e.endorser.email},
            ${e.tokenHash}, ${e.tokenSealed}, 'endorser', 'pending')
    returning id::text as id`.execute(trx);
  const signerRowId = signer.rows[0].id;
  await sql`insert into stickers (sticker_id, document_id, signer_row_id, sticker_index, page, lx, ly, tx, ty, extra)
    values (${e.stickerId}, ${e.documentId}, ${signerRowId},
            (select coalesce(max(sticker_index), -1) + 1 from stickers where document_id = ${e.documentId}),
            ${e.box.page}, ${e.box.lx}, ${e.box.ly}, ${e.box.tx}, ${e.box.ty}, '{"endorsement": true}')`.execute(trx);
  const seq = await sql<{ sequence: number }>`insert into endorsements
      (endorsement_id, document_id, sequence, type, text, endorser_name, endorsee_name, endorsee_email, endorsee_rfc,
       signer_row_id, status, created_at)
    values (${e.endorsementId}, ${e.documentId},
            (select coalesce(max(sequence), 0) + 1 from endorsements where document_id = ${e.documentId}),
            ${e.type}, ${e.text}, ${e.endorser.name}, ${e.endorsee.name}, ${e.endorsee.email}, ${e.endorsee.rfc},
            ${signerRowId}, 'pending', ${e.at})
    returning sequence`.execute(trx);
  return seq.rows[0].sequence;
}

/** One endorsement of the document by its public id; undefined when the document has none such. */
export async function endorsementOfDocument(q: Q, documentId: string, endorsementId: string): Promise<EndorsementRow | undefined> {
  const r = await sql<EndorsementRow>`select ${ROW} from endorsements e join signers s on s.id = e.signer_row_id
    where e.document_id = ${documentId} and e.endorsement_id = ${endorsementId}`.execute(q);
  return r.rows[0];
}

/**
 * Whether the endorsement a signers row signs was withdrawn, and when; undefined for any other
 * row or state. Read on every use of an endorser's link (signing-session.ts).
 */
export async function withdrawalOfSigner(q: Q, signerRowId: string): Promise<{ withdrawn_at: Date } | undefined> {
  const r = await sql<{ withdrawn_at: Date }>`select withdrawn_at from endorsements
    where signer_row_id = ${signerRowId} and status = 'withdrawn'`.execute(q);
  return r.rows[0];
}

/**
 * The account withdrew a pending endorsement. Runs under the document row's lock, the lock every
 * signature and refusal of the endorser's link takes first, so only one of them happens; the
 * status condition is a second guard. False when the endorsement was no longer pending.
 */
export async function markEndorsementWithdrawn(
  trx: Transaction<Database>,
  w: { documentId: string; endorsementId: string; at: Date; reason: string | null },
): Promise<boolean> {
  const r = await sql`update endorsements set status = 'withdrawn', withdrawn_at = ${w.at}, withdrawal_reason = ${w.reason}
    where document_id = ${w.documentId} and endorsement_id = ${w.endorsementId} and status = 'pending'`.execute(trx);
  return Number(r.numAffectedRows ?? 0) === 1;
}

export async function markEndorsementSigned(trx: Transaction<Database>, signerRowId: string, at: Date): Promise<void> {
  await sql`update endorsements set status = 'signed', signed_at = ${at} where signer_row_id = ${signerRowId}`.execute(trx);
}

/** The endorser refused: their row is rejected (with the reason), the endorsement declined; the document is untouched. */
export async function markEndorsementDeclined(
  trx: Transaction<Database>,
  d: { signerRowId: string; at: Date; reason: string; ip: string | null },
): Promise<void> {
  await sql`update signers set status = 'rejected', rejected_at = ${d.at}, rejection_reason = ${d.reason}, action_ip = ${d.ip}
            where id = ${d.signerRowId}`.execute(trx);
  await sql`update endorsements set status = 'declined', declined_at = ${d.at} where signer_row_id = ${d.signerRowId}`.execute(trx);
}

export interface EndorsableDocument {
  id: string;
  ticket: string;
  status: string;
  page_count: number;
  original_sha256: string;
  workflow: unknown;
}

/** The account's document by ticket, its row locked until the transaction ends (one endorsement at a time). */
export async function lockDocumentByTicket(
  trx: Transaction<Database>,
  accountId: string,
  ticket: string,
): Promise<EndorsableDocument | undefined> {
  const r = await sql<EndorsableDocument>`select id::text as id, ticket, status, page_count, original_sha256, workflow from documents
    where account_id = ${accountId} and ticket = ${ticket} for update`.execute(trx);
  return r.rows[0];
}

/** The account's document by ticket (no lock). */
export async function documentByTicket(
  q: Q,
  accountId: string,
  ticket: string,
): Promise<{ id: string; original_sha256: string } | undefined> {
  const r = await sql<{ id: string; original_sha256: string }>`select id::text as id, original_sha256 from documents
    where account_id = ${accountId} and ticket = ${ticket}`.execute(q);
  return r.rows[0];
}

/**
 * Every signature box of the document (its signers' and its endorsers'), as stickers store them,
 * but those of endorsements declined or withdrawn: nobody will sign in them, and a new endorsement
 * may take their place.
 */
export async function boxesOfDocument(
  q: Q,
  documentId: string,
): Promise<{ page: number; lx: number; ly: number; tx: number; ty: number }[]> {
  const r = await sql<{ page: number; lx: number; ly: number; tx: number; ty: number }>`select st.page, st.lx, st.ly, st.tx, st.ty
    from stickers st
    where st.document_id = ${documentId}
      and not exists (select 1 from endorsements e where e.signer_row_id = st.signer_row_id and e.status in ('declined', 'withdrawn'))`.execute(
    q,
  );
  return r.rows;
}
