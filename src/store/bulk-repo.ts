// SQL of bulk runs and their rows (migrations/0040_bulk_runs.sql). A row is claimed with a
// conditional UPDATE carrying a fresh token, and its outcome is recorded only while that token
// still holds it: two workers on one run never record one row twice.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

type Trx = Transaction<Database>;
type Q = Db | Trx;

/** Rows inserted per statement: 1,000 rows of a few keys stay well under PostgreSQL's parameter limit. */
const INSERT_CHUNK = 500;

export interface NewBulkRun {
  bulkId: string;
  accountId: string;
  idempotencyKey: string;
  bodySha256: string;
  base: unknown;
  sourceSha256: string | null;
  sourceName: string | null;
  rows: unknown[];
  at: Date;
}

export type BulkRunRow = Awaited<ReturnType<typeof findRunByKey>> & {};

/** Inserts the run and its rows; undefined when the account already used the key (nothing inserted). */
export async function insertRun(trx: Trx, r: NewBulkRun): Promise<string | undefined> {
  const run = await trx
    .insertInto('bulk_runs')
    .values({
      bulk_id: r.bulkId,
      account_id: r.accountId,
      idempotency_key: r.idempotencyKey,
      body_sha256: r.bodySha256,
      base: JSON.stringify(r.base),
      source_sha256: r.sourceSha256,
      source_name: r.sourceName,
      row_count: r.rows.length,
      created_at: r.at,
    })
    .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!run) {
    return undefined;
  }
  for (let i = 0; i < r.rows.length; i += INSERT_CHUNK) {
    await trx
      .insertInto('bulk_rows')
      .values(
        r.rows
          .slice(i, i + INSERT_CHUNK)
          .map((data, k) => ({ run_id: run.id, index: i + k, data: JSON.stringify(data), updated_at: r.at })),
      )
      .execute();
  }
  return run.id;
}

const RUN_COLUMNS = [
  'id',
  'bulk_id',
  'account_id',
  'body_sha256',
  'state',
  'base',
  'source_sha256',
  'source_name',
  'row_count',
  'created_at',
  'finished_at',
] as const;

export async function findRunByKey(q: Q, accountId: string, idempotencyKey: string) {
  return q
    .selectFrom('bulk_runs')
    .select(RUN_COLUMNS)
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
}

export async function findRun(q: Q, accountId: string, bulkId: string) {
  return q.selectFrom('bulk_runs').select(RUN_COLUMNS).where('account_id', '=', accountId).where('bulk_id', '=', bulkId).executeTakeFirst();
}

export async function findRunById(q: Q, runId: string) {
  return q.selectFrom('bulk_runs').select(RUN_COLUMNS).where('id', '=', runId).executeTakeFirst();
}

/** How many rows of the run are in each state. */
export async function countRows(q: Q, runId: string): Promise<Record<'pending' | 'claimed' | 'created' | 'refused' | 'not_made', number>> {
  const rows = await q
    .selectFrom('bulk_rows')
    .select(['state', sql<number>`count(*)::int`.as('n')])
    .where('run_id', '=', runId)
    .groupBy('state')
    .execute();
  const out = { pending: 0, claimed: 0, created: 0, refused: 0, not_made: 0 };
  for (const r of rows) {
    out[r.state] = r.n;
  }
  return out;
}

/** The rows with index in [offset, offset+limit), with the ticket of each row's document. */
export async function listRows(q: Q, runId: string, offset: number, limit: number) {
  return q
    .selectFrom('bulk_rows as r')
    .leftJoin('documents as d', 'd.id', 'r.document_id')
    .select(['r.index', 'r.state', 'r.error', 'd.ticket'])
    .where('r.run_id', '=', runId)
    .where('r.index', '>=', offset)
    .where('r.index', '<', offset + limit)
    .orderBy('r.index')
    .execute();
}

/**
 * Claims up to `n` rows to do, lowest index first, under `token`. Rows still `claimed` by a worker
 * that stopped come after every pending row: their documents were never made (the outcome commits
 * with the document), so they are done again under the new token.
 */
export async function claimRows(db: Db, runId: string, token: string, n: number, at: Date) {
  const r = await sql<{ id: string; index: number; data: unknown }>`
    update bulk_rows set state = 'claimed', claim_token = ${token}, updated_at = ${at}
    where id in (
      select id from bulk_rows
      where run_id = ${runId} and state in ('pending', 'claimed')
      order by state = 'claimed', index
      limit ${n}
      for update skip locked)
    returning id, index, data`.execute(db);
  return r.rows.sort((a, b) => a.index - b.index);
}

/** Records the row's document, in the document's own transaction; false if the claim was lost. */
export async function recordCreated(trx: Trx, rowId: string, token: string, documentId: string, at: Date): Promise<boolean> {
  const r = await trx
    .updateTable('bulk_rows')
    .set({ state: 'created', document_id: documentId, claim_token: null, updated_at: at })
    .where('id', '=', rowId)
    .where('state', '=', 'claimed')
    .where('claim_token', '=', token)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

/** Records why the row was not made; nothing if another worker holds it now. */
export async function recordRefused(
  db: Db,
  rowId: string,
  token: string,
  state: 'refused' | 'not_made',
  error: unknown,
  at: Date,
): Promise<boolean> {
  const r = await db
    .updateTable('bulk_rows')
    .set({ state, error: JSON.stringify(error), claim_token: null, updated_at: at })
    .where('id', '=', rowId)
    .where('state', '=', 'claimed')
    .where('claim_token', '=', token)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

/**
 * Every row not done yet is not made: the account's package ran out. A row another worker is
 * making loses its claim with this, so its document rolls back (recordCreated finds no claim).
 */
export async function markRestNotMade(db: Db, runId: string, error: unknown, at: Date): Promise<void> {
  await db
    .updateTable('bulk_rows')
    .set({ state: 'not_made', error: JSON.stringify(error), claim_token: null, updated_at: at })
    .where('run_id', '=', runId)
    .where('state', 'in', ['pending', 'claimed'])
    .execute();
}

/** Ends a running run; false if it had ended already (a second worker got there first). */
export async function finishRun(
  trx: Trx,
  runId: string,
  end: { state: 'completed' | 'stopped'; created: number; refused: number },
  at: Date,
): Promise<boolean> {
  const r = await trx
    .updateTable('bulk_runs')
    .set({ state: end.state, created_rows: end.created, refused_rows: end.refused, finished_at: at })
    .where('id', '=', runId)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

/**
 * A page of the account's runs, newest first, each with its rows counted by state (a running run
 * has no final counts yet, so they are counted here rather than read from created_rows).
 */
export async function listRuns(q: Q, accountId: string, offset: number, limit: number) {
  const count = (states: string[]) =>
    sql<number>`(select count(*)::int from bulk_rows x where x.run_id = r.id and x.state in (${sql.join(states)}))`;
  return q
    .selectFrom('bulk_runs as r')
    .select([
      'r.bulk_id',
      'r.state',
      'r.row_count',
      'r.created_at',
      'r.finished_at',
      count(['created']).as('created'),
      count(['refused', 'not_made']).as('refused'),
      count(['pending', 'claimed']).as('pending'),
    ])
    .where('r.account_id', '=', accountId)
    .orderBy('r.created_at', 'desc')
    .orderBy('r.id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
}
