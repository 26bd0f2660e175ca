// Task `orphan_blob_sweep` (daily, from the cron list in index.ts; payload: jobs/payloads/): removes
// blobs no row names once past their grace period (domain/lifecycle/sweep-orphan-blobs.ts).
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { sweepOrphanBlobs } from '../domain/lifecycle/sweep-orphan-blobs.js';
import { payloadTask } from './job-payload.js';
import { ORPHAN_BLOB_SWEEP } from './payloads/orphan-blob-sweep.js';

export function orphanBlobSweepTask(deps: Deps): Task {
  return payloadTask(ORPHAN_BLOB_SWEEP, async (_p, helpers) => {
    const n = await sweepOrphanBlobs(deps);
    helpers.logger.info(`orphan_blob_sweep: ${n.examined} blobs examined, ${n.deleted} unreferenced removed (${n.bytes} bytes)`);
  });
}
