// SQL of a document set's signers: the ones preloaded while the set is OPEN, the ones found on its
// documents when it closes, their links (token stored hashed, and sealed for re-sending), and the
// document signer rows each of them stands for (signers.set_signer_id).
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DocumentsTable, SetSignersTable, SignersTable } from './schema.js';

type Q = Db | Transaction<Database>;

const COLUMNS = [
  'id',
  'signer_id',
  'set_id',
  'position',
  'authority',
  'data',
  'name',
  'email',
  'preloaded',
  'status',
  'token_sealed',
  'invited_at',
  'last_reminded_at',
  'reminders_sent',
] as const;

export type SetSignerRow = Pick<Selectable<SetSignersTable>, (typeof COLUMNS)[number]>;

export async function listSetSigners(q: Q, setId: string): Promise<SetSignerRow[]> {
  return q.selectFrom('set_signers').select(COLUMNS).where('set_id', '=', setId).orderBy('position').orderBy('id').execute();
}

/**
 * Inserts a set signer, or returns the one the set already has for (authority, data): `created`
 * says which. The position follows the last one (preload order; positions are renumbered on close).
 */
export async function insertSetSigner(
  trx: Transaction<Database>,
  s: {
    signerId: string;
    setId: string;
    authority: string;
    data: string;
    name: string | null;
    email: string | null;
    preloaded: boolean;
    at: Date;
  },
): Promise<{ row: SetSignerRow; created: boolean }> {
  const inserted = await trx
    .insertInto('set_signers')
    .values((eb) => ({
      signer_id: s.signerId,
      set_id: s.setId,
      position: eb.selectFrom('set_signers').select(sql<number>`coalesce(max(position), -1) + 1`.as('next')).where('set_id', '=', s.setId),
      authority: s.authority,
      data: s.data,
      name: s.name,
      email: s.email,
      preloaded: s.preloaded,
      created_at: s.at,
    }))
    .onConflict((oc) => oc.columns(['set_id', 'authority', 'data']).doNothing())
    .returning(COLUMNS)
    .executeTakeFirst();
  if (inserted) {
    return { row: inserted, created: true };
  }
  const existing = await trx
    .selectFrom('set_signers')
    .select(COLUMNS)
    .where('set_id', '=', s.setId)
    .where('authority', '=', s.authority)
    .where('data', '=', s.data)
    .executeTakeFirstOrThrow();
  return { row: existing, created: false };
}

export async function deleteSetSigner(trx: Transaction<Database>, setId: string, signerId: string): Promise<boolean> {
  const r = await trx.deleteFrom('set_signers').where('set_id', '=', setId).where('signer_id', '=', signerId).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export async function countSetSigners(q: Q, setId: string): Promise<number> {
  const r = await q
    .selectFrom('set_signers')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('set_id', '=', setId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** On close: the final position, the link, and the name/email a document gave when the preload had none. */
export async function sealSetSigner(
  trx: Transaction<Database>,
  s: { id: string; position: number; tokenHash: Buffer; tokenSealed: Buffer; name: string | null; email: string | null },
): Promise<void> {
  await trx
    .updateTable('set_signers')
    .set((eb) => ({
      position: s.position,
      token_hash: s.tokenHash,
      token_sealed: s.tokenSealed,
      name: eb.fn.coalesce('name', eb.val(s.name)),
      email: eb.fn.coalesce('email', eb.val(s.email)),
    }))
    .where('id', '=', s.id)
    .execute();
}

/** Ties document signer rows to the set signer they belong to. */
export async function linkSignerRows(trx: Transaction<Database>, setSignerId: string, signerRowIds: string[]): Promise<void> {
  if (signerRowIds.length > 0) {
    await trx.updateTable('signers').set({ set_signer_id: setSignerId }).where('id', 'in', signerRowIds).execute();
  }
}

export async function markSetSignerInvited(trx: Transaction<Database>, id: string, at: Date, reminder: boolean): Promise<void> {
  if (reminder) {
    await trx
      .updateTable('set_signers')
      .set((eb) => ({ last_reminded_at: at, reminders_sent: eb('reminders_sent', '+', 1) }))
      .where('id', '=', id)
      .execute();
  } else {
    await trx
      .updateTable('set_signers')
      .set((eb) => ({
        invited_at: at,
        status: eb
          .case()
          .when('status', '=', 'pending')
          .then('invited' as const)
          .else(eb.ref('status'))
          .end(),
      }))
      .where('id', '=', id)
      .execute();
  }
}

export async function markSetSignerViewed(q: Q, id: string): Promise<void> {
  await q.updateTable('set_signers').set({ status: 'viewed' }).where('id', '=', id).where('status', 'in', ['pending', 'invited']).execute();
}

export async function setSetSignerStatus(trx: Transaction<Database>, id: string, status: 'signed' | 'rejected'): Promise<void> {
  await trx.updateTable('set_signers').set({ status }).where('id', '=', id).execute();
}

/** How many of the set signer's document rows are still to sign (documents still pending). */
export async function unsignedRowsOf(q: Q, setSignerId: string): Promise<number> {
  const r = await q
    .selectFrom('signers as s')
    .innerJoin('documents as d', 'd.id', 's.document_id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('s.set_signer_id', '=', setSignerId)
    .where('s.status', 'not in', ['signed', 'rejected'])
    .where('d.status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The set signer of a document signer row, if it has one. */
export async function setSignerIdOfRow(q: Q, signerRowId: string): Promise<string | null> {
  const r = await q.selectFrom('signers').select('set_signer_id').where('id', '=', signerRowId).executeTakeFirst();
  return r?.set_signer_id ?? null;
}

/** The set signer of the row that rejected the document, if any. */
export async function rejectingSetSigner(q: Q, documentId: string): Promise<string | null> {
  const r = await q
    .selectFrom('signers')
    .select('set_signer_id')
    .where('document_id', '=', documentId)
    .where('status', '=', 'rejected')
    .where('set_signer_id', 'is not', null)
    .orderBy('rejected_at', (o) => o.desc().nullsLast())
    .limit(1)
    .executeTakeFirst();
  return r?.set_signer_id ?? null;
}

export interface SetSignerBehindToken {
  signer: SetSignerRow;
  set: { id: string; uuid: string; name: string; status: string; account_id: string; workflow: Record<string, unknown> | null };
}

export async function findSetSignerByToken(q: Q, tokenHash: Buffer): Promise<SetSignerBehindToken | undefined> {
  const row = await q
    .selectFrom('set_signers as ss')
    .innerJoin('document_sets as ds', 'ds.id', 'ss.set_id')
    .select(COLUMNS.map((c) => `ss.${c}` as const))
    .select(['ds.uuid as set_uuid', 'ds.name as set_name', 'ds.status as set_status', 'ds.account_id', 'ds.workflow'])
    .where('ss.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) {
    return undefined;
  }
  const { set_uuid, set_name, set_status, account_id, workflow, ...signer } = row;
  return {
    signer,
    set: {
      id: row.set_id,
      uuid: set_uuid,
      name: set_name,
      status: set_status,
      account_id,
      workflow: workflow as Record<string, unknown> | null,
    },
  };
}

/** A document signer row of a set signer (identity_status: null when no identity verification is asked in the set). */
export type SignerRowOfSet = Pick<
  Selectable<SignersTable>,
  'id' | 'signer_id' | 'status' | 'signed_at' | 'token_sealed' | 'identity_status'
> &
  Pick<Selectable<DocumentsTable>, 'ticket' | 'original_sha256'> & { document_id: string; document_name: string; document_status: string };

/** The document signer rows a set signer stands for, in the set's document order. */
export async function signerRowsOf(q: Q, setSignerId: string): Promise<SignerRowOfSet[]> {
  return q
    .selectFrom('signers as s')
    .innerJoin('documents as d', 'd.id', 's.document_id')
    .select(['s.id', 's.signer_id', 's.status', 's.signed_at', 's.token_sealed', 'd.id as document_id', 'd.ticket'])
    .select(['d.name as document_name', 'd.status as document_status', 'd.original_sha256', 's.identity_status'])
    .where('s.set_signer_id', '=', setSignerId)
    .orderBy('d.id')
    .execute();
}

/** One verified code proves the set signer for every document: the verification is copied to each row. */
export async function copyVerification(q: Q, setSignerId: string, fromRowId: string): Promise<void> {
  await q
    .updateTable('signers')
    .set((eb) => ({ verified_at: eb.selectFrom('signers as v').select('v.verified_at').where('v.id', '=', fromRowId) }))
    .where('set_signer_id', '=', setSignerId)
    .where('id', '<>', fromRowId)
    .execute();
}
