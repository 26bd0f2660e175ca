// Task `nom151_stamp` (payload: jobs/payloads/nom151-stamp.ts): stamps one rendition of a document.
// Idempotent: a rendition holds one stamp, and a run that finds it does nothing. A provider that is
// down fails the job, which graphile-worker retries; each failure is recorded on the document
// (record-stamp-failure.ts), so that a lasting one shows in its state and history.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { recordDocumentStampFailure } from '../domain/nom151/record-stamp-failure.js';
import { stampDocumentRendition } from '../domain/nom151/stamp-document.js';
import { payloadTask } from './job-payload.js';
import { NOM151_STAMP } from './payloads/nom151-stamp.js';

export function nom151StampTask(deps: Deps): Task {
  return payloadTask(NOM151_STAMP, async (p, helpers) => {
    let outcome: Awaited<ReturnType<typeof stampDocumentRendition>>;
    try {
      outcome = await stampDocumentRendition(deps, p);
    } catch (err) {
      const reason = (err as Error)?.message ?? String(err);
      await recordDocumentStampFailure(deps, { ...p, reason, attempt: helpers.job.attempts, maxAttempts: helpers.job.max_attempts });
      throw err;
    }
    if (outcome !== 'stamped') {
      helpers.logger.info(`nom151_stamp: document ${p.documentId} ${p.rendition}: ${outcome}`);
    }
  });
}
