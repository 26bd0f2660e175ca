// The SQL of graphile-worker's queue: jobs are added and removed through its SQL functions in the
// caller's transaction, so a job commits or vanishes with the change that causes it (no job for a
// change that rolled back, no change left without its job). Payloads are typed by the task's
// schema in jobs/payloads/; this file only moves them.
import { sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

export interface JobOptions {
  /** When the job becomes due; the database's now() when absent (not the service clock's). */
  runAt?: Date;
  /**
   * At most one waiting job per key: adding a job under a key replaces the waiting one (its
   * payload and run_at), so a retried transaction or a rescheduling never leaves two.
   */
  jobKey?: string;
  /** graphile-worker's default (25) when absent. */
  maxAttempts?: number;
  /** Runners take due jobs by priority, lowest first, then by run_at; graphile-worker's default 0 when absent. */
  priority?: number;
}

export async function addJob(trx: Transaction<Database>, task: string, payload: unknown, o: JobOptions = {}): Promise<void> {
  await sql`select graphile_worker.add_job(${task}, ${JSON.stringify(payload)}::json,
              run_at := ${o.runAt ?? null}::timestamptz, max_attempts := ${o.maxAttempts ?? null}::int,
              job_key := ${o.jobKey ?? null}::text, priority := ${o.priority ?? null}::int, job_key_mode := 'replace')`.execute(trx);
}

/** Removes a waiting job by key; one already running finishes and finds nothing to do. */
export async function removeJob(trx: Transaction<Database>, jobKey: string): Promise<void> {
  await sql`select graphile_worker.remove_job(${jobKey})`.execute(trx);
}
