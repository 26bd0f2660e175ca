// Events: the document behind a notification, and per-event webhook subscriptions.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createSubscription } from '../../domain/events/create-subscription.js';
import { deleteSubscription } from '../../domain/events/delete-subscription.js';
import { getNotificationDocument } from '../../domain/events/get-notification.js';
import { listSubscriptions } from '../../domain/events/list-subscriptions.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  CreatedSubscription,
  DeletedSubscription,
  NotificationDocument,
  NotificationRequest,
  SubscriptionList,
  SubscriptionParams,
  SubscriptionRequest,
} from '../../schemas/events.js';

export function eventRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/developers/webhook',
      {
        schema: {
          operationId: 'getWebhookNotification',
          summary: 'The notification of an event and the document it is about, with its current original',
          tags: ['events'],
          security: [{ hmac: [] }],
          body: NotificationRequest,
          response: { 200: NotificationDocument, '4xx': ErrorResponse },
        },
      },
      async (req) => getNotificationDocument(deps, { accountId: req.account!.id, notificationId: req.body.notification_id }),
    );

    app.post(
      '/api/subscriptions',
      {
        schema: {
          operationId: 'createSubscription',
          summary: 'Subscribe a URL to one event kind; returns its id and signing secret (shown here only)',
          tags: ['events'],
          security: [{ hmac: [] }],
          body: SubscriptionRequest,
          response: { 200: CreatedSubscription, '4xx': ErrorResponse },
        },
      },
      async (req) => createSubscription(deps, { accountId: req.account!.id, ...req.body }),
    );

    app.delete(
      '/api/subscriptions/:id',
      {
        schema: {
          operationId: 'deleteSubscription',
          summary: 'Delete a subscription; deliveries still queued for it are dropped',
          tags: ['events'],
          security: [{ hmac: [] }],
          params: SubscriptionParams,
          response: { 200: DeletedSubscription, '4xx': ErrorResponse },
        },
      },
      async (req) => deleteSubscription(deps, { accountId: req.account!.id, id: req.params.id }),
    );

    app.get(
      '/api/subscriptions',
      {
        schema: {
          operationId: 'listSubscriptions',
          summary: "The account's subscriptions, disabled ones included (without secrets)",
          tags: ['events'],
          security: [{ hmac: [] }],
          response: { 200: SubscriptionList, '4xx': ErrorResponse },
        },
      },
      async (req) => listSubscriptions(deps, { accountId: req.account!.id }),
    );
  };
}
