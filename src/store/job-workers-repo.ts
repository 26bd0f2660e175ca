// SQL for the register of live job runners (table job_workers) and for unlocking the jobs of the
// dead ones. A runner is registered, beats and deregisters on a connection of its own (a session,
// because it holds the runner's advisory lock for as long as the process lives); reaping runs on
// any connection.
import { type Expression, sql } from 'kysely';
import type pg from 'pg';
import type { Db } from './db.js';

// Arbitrary constant naming these locks in pg_locks (the first key; the second is the row's id).
const WORKER_LOCK_NAMESPACE = 715_300_003;

/** True while some session holds the advisory lock of the runner with this id. */
function sessionHolds(id: Expression<number>) {
  return sql<boolean>`exists (
    select 1 from pg_locks l
    where l.locktype = 'advisory' and l.granted
      and l.database = (select oid from pg_database where datname = current_database())
      and l.classid = ${WORKER_LOCK_NAMESPACE}::int::oid and l.objid = ${id}::oid and l.objsubid = 2)`;
}

/** What a runner says about itself when it registers. */
export interface WorkerIdentity {
  /** graphile-worker's pool id: the locked_by of the jobs it takes. */
  poolId: string;
  hostname: string;
  pid: number;
  heartbeatMs: number;
  deadAfterMs: number;
}

/**
 * Registers a runner and takes its advisory lock on the same session, in one statement: its row
 * is never visible to other processes without the lock held.
 */
export async function registerWorker(session: pg.ClientBase, w: WorkerIdentity): Promise<number> {
  const r = await session.query<{ id: number }>(
    `with w as (
       insert into job_workers (pool_id, hostname, pid, heartbeat_ms, dead_after_ms)
       values ($1, $2, $3, $4, $5) returning id)
     select id, pg_advisory_lock($6, id) from w`,
    [w.poolId, w.hostname, w.pid, w.heartbeatMs, w.deadAfterMs, WORKER_LOCK_NAMESPACE],
  );
  return r.rows[0].id;
}

/**
 * One heartbeat: last_seen becomes the database's now(). When another process has meanwhile taken
 * this runner for dead and removed its row, the row is written again; `reinserted` says so.
 * `relock` takes the advisory lock again, for a session opened after the previous one was lost.
 */
export async function beatWorker(session: pg.ClientBase, id: number, w: WorkerIdentity, relock: boolean): Promise<{ reinserted: boolean }> {
  if (relock) {
    await session.query('select pg_advisory_lock($1, $2)', [WORKER_LOCK_NAMESPACE, id]);
  }
  // xmax is 0 on a row version this statement inserted, not on one it updated.
  const r = await session.query<{ inserted: boolean }>(
    `insert into job_workers (id, pool_id, hostname, pid, heartbeat_ms, dead_after_ms)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (id) do update set last_seen = now()
     returning (xmax = 0) as inserted`,
    [id, w.poolId, w.hostname, w.pid, w.heartbeatMs, w.deadAfterMs],
  );
  return { reinserted: r.rows[0].inserted };
}

/** A clean stop: the row goes, and with it any claim on jobs (the runner has finished its own). */
export async function deregisterWorker(session: pg.ClientBase, id: number): Promise<void> {
  await session.query('delete from job_workers where id = $1', [id]);
  await session.query('select pg_advisory_unlock($1, $2)', [WORKER_LOCK_NAMESPACE, id]);
}

/** A runner found dead, and the jobs it held that are now free to run again. */
export interface DeadWorker {
  poolId: string;
  hostname: string;
  pid: number;
  lastSeen: Date;
  /**
   * Why it counts as dead: its process is known to be gone (same host, no such process), its
   * session is gone and it is silent for an interval, or it is silent past its dead-after time.
   */
  reason: 'process_gone' | 'session_gone' | 'heartbeat_stale';
  jobs: { id: string; task: string; attempts: number }[];
}

export interface ReapResult {
  dead: DeadWorker[];
  /**
   * When a runner whose session is gone will have been silent for one heartbeat interval (the
   * moment it counts as dead), in ms from now; null when there is none. The caller looks again
   * then rather than at its next heartbeat, so a crash is handled as early as it can be.
   */
  recheckInMs: number | null;
}

/**
 * Removes the runners that are gone and unlocks every job they held, in one transaction, so that
 * the runners of this database (the caller's included) take those jobs at their next poll.
 *
 * A runner is gone when either:
 *  - its session no longer holds its advisory lock (the process died: its connection closed) and
 *    it has not beaten for one of its heartbeat intervals: that interval lets a live runner whose
 *    connection merely dropped open a new one and take its lock again;
 *  - its session no longer holds its lock and `processGone` says its process no longer exists (a
 *    runner of the caller's own host: a restart after a crash finds its predecessor's jobs free
 *    at once, without waiting out the interval);
 *  - or it has not beaten for its dead-after time, lock or not (a host that vanished without
 *    closing its connections, a network cut off, a process frozen that long).
 * A runner merely busy with a slow job keeps beating on its own connection and is never taken.
 * Times are the database's own now(), never a process clock.
 */
export async function reapDeadWorkers(
  db: Db,
  selfPoolId: string,
  processGone: (hostname: string, pid: number) => boolean = () => false,
): Promise<ReapResult> {
  // pg_locks, make_interval over a row's own columns and graphile_worker's view and function: in SQL.
  return db.transaction().execute(async (trx) => {
    // Runners whose session is gone but that beat less than an interval ago: the caller may know
    // that the process itself is gone (one of its own host), which needs no further wait.
    const recent = await sql<{ id: number; hostname: string; pid: number }>`
      select w.id, w.hostname, w.pid from job_workers w
      where w.pool_id <> ${selfPoolId} and not ${sessionHolds(sql.ref('w.id'))}`.execute(trx);
    const gone = recent.rows.filter((w) => processGone(w.hostname, w.pid)).map((w) => w.id);

    // The conditions sit on the row itself, not on a snapshot taken before: a heartbeat committed
    // while this statement waits for the row lock is seen when the row is checked again.
    const dead = await sql<{
      pool_id: string;
      hostname: string;
      pid: number;
      last_seen: Date;
      process_gone: boolean;
      session_gone: boolean;
    }>`
      delete from job_workers w
      where w.pool_id <> ${selfPoolId}
        and (w.last_seen < now() - make_interval(secs => w.dead_after_ms / 1000.0)
             or ((w.last_seen < now() - make_interval(secs => w.heartbeat_ms / 1000.0) or w.id = any(${gone}::int[]))
                 and not ${sessionHolds(sql.ref('w.id'))}))
      returning w.pool_id, w.hostname, w.pid, w.last_seen, w.id = any(${gone}::int[]) as process_gone,
                not ${sessionHolds(sql.ref('w.id'))} as session_gone`.execute(trx);

    const poolIds = dead.rows.map((d) => d.pool_id);
    let jobs: { id: string; task_identifier: string; attempts: number; locked_by: string }[] = [];
    if (poolIds.length > 0) {
      // The public view and function of graphile-worker: which jobs they held, then the unlock
      // (locked_by and locked_at cleared on jobs and named queues; run_at is already past).
      jobs = (
        await sql<{ id: string; task_identifier: string; attempts: number; locked_by: string }>`
          select id::text, task_identifier, attempts, locked_by from graphile_worker.jobs
          where locked_by = any(${poolIds}::text[]) order by id`.execute(trx)
      ).rows;
      await sql`select graphile_worker.force_unlock_workers(${poolIds}::text[])`.execute(trx);
    }

    // Runners whose session is gone but that beat less than one interval ago: when they will count.
    const next = await sql<{ ms: number | null }>`
      select ceil(extract(epoch from min(w.last_seen + make_interval(secs => w.heartbeat_ms / 1000.0)) - now()) * 1000)::int as ms
      from job_workers w
      where w.pool_id <> ${selfPoolId} and not ${sessionHolds(sql.ref('w.id'))}`.execute(trx);

    return {
      dead: dead.rows.map((d) => ({
        poolId: d.pool_id,
        hostname: d.hostname,
        pid: d.pid,
        lastSeen: d.last_seen,
        reason: d.process_gone ? 'process_gone' : d.session_gone ? 'session_gone' : 'heartbeat_stale',
        jobs: jobs.filter((j) => j.locked_by === d.pool_id).map((j) => ({ id: j.id, task: j.task_identifier, attempts: j.attempts })),
      })),
      recheckInMs: next.rows[0]?.ms ?? null,
    };
  });
}
