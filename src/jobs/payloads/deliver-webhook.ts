// Task `deliver_webhook`: one delivery attempt of one notification to one target (handler:
// jobs/deliver-webhook.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import { removeJob } from '../../store/job-queue.js';
import type { Database } from '../../store/schema.js';
import type { DeliveryTarget } from '../../store/webhook-deliveries-repo.js';
import { defineJob, queueJob } from '../job-payload.js';

export const DELIVER_WEBHOOK = defineJob(
  'deliver_webhook',
  Type.Object({
    /** The notification's public id. */
    notificationId: Type.String({ minLength: 1 }),
    /** 'account' or 'subscription:<subscription_id>'. */
    target: Type.String({ minLength: 1 }),
  }),
);

export type DeliverWebhookPayload = Static<typeof DELIVER_WEBHOOK.payload>;

/**
 * One job key per (notification, target): graphile-worker keeps at most one waiting job per key,
 * so adding the job again (a producer running twice in one transaction, a retry being scheduled)
 * never leaves two deliveries of the same thing queued.
 */
export function deliveryJobKey(notificationId: string, target: DeliveryTarget): string {
  return `${DELIVER_WEBHOOK.task}:${notificationId}:${target}`;
}

/**
 * Deliveries are taken before the service's background work (priority 0): a receiver is waiting for
 * them, and the signature that completes a document queues its universal rendition (tens of
 * milliseconds of CPU, more on a busy server) in the same transaction, ahead of the webhook. Under
 * sustained signing the renditions queue up; at the same priority every webhook waited behind them.
 */
export const DELIVERY_PRIORITY = -10;

/** Queues a delivery attempt in the caller's transaction: it commits or vanishes with it. */
export async function addDeliverWebhookJob(trx: Transaction<Database>, payload: DeliverWebhookPayload, runAt?: Date): Promise<void> {
  await queueJob(trx, DELIVER_WEBHOOK, payload, {
    runAt,
    jobKey: deliveryJobKey(payload.notificationId, payload.target),
    priority: DELIVERY_PRIORITY,
  });
}

/** Drops the waiting attempt of a delivery; one already running finds its delivery settled. */
export async function removeDeliverWebhookJob(trx: Transaction<Database>, payload: DeliverWebhookPayload): Promise<void> {
  await removeJob(trx, deliveryJobKey(payload.notificationId, payload.target));
}
