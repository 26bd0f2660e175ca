// The panel's webhook: the account URL, its secret (a new one shown once), and the delivery log
// with "send again", through the use cases of /api/webhooks/deliveries; a test event; and the
// per-event subscriptions, through the use cases of /api/subscriptions.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { accountWebhook, rotateWebhookSecret } from '../../domain/accounts/account-webhook.js';
import { setAccountWebhook } from '../../domain/accounts/set-webhook.js';
import { checkInput } from '../../domain/check-input.js';
import { createSubscription } from '../../domain/events/create-subscription.js';
import { deleteSubscription } from '../../domain/events/delete-subscription.js';
import { EVENT_KINDS } from '../../domain/events/event-types.js';
import { listSubscriptions } from '../../domain/events/list-subscriptions.js';
import { sendTestEvent } from '../../domain/events/send-test-event.js';
import { listWebhookDeliveries, retryWebhookDelivery } from '../../domain/events/webhook-delivery-log.js';
import { SubscriptionRequest } from '../../schemas/events.js';
import { sessionOf } from './session-of.js';

const UrlBody = Type.Object({ url: Type.String({ maxLength: 2000 }) });
const DeliveryQuery = Type.Object({
  state: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
  nextToken: Type.Optional(Type.String()),
});
const DeliveryParams = Type.Object({ id: Type.String() });
// Checked against the API's SubscriptionRequest by the handler, which names the field; this keeps the body an object.
const SubscriptionBody = Type.Object({ event: Type.Optional(Type.Unknown()), url: Type.Optional(Type.Unknown()) });
const SubscriptionParams = Type.Object({ id: Type.String() });

export function panelWebhookRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.get('/panel/api/webhook', { schema: { hide: true } }, async (req) =>
      accountWebhook(deps, { accountId: sessionOf(req).account_id }),
    );

    // A new URL comes with a new secret, as `sello account webhook` does.
    app.post('/panel/api/webhook', { schema: { hide: true, body: UrlBody } }, async (req) =>
      setAccountWebhook(deps, { webId: sessionOf(req).web_id, url: (req.body as { url: string }).url }),
    );

    app.post('/panel/api/webhook/secret', { schema: { hide: true } }, async (req) =>
      rotateWebhookSecret(deps, { accountId: sessionOf(req).account_id }),
    );

    app.post('/panel/api/webhook/test', { schema: { hide: true } }, async (req) =>
      sendTestEvent(deps, { accountId: sessionOf(req).account_id }),
    );

    app.get('/panel/api/webhook/deliveries', { schema: { hide: true, querystring: DeliveryQuery } }, async (req) => {
      const q = req.query as { state?: string; limit?: string; nextToken?: string };
      return listWebhookDeliveries(deps, {
        accountId: sessionOf(req).account_id,
        state: q.state || undefined,
        limit: q.limit ?? '20',
        nextToken: q.nextToken,
      });
    });

    app.post('/panel/api/webhook/deliveries/:id/retry', { schema: { hide: true, params: DeliveryParams } }, async (req) =>
      retryWebhookDelivery(deps, { accountId: sessionOf(req).account_id, id: (req.params as { id: string }).id }),
    );

    // The event kinds come along so that the page offers exactly those createSubscription accepts.
    app.get('/panel/api/webhook/subscriptions', { schema: { hide: true } }, async (req) => ({
      ...(await listSubscriptions(deps, { accountId: sessionOf(req).account_id })),
      event_kinds: EVENT_KINDS,
    }));

    app.post('/panel/api/webhook/subscriptions', { schema: { hide: true, body: SubscriptionBody } }, async (req) => {
      return createSubscription(deps, { accountId: sessionOf(req).account_id, ...checkInput(SubscriptionRequest, req.body) });
    });

    app.delete('/panel/api/webhook/subscriptions/:id', { schema: { hide: true, params: SubscriptionParams } }, async (req) =>
      deleteSubscription(deps, { accountId: sessionOf(req).account_id, id: (req.params as { id: string }).id }),
    );
  };
}
