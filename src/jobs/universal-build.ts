// Task `universal_build` (payload: jobs/payloads/universal-build.ts): the universal rendition of a
// completed document (domain/universal/build-universal.ts). A failure throws, so graphile-worker
// retries it with its exponential backoff; each failure is recorded on the document.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { buildUniversal } from '../domain/universal/build-universal.js';
import { payloadTask } from './job-payload.js';
import { UNIVERSAL_BUILD } from './payloads/universal-build.js';

export function universalBuildTask(deps: Deps): Task {
  return payloadTask(UNIVERSAL_BUILD, async (p, helpers) => {
    await buildUniversal(deps, { documentId: p.documentId, attempt: helpers.job.attempts, maxAttempts: helpers.job.max_attempts });
  });
}
