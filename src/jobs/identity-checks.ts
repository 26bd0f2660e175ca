// Task `identity_checks` (payload: jobs/payloads/identity-checks.ts): the built-in checks of a
// submitted identity review, and the automatic decision where the account chose it
// (domain/identity/run-checks.ts). Idempotent: a review checked already is left as it is.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { runIdentityChecks } from '../domain/identity/run-checks.js';
import { payloadTask } from './job-payload.js';
import { IDENTITY_CHECKS } from './payloads/identity-checks.js';

export function identityChecksTask(deps: Deps): Task {
  return payloadTask(IDENTITY_CHECKS, async (p) => {
    await runIdentityChecks(deps, { reviewId: p.reviewId });
  });
}
