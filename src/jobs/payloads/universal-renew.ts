// Task `universal_renew`: the archive time-stamp renewal of a document's universal rendition
// (handler: jobs/universal-renew.ts), scheduled when a universal revision is stored, at the time
// its renewal is due (SELLO_LTA_RENEW_MARGIN_DAYS before the certificate of its document time
// stamp ends). One waiting job per document: storing a revision schedules the next, replacing any.
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { defineJob, queueJob } from '../job-payload.js';
import { UNIVERSAL_MAX_ATTEMPTS } from './universal-build.js';

export const UNIVERSAL_RENEW = defineJob('universal_renew', Type.Object({ documentId: Type.String({ minLength: 1 }) }));

export type UniversalRenewPayload = Static<typeof UNIVERSAL_RENEW.payload>;

export async function addUniversalRenewJob(trx: Transaction<Database>, payload: UniversalRenewPayload, runAt: Date): Promise<void> {
  await queueJob(trx, UNIVERSAL_RENEW, payload, {
    runAt,
    jobKey: `universal-renew:${payload.documentId}`,
    maxAttempts: UNIVERSAL_MAX_ATTEMPTS,
  });
}
