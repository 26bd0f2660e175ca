// SQL of a document set's flow: the set with what its flow needs (account name and time zone,
// workflow, expiration), its documents and their signer rows, and the state changes of closing,
// restarting and ending the flow. Lock order everywhere: a set's pending documents (by id), then the
// set; the signing path holds one document and then takes the set, so this order cannot cross it.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { SigningSigner } from './signing-repo.js';
import type { Database, DocumentStatus, SetStatus } from './schema.js';

type Q = Db | Transaction<Database>;

export interface FlowSet {
  id: string;
  uuid: string;
  account_id: string;
  account_name: string;
  time_zone: string;
  name: string;
  status: SetStatus;
  workflow: Record<string, unknown> | null;
  closed_at: Date | null;
  flow_started_at: Date | null;
  expires_at: Date | null;
  flow_generation: number;
  concluded_at: Date | null;
}

/** The set with its account's name and time zone; lock=true locks the set row. */
export async function findFlowSet(
  q: Q,
  where: { id: string } | { accountId: string; uuid: string },
  lock = false,
): Promise<FlowSet | undefined> {
  const cond = 'id' in where ? sql`s.id = ${where.id}` : sql`s.account_id = ${where.accountId} and s.uuid = ${where.uuid}`;
  const r = await sql<FlowSet>`
    select s.id::text as id, s.uuid, s.account_id::text as account_id, a.name as account_name, a.time_zone, s.name, s.status,
           s.workflow, s.closed_at, s.flow_started_at, s.expires_at, s.flow_generation, s.concluded_at
    from document_sets s join accounts a on a.id = s.account_id
    where ${cond} ${lock ? sql`for update of s` : sql``}`.execute(q);
  return r.rows[0];
}

export interface SetDocument {
  id: string;
  ticket: string;
  name: string;
  status: DocumentStatus;
  original_sha256: string;
  page_count: number;
}

/** The set's documents in the order they were added. */
export async function setFlowDocuments(q: Q, setId: string): Promise<SetDocument[]> {
  const r = await sql<SetDocument>`select id::text as id, ticket, name, status, original_sha256, page_count
    from documents where set_id = ${setId} order by id`.execute(q);
  return r.rows;
}

/**
 * Locks the set's pending documents, by id, before the set row is locked: the order every set-level
 * change (restart, cancel, reminder, expiration) takes, compatible with a signature in progress.
 */
export async function lockPendingDocuments(trx: Transaction<Database>, setId: string): Promise<string[]> {
  const r = await sql<{ id: string }>`select id::text as id from documents where set_id = ${setId} and status = 'pending'
    order by id for update`.execute(trx);
  return r.rows.map((x) => x.id);
}

/** A signer row of one of the set's documents, with the set signer it belongs to once closed. */
export type SetDocumentSigner = Omit<SigningSigner, 'signed_at'> & { set_signer_id: string | null };

/** Every signer row of the set's documents, in document order, then sticker (signer) order. */
export async function setDocumentSigners(q: Q, setId: string): Promise<SetDocumentSigner[]> {
  const r = await sql<SetDocumentSigner>`
    select s.id::text as id, s.signer_id, s.document_id::text as document_id, s.position, s.authority, s.data, s.name, s.email,
           s.status, s.set_signer_id::text as set_signer_id
    from signers s join documents d on d.id = s.document_id
    where d.set_id = ${setId} and s.role = 'signer' order by d.id, s.position`.execute(q);
  return r.rows;
}

/** Seals the set: CLOSED with its workflow and expiration; returns the new flow generation. */
export async function closeSetRow(
  trx: Transaction<Database>,
  s: { id: string; at: Date; workflow: unknown; expiresAt: Date },
): Promise<number> {
  const r = await sql<{ flow_generation: number }>`
    update document_sets set status = 'CLOSED', closed_at = ${s.at}, flow_started_at = ${s.at}, expires_at = ${s.expiresAt},
           workflow = ${JSON.stringify(s.workflow)}::jsonb, flow_generation = flow_generation + 1, updated_at = ${s.at}
    where id = ${s.id} returning flow_generation`.execute(trx);
  return r.rows[0].flow_generation;
}

/**
 * The draft documents of a closing set start their flow: pending, with the set's workflow (its
 * language drives the signer page and the signature's legend) and expiration.
 */
export async function startSetDocuments(
  trx: Transaction<Database>,
  s: { setId: string; at: Date; workflow: unknown; expiresAt: Date },
): Promise<string[]> {
  const r = await sql<{ id: string }>`
    update documents set status = 'pending', has_flow = true, workflow = ${JSON.stringify(s.workflow)}::jsonb,
           flow_started_at = ${s.at}, expires_at = ${s.expiresAt}, updated_at = ${s.at}
    where set_id = ${s.setId} and status = 'draft' returning id::text as id`.execute(trx);
  return r.rows.map((x) => x.id);
}

/** A restarted flow: new settings and expiration on the set and its pending documents. */
export async function saveSetWorkflow(
  trx: Transaction<Database>,
  s: { id: string; workflow: unknown; expiresAt: Date; at: Date },
): Promise<number> {
  const r = await sql<{ flow_generation: number }>`
    update document_sets set workflow = ${JSON.stringify(s.workflow)}::jsonb, expires_at = ${s.expiresAt},
           flow_generation = flow_generation + 1, updated_at = ${s.at}
    where id = ${s.id} returning flow_generation`.execute(trx);
  await sql`update documents set workflow = ${JSON.stringify(s.workflow)}::jsonb, expires_at = ${s.expiresAt}, updated_at = ${s.at}
            where set_id = ${s.id} and status = 'pending'`.execute(trx);
  return r.rows[0].flow_generation;
}

/** Moves a running (CLOSED) set to its end state; false when it had already left CLOSED. */
export async function endSet(
  trx: Transaction<Database>,
  id: string,
  to: Exclude<SetStatus, 'OPEN' | 'CLOSED'>,
  at: Date,
): Promise<boolean> {
  const r = await sql`update document_sets set status = ${to}, updated_at = ${at},
           concluded_at = case when ${to} = 'COMPLETED' then ${at}::timestamptz else concluded_at end
    where id = ${id} and status = 'CLOSED'`.execute(trx);
  return Number(r.numAffectedRows) === 1;
}

/**
 * The set's pending documents (except `exceptId`) move to `to`. skipLocked leaves out documents
 * another transaction holds (a signature in progress); the caller settles those later.
 */
export async function endPendingDocuments(
  trx: Transaction<Database>,
  s: { setId: string; to: 'cancelled' | 'expired'; at: Date; exceptId?: string; skipLocked?: boolean },
): Promise<{ id: string; ticket: string }[]> {
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
  const r = await sql<{ n: number }>`select count(*)::int as n from documents where set_id = ${setId} and status = 'pending'`.execute(q);
  return r.rows[0].n;
}

export async function documentTicket(q: Q, documentId: string): Promise<string | undefined> {
  const r = await sql<{ ticket: string }>`select ticket from documents where id = ${documentId}`.execute(q);
  return r.rows[0]?.ticket;
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
  await sql`select id from documents where id = any(${documentIds}::bigint[]) order by id for update`.execute(trx);
}
