// Task `identity_evidence_sweep` (daily, from the cron list in index.ts; payload: jobs/payloads/):
// deletes identity evidence past its retention (domain/identity/sweep-evidence.ts).
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { sweepIdentityEvidence } from '../domain/identity/sweep-evidence.js';
import { payloadTask } from './job-payload.js';
import { IDENTITY_EVIDENCE_SWEEP } from './payloads/identity-evidence-sweep.js';

export function identityEvidenceSweepTask(deps: Deps): Task {
  return payloadTask(IDENTITY_EVIDENCE_SWEEP, async (_p, helpers) => {
    const n = await sweepIdentityEvidence(deps);
    if (n.reviews > 0 || n.drafts > 0) {
      helpers.logger.info(
        `identity_evidence_sweep: deleted the images of ${n.reviews} decided reviews and ${n.drafts} images never submitted`,
      );
    }
  });
}
