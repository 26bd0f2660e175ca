// Task `deliver_webhook` (payload: jobs/payloads/deliver-webhook.ts): one delivery attempt of one notification to one
// target (the account's webhook URL, or a subscription), per decisions.md "Events":
//   - POST of {notification_id, notification_type, document_ticket, document_title, document_set,
//     created_at, meta}, signed per Standard Webhooks, through the SSRF guard, 15 s in all;
//   - any 2xx: delivered. 410: the subscription is disabled and nothing is retried. Anything else
//     (network error, timeout, another status): the next attempt is queued as a new job with run_at
//     per the retry schedule, and after the tenth the delivery is marked failed.
// Delivery failures never throw: graphile-worker's own retries (exponential, 25 times) are kept for
// failures of this process (database down), when the same attempt simply runs again.
// Idempotent: a delivery that is no longer pending is left alone, and an attempt is claimed with a
// conditional UPDATE before anything is sent. At least once: a crash between the receiver's 2xx
// and the commit sends it again; receivers deduplicate on notification_id (webhook-id).
import type { JobHelpers, Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import type { BulkNotificationBody, NotificationBody } from '../domain/events/event-types.js';
import { retryDelayMs } from '../domain/events/retry-schedule.js';
import { postWebhook } from '../domain/events/post-webhook.js';
import { disableSubscription } from '../store/subscriptions-repo.js';
import { ACCOUNT_TARGET, claimAttempt, loadDelivery, settleDelivery, type DeliveryContext } from '../store/webhook-deliveries-repo.js';
import { payloadTask } from './job-payload.js';
import { DELIVER_WEBHOOK, addDeliverWebhookJob, type DeliverWebhookPayload } from './payloads/deliver-webhook.js';

export type DeliveryOutcome = 'delivered' | 'retry_scheduled' | 'failed' | 'subscription_disabled' | 'discarded' | 'skipped';

export interface DeliverWebhookOptions {
  /** Source of the retry jitter, in [0, 1); Math.random unless a test fixes it. */
  random?: () => number;
}

type TaskDeps = Pick<Deps, 'db' | 'secrets' | 'clock' | 'fetchUrl' | 'config'>;
type Log = Pick<JobHelpers['logger'], 'info' | 'warn' | 'error'>;

export function deliverWebhookTask(deps: TaskDeps, opts: DeliverWebhookOptions = {}): Task {
  return payloadTask(DELIVER_WEBHOOK, async (job, helpers) => {
    await deliverNotification(deps, job, { ...opts, log: helpers.logger });
  });
}

export async function deliverNotification(
  deps: TaskDeps,
  job: DeliverWebhookPayload,
  opts: DeliverWebhookOptions & { log?: Log } = {},
): Promise<DeliveryOutcome> {
  const ctx = await loadDelivery(deps.db, job.notificationId, job.target);
  if (ctx?.state !== 'pending') {
    return 'skipped';
  }
  const at = deps.clock.now();
  const settle = (outcome: Parameters<typeof settleDelivery>[2]) =>
    deps.db.transaction().execute((trx) => settleDelivery(trx, ctx, outcome));

  const destination = destinationOf(ctx, job.target);
  if ('discard' in destination) {
    await settle({ state: 'discarded', status: null, error: destination.discard, at });
    return 'discarded';
  }
  const attempt = await claimAttempt(deps.db, ctx.deliveryId, ctx.attempts, at);
  if (attempt === undefined) {
    return 'skipped'; // another run took this attempt, or the delivery was settled meanwhile
  }

  const body = JSON.stringify(bodyOf(ctx));
  const { status, error } = await postWebhook(deps, {
    url: destination.url,
    secretEnc: destination.secretEnc,
    id: ctx.notificationId,
    at,
    body,
  });
  const done = deps.clock.now();
  const where = `notification ${ctx.notificationId} to ${job.target}, attempt ${attempt}`;

  if (status !== null && status >= 200 && status < 300) {
    await settle({ state: 'delivered', status, error: null, at: done });
    opts.log?.info(`webhook delivered: ${where}, HTTP ${status}`);
    return 'delivered';
  }
  if (status === 410) {
    // "410 disables that subscription" (decisions.md). The account's own URL is the operator's
    // setting: it stays, but this notification is not retried there.
    const isSubscription = ctx.subscriptionRowId !== null && job.target !== ACCOUNT_TARGET;
    const reason = `the receiver answered 410 Gone at ${done.toISOString()}`;
    await deps.db.transaction().execute(async (trx) => {
      if (isSubscription) {
        await disableSubscription(trx, ctx.subscriptionRowId!, reason, done);
      }
      await settleDelivery(trx, ctx, {
        state: 'failed',
        status,
        error: isSubscription ? `${reason}; subscription disabled` : reason,
        at: done,
      });
    });
    opts.log?.warn(`webhook gone (410): ${where}${isSubscription ? '; subscription disabled' : ''}`);
    return isSubscription ? 'subscription_disabled' : 'failed';
  }

  const failure = error ?? `HTTP ${status}`;
  const delay = retryDelayMs(attempt, opts.random);
  if (delay === undefined) {
    await settle({ state: 'failed', status, error: failure, at: done });
    opts.log?.warn(`webhook failed for good: ${where}: ${failure}`);
    return 'failed';
  }
  const next = new Date(done.getTime() + delay);
  await deps.db.transaction().execute(async (trx) => {
    // Still pending (not discarded meanwhile by a deletion): queue the next attempt with it.
    if (await settleDelivery(trx, ctx, { state: 'pending', status, error: failure, nextAttemptAt: next, at: done })) {
      await addDeliverWebhookJob(trx, { notificationId: ctx.notificationId, target: job.target }, next);
    }
  });
  opts.log?.warn(`webhook attempt failed: ${where}: ${failure}; next at ${next.toISOString()}`);
  return 'retry_scheduled';
}

/** Where to send, or why not to send at all. */
function destinationOf(ctx: DeliveryContext, target: string): { url: string; secretEnc: Buffer } | { discard: string } {
  if (ctx.documentStatus === 'deleted') {
    return { discard: 'the document was deleted' };
  }
  if (target === ACCOUNT_TARGET) {
    // The URL and secret in force now: setting a new URL re-issues the secret with it.
    if (!ctx.accountWebhookUrl || !ctx.accountSecretEnc) {
      return { discard: 'the account no longer has a webhook URL' };
    }
    return { url: ctx.accountWebhookUrl, secretEnc: ctx.accountSecretEnc };
  }
  if (!ctx.subscriptionRowId || !ctx.subscriptionActive || !ctx.subscriptionUrl || !ctx.subscriptionSecretEnc) {
    return { discard: 'the subscription was deleted or disabled' };
  }
  return { url: ctx.subscriptionUrl, secretEnc: ctx.subscriptionSecretEnc };
}

/** The delivered JSON, fields in the order of decisions.md. */
export function bodyOf(ctx: DeliveryContext): NotificationBody | BulkNotificationBody {
  if (ctx.kind === 'bulk_completed') {
    // About a run, not a document (decisions.md "Bulk send"): no document_ticket.
    return {
      notification_id: ctx.notificationId,
      notification_type: 'bulk_completed',
      bulk_id: ctx.bulkId!,
      state: ctx.bulkState as BulkNotificationBody['state'],
      created: ctx.bulkCreated ?? 0,
      refused: ctx.bulkRefused ?? 0,
      created_at: ctx.createdAt.toISOString(),
      meta: ctx.meta ?? {},
    };
  }
  return {
    notification_id: ctx.notificationId,
    notification_type: ctx.kind as NotificationBody['notification_type'],
    document_ticket: ctx.documentTicket,
    document_title: ctx.documentName,
    document_set: ctx.setUuid,
    created_at: ctx.createdAt.toISOString(),
    meta: ctx.meta ?? {},
  };
}
