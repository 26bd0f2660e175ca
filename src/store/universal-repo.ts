// SQL of the universal rendition: its state on the documents row and the record of each revision
// made (0013_universal.sql).
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

type Q = Db | Transaction<Database>;

export interface UniversalState {
  id: string;
  ticket: string;
  account_id: string;
  status: string;
  status_before_delete: string | null;
  original_sha256: string;
  universal_sha256: string | null;
  universal_status: string | null;
  universal_error: string | null;
  universal_renew_at: Date | null;
}

/** The document's universal state; lock=true locks the row (the claim of one build at a time). */
export async function universalState(q: Q, documentId: string, lock = false): Promise<UniversalState | undefined> {
  const r = await sql<UniversalState>`select id::text as id, ticket, account_id::text as account_id, status, status_before_delete,
      original_sha256, universal_sha256, universal_status, universal_error, universal_renew_at
    from documents where id = ${documentId} ${lock ? sql`for update` : sql``}`.execute(q);
  return r.rows[0];
}

/** Completion: the rendition is owed (the job is queued in the same transaction). */
export async function markUniversalPending(trx: Transaction<Database>, documentId: string): Promise<void> {
  await sql`update documents set universal_status = 'pending', universal_error = null where id = ${documentId}`.execute(trx);
}

/**
 * An endorsement added a revision to the completed original: the universal rendition made before it
 * no longer shows the whole document, so a new one is owed (its job queued in the same transaction).
 * The earlier rendition's blob stays (stamps may cover it); a renewal or a build of the older
 * original that finishes later is dropped by storeUniversalRevision's checks.
 */
export async function markUniversalOwedAgain(trx: Transaction<Database>, documentId: string): Promise<void> {
  await sql`update documents set universal_sha256 = null, universal_status = 'pending', universal_error = null, universal_renew_at = null
            where id = ${documentId}`.execute(trx);
}

/** An attempt failed: `failed` once no attempt is left (the operator must act), else still pending. */
export async function markUniversalFailed(trx: Transaction<Database>, documentId: string, error: string, lasting: boolean): Promise<void> {
  await sql`update documents set universal_status = ${lasting ? 'failed' : 'pending'}, universal_error = ${error}
    where id = ${documentId}`.execute(trx);
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
  await sql`update documents set universal_sha256 = ${r.sha256}, universal_status = 'ready', universal_error = null,
              universal_at = ${r.at}, universal_tsa_not_after = ${r.tsaNotAfter}, universal_renew_at = ${r.renewAt}
            where id = ${r.documentId}`.execute(trx);
  const seq = await sql<{ seq: number }>`insert into universal_revisions
      (document_id, seq, kind, sha256, timestamp_time, tsa, tsa_not_after, created_at)
    values (${r.documentId}, (select coalesce(max(seq), 0) + 1 from universal_revisions where document_id = ${r.documentId}),
            ${r.kind}, ${r.sha256}, ${r.timestampTime}, ${r.tsa}, ${r.tsaNotAfter}, ${r.at})
    returning seq`.execute(trx);
  return seq.rows[0].seq;
}

/**
 * Completed documents without a universal rendition and without a job to build one (completed
 * before this version, or their job removed by hand). A job that failed for good keeps its key and
 * is left to the operator (docs/operations.md), so a lasting failure is not retried every day.
 */
export async function documentsOwedUniversal(q: Q, limit: number): Promise<string[]> {
  const r = await sql<{ id: string }>`select d.id::text as id from documents d
    where d.universal_sha256 is null
      and (d.status = 'completed' or (d.status = 'deleted' and d.status_before_delete = 'completed'))
      and not exists (select 1 from graphile_worker.jobs j where j.key = 'universal:' || d.id::text)
    order by d.id limit ${limit}`.execute(q);
  return r.rows.map((x) => x.id);
}

/** Universal renditions whose renewal job is missing (removed by hand, or lost): id and due time. */
export async function renewalsWithoutJob(q: Q, limit: number): Promise<{ id: string; renewAt: Date }[]> {
  const r = await sql<{ id: string; renew_at: Date }>`select d.id::text as id, d.universal_renew_at as renew_at from documents d
    where d.universal_sha256 is not null and d.universal_renew_at is not null
      and not exists (select 1 from graphile_worker.jobs j where j.key = 'universal-renew:' || d.id::text)
    order by d.id limit ${limit}`.execute(q);
  return r.rows.map((x) => ({ id: x.id, renewAt: x.renew_at }));
}
