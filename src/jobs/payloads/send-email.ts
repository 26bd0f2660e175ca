// Task `send_email`: delivers one queued message of the outbox (handler: jobs/send-email.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { defineJob, queueJob } from '../job-payload.js';

export const SEND_EMAIL = defineJob('send_email', Type.Object({ messageId: Type.String({ minLength: 1 }) }));

export type SendEmailPayload = Static<typeof SEND_EMAIL.payload>;

/**
 * Delivery attempts of one message, the first included: the job's max_attempts, and the count at
 * which send_email settles a message that only ever failed temporarily as failed.
 */
export const MAIL_MAX_ATTEMPTS = 8;

/** Queues the delivery of a message inserted in the same transaction. */
export async function addSendEmailJob(trx: Transaction<Database>, payload: SendEmailPayload): Promise<void> {
  // Several attempts with graphile-worker's backoff (exp(n) seconds after the nth failure: about
  // half an hour until the 8th) cover a mail server that is briefly away; send_email settles the
  // row at the last one instead of throwing.
  await queueJob(trx, SEND_EMAIL, payload, { maxAttempts: MAIL_MAX_ATTEMPTS, jobKey: `mail:${payload.messageId}` });
}
