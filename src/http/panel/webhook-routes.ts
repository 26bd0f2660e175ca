// The panel's webhook: the account URL, its secret (a new one shown once), and the delivery log
// with "send again", through the use cases of /api/webhooks/deliveries; a test event; and the
// per-event subscriptions, through the use cases of /api/subscriptions (with their request and
// answer schemas).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { accountWebhook, rotateWebhookSecret } from '../../domain/accounts/account-webhook.js';
import { setAccountWebhook } from '../../domain/accounts/set-webhook.js';
import { createSubscription } from '../../domain/events/create-subscription.js';
import { deleteSubscription } from '../../domain/events/delete-subscription.js';
import { EVENT_KINDS } from '../../domain/events/event-types.js';
import { listSubscriptions } from '../../domain/events/list-subscriptions.js';
import { sendTestEvent } from '../../domain/events/send-test-event.js';
import { listWebhookDeliveries, retryWebhookDelivery } from '../../domain/events/webhook-delivery-log.js';
import { ErrorResponse, NoBody } from '../../schemas/common.js';
import { CreatedSubscription, DeletedSubscription, SubscriptionParams, SubscriptionRequest } from '../../schemas/events.js';
import {
  PanelDeliveryQuery,
  PanelSubscriptions,
  PanelTestEvent,
  PanelWebhook,
  PanelWebhookSecret,
  PanelWebhookUrlBody,
} from '../../schemas/panel.js';
import { DeliveryList, DeliveryParams, RetriedDelivery } from '../../schemas/webhook-deliveries.js';
import { sessionOf } from './session-of.js';

export function panelWebhookRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    webhookUrlRoutes(app, deps);
    deliveryRoutes(app, deps);
    subscriptionRoutes(app, deps);
  };
}

function webhookUrlRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/panel/api/webhook', { schema: { hide: true, response: { 200: PanelWebhook, '4xx': ErrorResponse } } }, async (req) =>
    accountWebhook(deps, { accountId: sessionOf(req).account_id }),
  );

  // A new URL comes with a new secret, as `sello account webhook` does.
  const setUrl = { hide: true, body: PanelWebhookUrlBody, response: { 200: PanelWebhookSecret, '4xx': ErrorResponse } };
  app.post('/panel/api/webhook', { schema: setUrl }, async (req) =>
    setAccountWebhook(deps, { webId: sessionOf(req).web_id, url: req.body.url }),
  );

  const rotate = { hide: true, body: NoBody, response: { 200: PanelWebhookSecret, '4xx': ErrorResponse } };
  app.post('/panel/api/webhook/secret', { schema: rotate }, async (req) =>
    rotateWebhookSecret(deps, { accountId: sessionOf(req).account_id }),
  );

  const test = { hide: true, body: NoBody, response: { 200: PanelTestEvent, '4xx': ErrorResponse } };
  app.post('/panel/api/webhook/test', { schema: test }, async (req) => sendTestEvent(deps, { accountId: sessionOf(req).account_id }));
}

function deliveryRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const list = { hide: true, querystring: PanelDeliveryQuery, response: { 200: DeliveryList, '4xx': ErrorResponse } };
  app.get('/panel/api/webhook/deliveries', { schema: list }, async (req) =>
    listWebhookDeliveries(deps, {
      accountId: sessionOf(req).account_id,
      // An empty choice in the page's form is no filter.
      state: req.query.state || undefined,
      limit: req.query.limit ?? '20',
      nextToken: req.query.nextToken,
    }),
  );

  const retry = { hide: true, params: DeliveryParams, body: NoBody, response: { 200: RetriedDelivery, '4xx': ErrorResponse } };
  app.post('/panel/api/webhook/deliveries/:id/retry', { schema: retry }, async (req) =>
    retryWebhookDelivery(deps, { accountId: sessionOf(req).account_id, id: req.params.id }),
  );
}

function subscriptionRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The event kinds come along so that the page offers exactly those createSubscription accepts.
  const list = { hide: true, response: { 200: PanelSubscriptions, '4xx': ErrorResponse } };
  app.get('/panel/api/webhook/subscriptions', { schema: list }, async (req) => ({
    ...(await listSubscriptions(deps, { accountId: sessionOf(req).account_id })),
    event_kinds: [...EVENT_KINDS],
  }));

  const create = { hide: true, body: SubscriptionRequest, response: { 200: CreatedSubscription, '4xx': ErrorResponse } };
  app.post('/panel/api/webhook/subscriptions', { schema: create }, async (req) =>
    createSubscription(deps, { accountId: sessionOf(req).account_id, event: req.body.event, url: req.body.url }),
  );

  const remove = { hide: true, params: SubscriptionParams, response: { 200: DeletedSubscription, '4xx': ErrorResponse } };
  app.delete('/panel/api/webhook/subscriptions/:id', { schema: remove }, async (req) =>
    deleteSubscription(deps, { accountId: sessionOf(req).account_id, id: req.params.id }),
  );
}
