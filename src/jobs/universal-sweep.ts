// Task `universal_sweep` (daily, from the cron list in index.ts; payload: jobs/payloads/): queues
// the build or renewal of universal renditions that have no job (domain/universal/sweep-universal.ts).
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { sweepUniversal } from '../domain/universal/sweep-universal.js';
import { payloadTask } from './job-payload.js';
import { UNIVERSAL_SWEEP } from './payloads/universal-sweep.js';

export function universalSweepTask(deps: Deps): Task {
  return payloadTask(UNIVERSAL_SWEEP, async (_p, helpers) => {
    const r = await sweepUniversal(deps);
    if (r.builds > 0 || r.renewals > 0) {
      helpers.logger.info(`universal_sweep: queued ${r.builds} builds and ${r.renewals} renewals`);
    }
  });
}
