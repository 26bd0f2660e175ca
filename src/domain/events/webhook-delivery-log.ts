// GET /api/webhooks/deliveries and POST /api/webhooks/deliveries/{id}/retry: the account's delivery
// log (what was sent where, how it went, when it is tried next) and "send again". Sending again
// makes the delivery pending with one attempt queued now, through the same job as every attempt
// (jobs/deliver-webhook.ts): a failed delivery that fails again is failed again after that one
// attempt; a pending one is tried now instead of at its backoff time.
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { addDeliverWebhookJob } from '../../jobs/payloads/deliver-webhook.js';
import { DELIVERY_STATES, type DeliveryList, type RetriedDelivery, type WebhookDelivery } from '../../schemas/webhook-deliveries.js';
import type { DeliveryState } from '../../store/schema.js';
import { type LoggedDelivery, listAccountDeliveries, lockAccountDelivery, reopenDelivery } from '../../store/webhook-deliveries-repo.js';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function view(d: LoggedDelivery): WebhookDelivery {
  const subscription = d.target.startsWith('subscription:');
  return {
    id: d.id,
    notification_id: d.notification_id,
    event: d.kind as WebhookDelivery['event'],
    document_ticket: d.document_ticket,
    document_name: d.document_name,
    target: subscription ? 'subscription' : 'account',
    subscription_id: subscription ? d.subscription_id : null,
    url: d.url,
    state: d.state,
    attempts: d.attempts,
    last_status: d.last_status,
    last_error: d.last_error,
    last_attempt_at: iso(d.last_attempt_at),
    next_attempt_at: iso(d.next_attempt_at),
    delivered_at: iso(d.delivered_at),
    created_at: new Date(d.created_at).toISOString(),
  };
}

export async function listWebhookDeliveries(
  deps: Pick<Deps, 'db'>,
  q: { accountId: string; state?: string; limit?: string; nextToken?: string },
): Promise<DeliveryList> {
  if (q.state !== undefined && !(DELIVERY_STATES as readonly string[]).includes(q.state)) {
    throw invalid('state', `expected one of ${DELIVERY_STATES.join(', ')}`);
  }
  let limit = 50;
  if (q.limit !== undefined) {
    limit = Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      throw invalid('limit', 'expected a whole number from 1 to 200');
    }
  }
  let beforeId: string | undefined;
  if (q.nextToken !== undefined) {
    beforeId = Buffer.from(q.nextToken, 'base64url').toString('utf8');
    if (!/^\d{1,18}$/.test(beforeId)) {
      throw invalid('nextToken', 'not a token returned by this operation');
    }
  }
  const rows = await listAccountDeliveries(deps.db, {
    accountId: q.accountId,
    state: q.state as DeliveryState | undefined,
    limit: limit + 1,
    beforeId,
  });
  const page = rows.slice(0, limit);
  return {
    deliveries: page.map(view),
    ...(rows.length > limit ? { nextToken: Buffer.from(page[page.length - 1].id).toString('base64url') } : {}),
  };
}

export async function retryWebhookDelivery(
  deps: Pick<Deps, 'db' | 'clock'>,
  q: { accountId: string; id: string },
): Promise<RetriedDelivery> {
  if (!/^\d{1,18}$/.test(q.id)) {
    throw new AppError('DELIVERY_NOT_FOUND', `no delivery ${q.id}`);
  }
  return deps.db.transaction().execute(async (trx) => {
    const d = await lockAccountDelivery(trx, q.accountId, q.id);
    if (!d) {
      throw new AppError('DELIVERY_NOT_FOUND', `no delivery ${q.id}`);
    }
    if (d.state === 'delivered') {
      throw new AppError('INVALID_STATE', `delivery ${q.id} was delivered at ${iso(d.delivered_at)}; there is nothing to send again`);
    }
    const now = deps.clock.now();
    await reopenDelivery(trx, { id: d.id, notificationRowId: d.notification_row_id }, now);
    await addDeliverWebhookJob(trx, { notificationId: d.notification_id, target: d.target }, now);
    return { id: d.id, state: 'pending', next_attempt_at: now.toISOString() };
  });
}
