// Task `check_ocsp_responder` (daily, from the cron list in index.ts; payload: jobs/payloads/): renews the OCSP responder
// certificate when it ends within 30 days, so that the renewal happens ahead of need rather than
// inside an OCSP request, and takes it into use in this process; other processes take it up at
// their next check (pki-responses.ts). Idempotent: renewing is conditional on the stored
// certificate being due, under a row lock, so a repeated or concurrent run issues nothing more.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { payloadTask } from './job-payload.js';
import { CHECK_OCSP_RESPONDER } from './payloads/check-ocsp-responder.js';

export function checkOcspResponderTask(deps: Deps): Task {
  return payloadTask(CHECK_OCSP_RESPONDER, async () => {
    await deps.pki.checkOcspResponder();
  });
}
