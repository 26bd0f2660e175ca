// The webhook delivery log and "send again" (docs/api.md, "Webhook deliveries"), HMAC-authenticated.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { listWebhookDeliveries, retryWebhookDelivery } from '../../domain/events/webhook-delivery-log.js';
import { ErrorResponse } from '../../schemas/common.js';
import { DeliveryList, DeliveryListQuery, DeliveryParams, RetriedDelivery, RetryBody } from '../../schemas/webhook-deliveries.js';

export function webhookDeliveryRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/api/webhooks/deliveries',
      {
        schema: {
          operationId: 'listWebhookDeliveries',
          summary: "The account's webhook deliveries, newest first: event, receiver, state, attempts, last answer, next attempt",
          tags: ['events'],
          security: [{ hmac: [] }],
          querystring: DeliveryListQuery,
          response: { 200: DeliveryList, '4xx': ErrorResponse },
        },
      },
      async (req) => listWebhookDeliveries(deps, { accountId: req.account!.id, ...req.query }),
    );

    app.post(
      '/api/webhooks/deliveries/:id/retry',
      {
        schema: {
          operationId: 'retryWebhookDelivery',
          summary: 'Send a delivery that failed (or waits for its next attempt) again now',
          tags: ['events'],
          security: [{ hmac: [] }],
          params: DeliveryParams,
          body: RetryBody,
          response: { 200: RetriedDelivery, '4xx': ErrorResponse },
        },
      },
      async (req) => retryWebhookDelivery(deps, { accountId: req.account!.id, id: req.params.id }),
    );
  };
}
