// SQL of a document set's flow: the set with what its flow needs (account name and time zone,
// workflow, expiration), its documents and their signer rows, and the state changes of closing,
// restarting and ending the flow. Lock order everywhere: a set's pending documents (by id), then the
// set; the signing path holds one document and then takes the set, so this order cannot cross it.
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { SigningSigner } from './signing-repo.js';
import type { AccountsTable, Database, DocumentSetsTable, DocumentsTable, SetStatus } from './schema.js';

type Q = Db | Transaction<Database>;

const SET_COLUMNS = [
  'id',
  'uuid',
  'account_id',
  'name',
  'status',
  'workflow',
  'closed_at',
  'flow_started_at',
  'expires_at',
  'flow_generation',
  'concluded_at',
] as const;

/** The set as its flow needs it, with its account's name and time zone; workflow is the flow's settings (jsonb). */
export type FlowSet = Omit<Pick<Selectable<DocumentSetsTable>, (typeof SET_COLUMNS)[number]>, 'workflow'> &
  Pick<Selectable<AccountsTable>, 'time_zone'> & { account_name: string; workflow: Record<string, unknown> | null };

/** The set with its account's name and time zone; lock=true locks the set row. */
export async function findFlowSet(
  q: Q,
  where: { id: string } | { accountId: string; uuid: string },
  lock = false,
): Promise<FlowSet | undefined> {
  return q
    .selectFrom('document_sets as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(SET_COLUMNS.map((c) => `s.${c}` as const))
    .select(['a.name as account_name', 'a.time_zone'])
    .$if('id' in where, (qb) => qb.where('s.id', '=', (where as { id: string }).id))
    .$if(!('id' in where), (qb) => {
      const w = where as { accountId: string; uuid: string };
      return qb.where('s.account_id', '=', w.accountId).where('s.uuid', '=', w.uuid);
    })
    .$if(lock, (qb) => qb.forUpdate('s'))
    .$narrowType<{ workflow: FlowSet['workflow'] }>()
    .executeTakeFirst();
}

export type SetDocument = Pick<Selectable<DocumentsTable>, 'id' | 'ticket' | 'name' | 'status' | 'original_sha256' | 'page_count'>;

/** The set's documents in the order they were added. */
export async function setFlowDocuments(q: Q, setId: string): Promise<SetDocument[]> {
  return q
    .selectFrom('documents')
    .select(['id', 'ticket', 'name', 'status', 'original_sha256', 'page_count'])
    .where('set_id', '=', setId)
    .orderBy('id')
    .execute();
}

/**
 * Locks the set's pending documents, by id, before the set row is locked: the order every set-level
 * change (restart, cancel, reminder, expiration) takes, compatible with a signature in progress.
 */
export async function lockPendingDocuments(trx: Transaction<Database>, setId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('documents')
    .select('id')
    .where('set_id', '=', setId)
    .where('status', '=', 'pending')
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((x) => x.id);
}

/** A signer row of one of the set's documents, with the set signer it belongs to once closed. */
export type SetDocumentSigner = Omit<SigningSigner, 'signed_at'> & { set_signer_id: string | null };

/** Every signer row of the set's documents, in document order, then sticker (signer) order. */
export async function setDocumentSigners(q: Q, setId: string): Promise<SetDocumentSigner[]> {
  return q
    .selectFrom('signers as s')
    .innerJoin('documents as d', 'd.id', 's.document_id')
    .select(['s.id', 's.signer_id', 's.document_id', 's.position', 's.authority', 's.data', 's.name', 's.email', 's.status'])
    .select(['s.identity_status', 's.role', 's.set_signer_id', 's.certificate_match'])
    .where('d.set_id', '=', setId)
    .where('s.role', '=', 'signer')
    .orderBy('d.id')
    .orderBy('s.position')
    .execute();
}

/** Seals the set: CLOSED with its workflow and expiration; returns the new flow generation. */
export async function closeSetRow(
  trx: Transaction<Database>,
  s: { id: string; at: Date; workflow: unknown; expiresAt: Date },
): Promise<number> {
  const r = await trx
    .updateTable('document_sets')
    .set((eb) => ({
      status: 'CLOSED',
      closed_at: s.at,
      flow_started_at: s.at,
      expires_at: s.expiresAt,
      workflow: JSON.stringify(s.workflow),
      flow_generation: eb('flow_generation', '+', 1),
      updated_at: s.at,
    }))
    .where('id', '=', s.id)
    .returning('flow_generation')
    .executeTakeFirstOrThrow();
  return r.flow_generation;
}

/**
 * The draft documents of a closing set start their flow: pending, with the set's workflow (its
 * language drives the signer page and the signature's legend) and expiration.
 */
export async function startSetDocuments(
  trx: Transaction<Database>,
  s: { setId: string; at: Date; workflow: unknown; expiresAt: Date },
): Promise<string[]> {
  const rows = await trx
    .updateTable('documents')
    .set({
      status: 'pending',
      has_flow: true,
      workflow: JSON.stringify(s.workflow),
      flow_started_at: s.at,
      expires_at: s.expiresAt,
      updated_at: s.at,
    })
    .where('set_id', '=', s.setId)
    .where('status', '=', 'draft')
    .returning('id')
    .execute();
  return rows.map((x) => x.id);
}

/** A restarted flow: new settings and expiration on the set and its pending documents. */
export async function saveSetWorkflow(
  trx: Transaction<Database>,
  s: { id: string; workflow: unknown; expiresAt: Date; at: Date },
): Promise<number> {
  const workflow = JSON.stringify(s.workflow);
  const r = await trx
    .updateTable('document_sets')
    .set((eb) => ({ workflow, expires_at: s.expiresAt, flow_generation: eb('flow_generation', '+', 1), updated_at: s.at }))
    .where('id', '=', s.id)
    .returning('flow_generation')
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('documents')
    .set({ workflow, expires_at: s.expiresAt, updated_at: s.at })
    .where('set_id', '=', s.id)
    .where('status', '=', 'pending')
    .execute();
  return r.flow_generation;
}

/** Moves a running (CLOSED) set to its end state; false when it had already left CLOSED. */
export async function endSet(
  trx: Transaction<Database>,
  id: string,
  to: Exclude<SetStatus, 'OPEN' | 'CLOSED'>,
  at: Date,
): Promise<boolean> {
  const r = await trx
    .updateTable('document_sets')
    .set({ status: to, updated_at: at, ...(to === 'COMPLETED' ? { concluded_at: at } : {}) })
    .where('id', '=', id)
    .where('status', '=', 'CLOSED')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * The set's pending documents (except `exceptId`) move to `to`. skipLocked leaves out documents
 * another transaction holds (a signature in progress); the caller settles those later.
 */
export async function endPendingDocuments(
  trx: Transaction<Database>,
  s: { setId: string; to: 'cancelled' | 'expired'; at: Date; exceptId?: string; skipLocked?: boolean },
): Promise<{ id: string; ticket: string }[]> {
  // An UPDATE of the rows a locking subquery picked (FOR UPDATE, perhaps SKIP LOCKED, in id order): kept in SQL.
  const r = await sql<{ id: string; ticket: string }>`
    update documents set status = ${s.to}, updated_at = ${s.at}
    where id in (select id from documents where set_id = ${s.setId} and status = 'pending'
                 ${s.exceptId ? sql`and id <> ${s.exceptId}` : sql``}
                 order by id for update ${s.skipLocked ? sql`skip locked` : sql``})
    returning id::text as id, ticket`.execute(trx);
  return r.rows;
}

/** Documents of the set still pending: none left means the set's flow has nothing more to wait for. */
export async function countPendingDocuments(q: Q, setId: string): Promise<number> {
  const r = await q
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('set_id', '=', setId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function documentTicket(q: Q, documentId: string): Promise<string | undefined> {
  const r = await q.selectFrom('documents').select('ticket').where('id', '=', documentId).executeTakeFirst();
  return r?.ticket;
}

/**
 * Locks documents in id order. Whoever changes signer rows of several documents takes this first:
 * viewing, signing and history appends lock the document before its signers, so taking the
 * documents first keeps one lock order everywhere (no deadlock).
 */
export async function lockDocuments(trx: Transaction<Database>, documentIds: string[]): Promise<void> {
  if (documentIds.length === 0) {
    return;
  }
  await trx.selectFrom('documents').select('id').where('id', 'in', documentIds).orderBy('id').forUpdate().execute();
}
