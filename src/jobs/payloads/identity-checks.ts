// Task `identity_checks`: the built-in checks of a submitted identity review (handler:
// jobs/identity-checks.ts). Added in the transaction that submits the review; one job key per
// review, so a retried transaction never queues two.
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { defineJob, queueJob } from '../job-payload.js';

export const IDENTITY_CHECKS = defineJob('identity_checks', Type.Object({ reviewId: Type.String({ minLength: 1 }) }));

export type IdentityChecksPayload = Static<typeof IDENTITY_CHECKS.payload>;

export async function addIdentityChecksJob(trx: Transaction<Database>, payload: IdentityChecksPayload): Promise<void> {
  // A few tries: a failure is the image jail being busy or stopped; the review waits for a person meanwhile.
  await queueJob(trx, IDENTITY_CHECKS, payload, { jobKey: `identity_checks:${payload.reviewId}`, maxAttempts: 5 });
}
