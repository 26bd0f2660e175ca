// Runs the service's jobs in a test, on demand: every job due now, with the real task list, then
// returns once their outcome is committed.
import { sql } from 'kysely';
import { Logger, runOnce } from 'graphile-worker';
import pg from 'pg';
import type { Deps } from '../../src/domain/deps.js';
import { taskList } from '../../src/jobs/index.js';

export interface JobRunner {
  runDue(): Promise<void>;
  close(): Promise<void>;
}

const quiet = new Logger(() => () => {});

export function jobRunner(connectionString: string, deps: Deps): JobRunner {
  const pool = new pg.Pool({ connectionString, max: 3 });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return {
    async runDue() {
      await runOnce({ pgPool: pool, taskList: taskList(deps), logger: quiet, noHandleSignals: true });
      // graphile-worker 0.17 completes a job (deletes its row) without awaiting it before runOnce
      // resolves: wait, in short polls, until no job is still held by a worker.
      for (let i = 0; i < 200; i++) {
        const r = await sql<{
          n: number;
        }>`select count(*)::int as n from graphile_worker._private_jobs where locked_at is not null`.execute(deps.db);
        if (r.rows[0].n === 0) {
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error('jobs still locked 1 s after runOnce');
    },
    close: () => pool.end(),
  };
}
