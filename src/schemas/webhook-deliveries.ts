// The delivery log of an account's webhooks (routes/webhook-deliveries.ts): every attempt to bring
// one event to one receiver (the account's webhook URL, or a subscription's), and "send again".
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, examples } from './common.js';
import { EventKind } from './events.js';

export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'discarded'] as const;

export const DeliveryListQuery = Type.Object({
  state: Type.Optional(StringEnum(DELIVERY_STATES, { description: 'only deliveries in this state' })),
  limit: Type.Optional(Type.String({ description: '1..200, default 50' })),
  nextToken: Type.Optional(Type.String({ description: 'from the previous page' })),
});

export const WebhookDelivery = Type.Object({
  id: Type.String({ description: 'names the delivery in POST /api/webhooks/deliveries/{id}/retry' }),
  notification_id: Type.String(),
  event: EventKind,
  document_ticket: Nullable(Type.String()),
  document_name: Nullable(Type.String({ description: "the document's name, as created; null for an event of no document" })),
  target: StringEnum(['account', 'subscription'], { description: "the account's webhook URL, or a subscription" }),
  subscription_id: Nullable(Type.String()),
  url: Nullable(Type.String({ description: 'where it goes now (the account URL or the subscription URL); null when unset' })),
  state: StringEnum(DELIVERY_STATES, {
    description:
      'pending: waiting for its next attempt; delivered: a 2xx was answered; failed: given up; discarded: not sent (document deleted, no URL)',
  }),
  attempts: Type.Integer(),
  last_status: Nullable(Type.Integer({ description: "the receiver's last HTTP status" })),
  last_error: Nullable(Type.String({ description: 'why the last attempt failed' })),
  last_attempt_at: Nullable(DateTime()),
  next_attempt_at: Nullable(DateTime()),
  delivered_at: Nullable(DateTime()),
  created_at: DateTime(),
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveryList = Type.Object({
  deliveries: Type.Array(WebhookDelivery),
  nextToken: Type.Optional(Type.String({ description: 'absent on the last page' })),
});
export type DeliveryList = Static<typeof DeliveryList>;
examples(DeliveryList, {
  deliveries: [
    {
      id: '1042',
      notification_id: '0e5a3c1f-8d8b-4a47-9a5f-2f1c6d7e8b90',
      event: 'document_completed',
      document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
      document_name: 'Contrato.pdf',
      target: 'subscription',
      subscription_id: '0f4b8a7e-1c2d-4e5f-9a8b-7c6d5e4f3a2b',
      url: 'https://example.com/hooks/sello',
      state: 'failed',
      attempts: 8,
      last_status: 503,
      last_error: 'HTTP 503',
      last_attempt_at: '2026-11-23T02:10:00.000Z',
      next_attempt_at: null,
      delivered_at: null,
      created_at: '2026-11-22T03:10:42.512Z',
    },
  ],
});

export const DeliveryParams = Type.Object({ id: Type.String() });

export const RetryBody = Type.Object({}, { description: 'empty: {}' });

export const RetriedDelivery = Type.Object({
  id: Type.String(),
  state: Type.Literal('pending'),
  next_attempt_at: DateTime('now: the attempt is queued'),
});
export type RetriedDelivery = Static<typeof RetriedDelivery>;
examples(RetriedDelivery, { id: '1042', state: 'pending', next_attempt_at: '2026-11-23T09:00:00.000Z' });
