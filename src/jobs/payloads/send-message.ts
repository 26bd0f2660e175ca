// Task `send_message`: delivers one queued SMS or WhatsApp message (handler: jobs/send-message.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { defineJob, queueJob } from '../job-payload.js';

export const SEND_MESSAGE = defineJob('send_message', Type.Object({ messageId: Type.String({ minLength: 1 }) }));

export type SendMessagePayload = Static<typeof SEND_MESSAGE.payload>;

/**
 * Delivery attempts of one message, the first included: the job's max_attempts. graphile-worker
 * waits exp(n) seconds after the nth failure, about half an hour in all until the 8th.
 */
export const MESSAGE_MAX_ATTEMPTS = 8;

/** Queues the delivery of a message inserted in the same transaction, or a new attempt at `runAt`. */
export async function addSendMessageJob(trx: Transaction<Database>, payload: SendMessagePayload, runAt?: Date): Promise<void> {
  await queueJob(trx, SEND_MESSAGE, payload, { maxAttempts: MESSAGE_MAX_ATTEMPTS, jobKey: `message:${payload.messageId}`, runAt });
}
