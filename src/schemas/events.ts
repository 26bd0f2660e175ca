// Events: the notification behind a webhook delivery and its document, and per-event
// subscriptions (routes/events.ts).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum } from './common.js';
import { ListedSigner } from './documents.js';

/** The twelve event identifiers (decisions.md "Events"); the database checks the same list (0003_events.sql). */
export const EVENT_KINDS = [
  'original_signed',
  'universal_signed',
  'document_completed',
  'document_rejected',
  'workflow_expired',
  'whatsapp_error',
  'sms_error',
  'email_error',
  'original_nom151_stamped',
  'universal_nom151_stamped',
  'identity_verification_failed',
  'identity_verification_passed',
] as const;
export const EventKind = StringEnum(EVENT_KINDS);

export const NotificationRequest = Type.Object({ notification_id: Type.String({ minLength: 1, maxLength: 200 }) });

export const NotificationDocument = Type.Object({
  notification: Type.Object({
    notification_id: Type.String(),
    notification_type: EventKind,
    document_ticket: Nullable(Type.String()),
    document_set: Nullable(Type.String({ description: 'uuid of the document set, if any' })),
    created_at: DateTime(),
    meta: Type.Unknown({ description: 'per event kind; see docs/api.md' }),
  }),
  document: Nullable(
    Type.Object({
      document_ticket: Type.String(),
      name: Type.String(),
      status: Type.String(),
      signers: Type.Array(ListedSigner),
      original: Type.String({ description: 'Base64 of the PDF with every signature applied so far' }),
      hash: Type.String({ description: 'SHA-256 of the original, lower-case hex' }),
    }),
    { description: 'null for an event about a set alone' },
  ),
});
export type NotificationDocument = Static<typeof NotificationDocument>;

export const SubscriptionRequest = Type.Object({ event: EventKind, url: Type.String({ format: 'uri', maxLength: 2048 }) });

export const CreatedSubscription = Type.Object({
  id: Type.String(),
  event: EventKind,
  url: Type.String(),
  secret: Type.String({ description: 'whsec_...: the key of its webhook-signature headers; shown only here' }),
});
export type CreatedSubscription = Static<typeof CreatedSubscription>;

export const ListedSubscription = Type.Object({
  id: Type.String(),
  event: EventKind,
  url: Type.String(),
  status: StringEnum(['active', 'disabled'], { description: 'disabled once the receiver answered 410 Gone' }),
  disabled_reason: Nullable(Type.String()),
  disabled_at: Nullable(DateTime()),
  created_at: DateTime(),
});
export type ListedSubscription = Static<typeof ListedSubscription>;

export const SubscriptionList = Type.Object({ subscriptions: Type.Array(ListedSubscription) });
export type SubscriptionList = Static<typeof SubscriptionList>;

export const SubscriptionParams = Type.Object({ id: Type.String() });
export const DeletedSubscription = Type.Object({ id: Type.String(), status: Type.Literal('deleted') });
export type DeletedSubscription = Static<typeof DeletedSubscription>;
