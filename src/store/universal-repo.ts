// SQL of the universal rendition: its state on the documents row and the record of each revision
// made (0013_universal.sql).
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DocumentsTable } from './schema.js';

type Q = Db | Transaction<Database>;

const STATE_COLUMNS = [
  'id',
  'ticket',
  'account_id',
  'status',
  'status_before_delete',
  'original_sha256',
  'universal_sha256',
  'universal_status',
  'universal_error',
  'universal_renew_at',
] as const;

export type UniversalState = Pick<Selectable<DocumentsTable>, (typeof STATE_COLUMNS)[number]>;

/** The document's universal state; lock=true locks the row (the claim of one build at a time). */
export async function universalState(q: Q, documentId: string, lock = false): Promise<UniversalState | undefined> {
  return q
    .selectFrom('documents')
    .select(STATE_COLUMNS)
    .where('id', '=', documentId)
    .$if(lock, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** Completion: the rendition is owed (the job is queued in the same transaction). */
export async function markUniversalPending(trx: Transaction<Database>, documentId: string): Promise<void> {
  await trx.updateTable('documents').set({ universal_status: 'pending', universal_error: null }).where('id', '=', documentId).execute();
}

/**
 * An endorsement added a revision to the completed original: the universal rendition made before it
 * no longer shows the whole document, so a new one is owed (its job queued in the same transaction).
 * The earlier rendition's blob stays (stamps may cover it); a renewal or a build of the older
 * original that finishes later is dropped by storeUniversalRevision's checks.
 */
export async function markUniversalOwedAgain(trx: Transaction<Database>, documentId: string): Promise<void> {
  await trx
    .updateTable('documents')
    .set({ universal_sha256: null, universal_status: 'pending', universal_error: null, universal_renew_at: null })
    .where('id', '=', documentId)
    .execute();
}

/** An attempt failed: `failed` once no attempt is left (the operator must act), else still pending. */
export async function markUniversalFailed(trx: Transaction<Database>, documentId: string, error: string, lasting: boolean): Promise<void> {
  await trx
    .updateTable('documents')
    .set({ universal_status: lasting ? 'failed' : 'pending', universal_error: error })
    .where('id', '=', documentId)
    .execute();
}

/** A renewal failed: the rendition in place stays ready; the reason is kept for the document's state. */
export async function recordUniversalRenewalError(trx: Transaction<Database>, documentId: string, error: string): Promise<void> {
  await trx.updateTable('documents').set({ universal_error: error }).where('id', '=', documentId).execute();
}

export async function storeUniversal(
  trx: Transaction<Database>,
  r: {
    documentId: string;
    kind: 'initial' | 'renewal';
    sha256: string;
    at: Date;
    timestampTime: Date;
    tsa: string;
    tsaNotAfter: Date;
    renewAt: Date;
  },
): Promise<number> {
  await trx
    .updateTable('documents')
    .set({
      universal_sha256: r.sha256,
      universal_status: 'ready',
      universal_error: null,
      universal_at: r.at,
      universal_tsa_not_after: r.tsaNotAfter,
      universal_renew_at: r.renewAt,
    })
    .where('id', '=', r.documentId)
    .execute();
  const row = await trx
    .insertInto('universal_revisions')
    .values((eb) => ({
      document_id: r.documentId,
      // The caller holds the document's row lock, so the next number is this transaction's alone.
      seq: eb
        .selectFrom('universal_revisions')
        .select(sql<number>`coalesce(max(seq), 0) + 1`.as('next'))
        .where('document_id', '=', r.documentId),
      kind: r.kind,
      sha256: r.sha256,
      timestamp_time: r.timestampTime,
      tsa: r.tsa,
      tsa_not_after: r.tsaNotAfter,
      created_at: r.at,
    }))
    .returning('seq')
    .executeTakeFirstOrThrow();
  return row.seq;
}

/**
 * Completed documents without a universal rendition and without a job to build one (completed
 * before this version, or their job removed by hand). A job that failed for good keeps its key and
 * is left to the operator (docs/operations.md), so a lasting failure is not retried every day.
 */
export async function documentsOwedUniversal(q: Q, limit: number): Promise<string[]> {
  // graphile_worker's tables are not in the generated schema (the job queue owns them): raw SQL.
  const r = await sql<{ id: string }>`select d.id::text as id from documents d
    where d.universal_sha256 is null
      and (d.status = 'completed' or (d.status = 'deleted' and d.status_before_delete = 'completed'))
      and not exists (select 1 from graphile_worker.jobs j where j.key = 'universal:' || d.id::text)
    order by d.id limit ${limit}`.execute(q);
  return r.rows.map((x) => x.id);
}

/** Universal renditions whose renewal job is missing (removed by hand, or lost): id and due time. */
export async function renewalsWithoutJob(q: Q, limit: number): Promise<{ id: string; renewAt: Date }[]> {
  // graphile_worker's tables are not in the generated schema (the job queue owns them): raw SQL.
  const r = await sql<{ id: string; renew_at: Date }>`select d.id::text as id, d.universal_renew_at as renew_at from documents d
    where d.universal_sha256 is not null and d.universal_renew_at is not null
      and not exists (select 1 from graphile_worker.jobs j where j.key = 'universal-renew:' || d.id::text)
    order by d.id limit ${limit}`.execute(q);
  return r.rows.map((x) => ({ id: x.id, renewAt: x.renew_at }));
}
