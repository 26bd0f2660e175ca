// Task `universal_renew` (payload: jobs/payloads/universal-renew.ts): the archive time-stamp
// renewal of a universal rendition (domain/universal/renew-universal.ts), scheduled when each
// universal revision is stored.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { renewUniversal } from '../domain/universal/renew-universal.js';
import { payloadTask } from './job-payload.js';
import { UNIVERSAL_RENEW } from './payloads/universal-renew.js';

export function universalRenewTask(deps: Deps): Task {
  return payloadTask(UNIVERSAL_RENEW, async (p, helpers) => {
    await renewUniversal(deps, { documentId: p.documentId, attempt: helpers.job.attempts, maxAttempts: helpers.job.max_attempts });
  });
}
