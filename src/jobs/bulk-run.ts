// Task `bulk_run` (payload: jobs/payloads/bulk-run.ts): makes the documents of a bulk run. Safe to
// run again or twice at once: rows are claimed, and each row's outcome commits with its document
// (domain/bulk/run-bulk.ts).
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { runBulk } from '../domain/bulk/run-bulk.js';
import { payloadTask } from './job-payload.js';
import { BULK_RUN } from './payloads/bulk-run.js';

export function bulkRunTask(deps: Deps): Task {
  return payloadTask(BULK_RUN, async (p, helpers) => {
    await runBulk(deps, { runId: p.runId, logError: (message) => helpers.logger.error(message) });
  });
}
