// Task `universal_build`: the universal rendition (PAdES B-LTA) of a completed document (handler:
// jobs/universal-build.ts). Added in the transaction that completes the document; one job key per
// document, so a retried transaction never queues two.
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { defineJob, queueJob } from '../job-payload.js';

export const UNIVERSAL_BUILD = defineJob('universal_build', Type.Object({ documentId: Type.String({ minLength: 1 }) }));

export type UniversalBuildPayload = Static<typeof UNIVERSAL_BUILD.payload>;

/**
 * graphile-worker retries a failed job after exp(min(attempt, 10)) seconds: 25 tries spread over
 * about four days (ten hours for the first ten, then one every six hours) before the failure is final.
 * Long enough to outlast an external TSA's OCSP responder or CRL server being down for a weekend.
 */
export const UNIVERSAL_MAX_ATTEMPTS = 25;

export async function addUniversalBuildJob(trx: Transaction<Database>, payload: UniversalBuildPayload): Promise<void> {
  await queueJob(trx, UNIVERSAL_BUILD, payload, { jobKey: `universal:${payload.documentId}`, maxAttempts: UNIVERSAL_MAX_ATTEMPTS });
}
