// Time for flow tests: a clock the test moves, and the scheduled jobs (reminders, expirations)
// whose run_at has come by that clock made due now for graphile-worker, which compares run_at with
// the database's own time. Nothing sleeps: days pass in one call.
import { sql } from 'kysely';
import type { Clock } from '../../src/domain/deps.js';
import type { Db } from '../../src/store/db.js';

export interface MovableClock extends Clock {
  /** Moves the clock forward. */
  advance(ms: number): void;
  set(at: Date): void;
}

export function movableClock(start = new Date()): MovableClock {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms;
    },
    set: (at) => {
      now = at.getTime();
    },
  };
}

export const HOUR = 60 * 60 * 1000;
export const DAY = 24 * HOUR;

/** Jobs of `tasks` scheduled at or before the clock's now become due; returns how many. */
export async function releaseScheduledJobs(db: Db, clock: Clock, tasks = ['workflow_remind', 'workflow_expire']): Promise<number> {
  const r = await sql`update graphile_worker._private_jobs j set run_at = now()
    from graphile_worker._private_tasks t
    where t.id = j.task_id and t.identifier in (${sql.join(tasks)}) and j.run_at <= ${clock.now()} and j.locked_at is null`.execute(db);
  return Number(r.numAffectedRows);
}

/** The scheduled jobs of `tasks`, with their key and run_at, for assertions. */
export async function scheduledJobs(db: Db, tasks = ['workflow_remind', 'workflow_expire']) {
  const r = await sql<{ key: string | null; run_at: Date; task: string }>`select j.key, j.run_at, t.identifier as task
    from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    where t.identifier in (${sql.join(tasks)}) order by j.run_at`.execute(db);
  return r.rows;
}
