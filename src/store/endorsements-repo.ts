// SQL of endorsements (0023_endorsements.sql): the chain of a document, the one waiting for its
// endorser, and the endorser's signers row and box, written together.
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DocumentsTable, EndorsementsTable, EndorsementType, SignersTable } from './schema.js';

type Q = Db | Transaction<Database>;

export type EndorsementStatus = Selectable<EndorsementsTable>['status'];

const ENDORSEMENT_COLUMNS = [
  'endorsement_id',
  'sequence',
  'type',
  'text',
  'endorser_name',
  'endorsee_name',
  'endorsee_email',
  'endorsee_rfc',
  'status',
  'created_at',
  'signed_at',
  'declined_at',
  'withdrawn_at',
  'withdrawal_reason',
] as const;

/** An endorsement and its endorser's signers row (withdrawal_reason: the account's note when it withdrew it, if any). */
export type EndorsementRow = Pick<Selectable<EndorsementsTable>, (typeof ENDORSEMENT_COLUMNS)[number]> &
  Pick<Selectable<SignersTable>, 'signer_id' | 'authority' | 'data'>;

function endorsements(q: Q) {
  return q
    .selectFrom('endorsements as e')
    .innerJoin('signers as s', 's.id', 'e.signer_row_id')
    .select(ENDORSEMENT_COLUMNS.map((c) => `e.${c}` as const))
    .select(['s.signer_id', 's.authority', 's.data']);
}

/** Every endorsement of the document, the chain's order first (declined and withdrawn ones included). */
export async function endorsementsOf(q: Q, documentId: string): Promise<EndorsementRow[]> {
  return endorsements(q).where('e.document_id', '=', documentId).orderBy('e.sequence').execute();
}

/** The endorsement a signers row signs, if that row is an endorser. */
export async function endorsementOfSigner(q: Q, signerRowId: string): Promise<EndorsementRow | undefined> {
  return endorsements(q).where('e.signer_row_id', '=', signerRowId).executeTakeFirst();
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
  const signer = await trx
    .insertInto('signers')
    .values((eb) => ({
      signer_id: e.signerId,
      document_id: e.documentId,
      position: eb
        .selectFrom('signers')
        .select(sql<number>`coalesce(max(position), 0) + 1`.as('next'))
        .where('document_id', '=', e.documentId),
      authority: e.endorser.authority,
      data: e.endorser.data,
      name: e.endorser.name,
      email: e.endorser.email,
      token_hash: e.tokenHash,
      token_sealed: e.tokenSealed,
      role: 'endorser',
      status: 'pending',
    }))
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('stickers')
    .values((eb) => ({
      sticker_id: e.stickerId,
      document_id: e.documentId,
      signer_row_id: signer.id,
      sticker_index: eb
        .selectFrom('stickers')
        .select(sql<number>`coalesce(max(sticker_index), -1) + 1`.as('next'))
        .where('document_id', '=', e.documentId),
      page: e.box.page,
      lx: e.box.lx,
      ly: e.box.ly,
      tx: e.box.tx,
      ty: e.box.ty,
      extra: '{"endorsement": true}',
    }))
    .execute();
  const row = await trx
    .insertInto('endorsements')
    .values((eb) => ({
      endorsement_id: e.endorsementId,
      document_id: e.documentId,
      sequence: eb
        .selectFrom('endorsements')
        .select(sql<number>`coalesce(max(sequence), 0) + 1`.as('next'))
        .where('document_id', '=', e.documentId),
      type: e.type,
      text: e.text,
      endorser_name: e.endorser.name,
      endorsee_name: e.endorsee.name,
      endorsee_email: e.endorsee.email,
      endorsee_rfc: e.endorsee.rfc,
      signer_row_id: signer.id,
      status: 'pending',
      created_at: e.at,
    }))
    .returning('sequence')
    .executeTakeFirstOrThrow();
  return row.sequence;
}

/** One endorsement of the document by its public id; undefined when the document has none such. */
export async function endorsementOfDocument(q: Q, documentId: string, endorsementId: string): Promise<EndorsementRow | undefined> {
  return endorsements(q).where('e.document_id', '=', documentId).where('e.endorsement_id', '=', endorsementId).executeTakeFirst();
}

/**
 * Whether the endorsement a signers row signs was withdrawn, and when; undefined for any other
 * row or state. Read on every use of an endorser's link (signing-session.ts).
 */
export async function withdrawalOfSigner(q: Q, signerRowId: string): Promise<{ withdrawn_at: Date } | undefined> {
  return q
    .selectFrom('endorsements')
    .select('withdrawn_at')
    .where('signer_row_id', '=', signerRowId)
    .where('status', '=', 'withdrawn')
    .$narrowType<{ withdrawn_at: Date }>()
    .executeTakeFirst();
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
  const r = await trx
    .updateTable('endorsements')
    .set({ status: 'withdrawn', withdrawn_at: w.at, withdrawal_reason: w.reason })
    .where('document_id', '=', w.documentId)
    .where('endorsement_id', '=', w.endorsementId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function markEndorsementSigned(trx: Transaction<Database>, signerRowId: string, at: Date): Promise<void> {
  await trx.updateTable('endorsements').set({ status: 'signed', signed_at: at }).where('signer_row_id', '=', signerRowId).execute();
}

/** The endorser refused: their row is rejected (with the reason), the endorsement declined; the document is untouched. */
export async function markEndorsementDeclined(
  trx: Transaction<Database>,
  d: { signerRowId: string; at: Date; reason: string; ip: string | null },
): Promise<void> {
  await trx
    .updateTable('signers')
    .set({ status: 'rejected', rejected_at: d.at, rejection_reason: d.reason, action_ip: d.ip })
    .where('id', '=', d.signerRowId)
    .execute();
  await trx.updateTable('endorsements').set({ status: 'declined', declined_at: d.at }).where('signer_row_id', '=', d.signerRowId).execute();
}

export type EndorsableDocument = Pick<
  Selectable<DocumentsTable>,
  'id' | 'ticket' | 'status' | 'page_count' | 'original_sha256' | 'workflow'
>;

/** The account's document by ticket, its row locked until the transaction ends (one endorsement at a time). */
export async function lockDocumentByTicket(
  trx: Transaction<Database>,
  accountId: string,
  ticket: string,
): Promise<EndorsableDocument | undefined> {
  return trx
    .selectFrom('documents')
    .select(['id', 'ticket', 'status', 'page_count', 'original_sha256', 'workflow'])
    .where('account_id', '=', accountId)
    .where('ticket', '=', ticket)
    .forUpdate()
    .executeTakeFirst();
}

/** The account's document by ticket (no lock). */
export async function documentByTicket(
  q: Q,
  accountId: string,
  ticket: string,
): Promise<{ id: string; original_sha256: string } | undefined> {
  return q
    .selectFrom('documents')
    .select(['id', 'original_sha256'])
    .where('account_id', '=', accountId)
    .where('ticket', '=', ticket)
    .executeTakeFirst();
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
  return q
    .selectFrom('stickers as st')
    .select(['st.page', 'st.lx', 'st.ly', 'st.tx', 'st.ty'])
    .where('st.document_id', '=', documentId)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('endorsements as e')
            .select('e.id')
            .whereRef('e.signer_row_id', '=', 'st.signer_row_id')
            .where('e.status', 'in', ['declined', 'withdrawn']),
        ),
      ),
    )
    .execute();
}
