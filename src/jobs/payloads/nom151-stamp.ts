// Task `nom151_stamp`: the NOM-151 stamp of one rendition of a document (handler:
// jobs/nom151-stamp.ts). Added in the transaction that completes the document, so the request is
// never lost; retried while the provider is down.
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { defineJob, queueJob } from '../job-payload.js';

export const NOM151_STAMP = defineJob(
  'nom151_stamp',
  Type.Object({
    documentId: Type.String({ minLength: 1 }),
    rendition: Type.Union([Type.Literal('original'), Type.Literal('universal')]),
  }),
);

export type Nom151StampPayload = Static<typeof NOM151_STAMP.payload>;

/**
 * Attempts before the job is left failed in the queue (where the operator sees it and can retry
 * it): graphile-worker waits exp(n) seconds after the nth failure, at most about six hours, so
 * this keeps trying for about ten days.
 */
export const NOM151_MAX_ATTEMPTS = 50;

export async function addNom151StampJob(trx: Transaction<Database>, payload: Nom151StampPayload): Promise<void> {
  await queueJob(trx, NOM151_STAMP, payload, {
    maxAttempts: NOM151_MAX_ATTEMPTS,
    jobKey: `nom151:${payload.documentId}:${payload.rendition}`,
  });
}
