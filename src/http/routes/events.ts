// Events: the document behind a notification, and per-event webhook subscriptions.
import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Deps } from '../../domain/deps.js';
import { EVENT_KINDS } from '../../domain/events/event-types.js';
import { createSubscription } from '../../domain/events/create-subscription.js';
import { deleteSubscription } from '../../domain/events/delete-subscription.js';
import { getNotificationDocument } from '../../domain/events/get-notification.js';
import { listSubscriptions } from '../../domain/events/list-subscriptions.js';
import { ErrorResponse } from '../schemas.js';
import { asObject } from './documents.js';

// Bodies are checked by the use cases, whose messages name the field; the schemas document them.
const useCaseValidates = () => () => true;

const EventKind = Type.String({ enum: [...EVENT_KINDS] });
const Nullable = (t: TSchema) => Type.Union([t, Type.Null()]);

const NotificationResponse = Type.Object({
  notification: Type.Object({
    notification_id: Type.String(),
    notification_type: EventKind,
    document_ticket: Nullable(Type.String()),
    document_set: Nullable(Type.String({ description: 'uuid of the document set, if any' })),
    created_at: Type.String({ format: 'date-time' }),
    meta: Type.Unknown({ description: 'per event kind; see docs/api.md' }),
  }),
  document: Type.Union([
    Type.Object({
      document_ticket: Type.String(),
      name: Type.String(),
      status: Type.String(),
      signers: Type.Array(
        Type.Object({
          signer_id: Type.String(),
          name: Nullable(Type.String()),
          email: Nullable(Type.String()),
          authority: Type.String(),
          data: Type.String(),
          status: Type.String(),
        }),
      ),
      original: Type.String({ description: 'Base64 of the PDF with every signature applied so far' }),
      hash: Type.String({ description: 'SHA-256 of the original, lower-case hex' }),
    }),
    Type.Null(),
  ]),
});

const Subscription = Type.Object({
  id: Type.String(),
  event: EventKind,
  url: Type.String(),
  status: Type.String({ enum: ['active', 'disabled'] }),
  disabled_reason: Nullable(Type.String()),
  disabled_at: Nullable(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
});

export function eventRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.post(
      '/developers/webhook',
      {
        schema: {
          summary: 'The notification of an event and the document it is about, with its current original',
          tags: ['events'],
          security: [{ hmac: [] }],
          body: Type.Object({ notification_id: Type.String() }),
          response: { 200: NotificationResponse, '4xx': ErrorResponse },
        },
        validatorCompiler: useCaseValidates,
      },
      async (req) => getNotificationDocument(deps, { accountId: req.account!.id, notificationId: asObject(req.body).notification_id }),
    );

    app.post(
      '/api/subscriptions',
      {
        schema: {
          summary: 'Subscribe a URL to one event kind; returns its id and signing secret (shown here only)',
          tags: ['events'],
          security: [{ hmac: [] }],
          body: Type.Object({ event: EventKind, url: Type.String({ format: 'uri', maxLength: 2048 }) }),
          response: {
            200: Type.Object({
              id: Type.String(),
              event: EventKind,
              url: Type.String(),
              secret: Type.String({ description: 'whsec_...' }),
            }),
            '4xx': ErrorResponse,
          },
        },
        validatorCompiler: useCaseValidates,
      },
      async (req) => {
        const b = asObject(req.body);
        return createSubscription(deps, { accountId: req.account!.id, event: b.event, url: b.url });
      },
    );

    app.delete(
      '/api/subscriptions/:id',
      {
        schema: {
          summary: 'Delete a subscription; deliveries still queued for it are dropped',
          tags: ['events'],
          security: [{ hmac: [] }],
          params: Type.Object({ id: Type.String() }),
          response: { 200: Type.Object({ id: Type.String(), status: Type.Literal('deleted') }), '4xx': ErrorResponse },
        },
      },
      async (req) => deleteSubscription(deps, { accountId: req.account!.id, id: (req.params as { id: string }).id }),
    );

    app.get(
      '/api/subscriptions',
      {
        schema: {
          summary: "The account's subscriptions, disabled ones included (without secrets)",
          tags: ['events'],
          security: [{ hmac: [] }],
          response: { 200: Type.Object({ subscriptions: Type.Array(Subscription) }), '4xx': ErrorResponse },
        },
      },
      async (req) => listSubscriptions(deps, { accountId: req.account!.id }),
    );
  };
}
