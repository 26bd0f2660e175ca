// Events: the notification behind a webhook delivery and its document, and per-event
// subscriptions (routes/events.ts).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum } from './common.js';
import { examples } from './common.js';
import { ArchivalStateFields, ListedSigner } from './documents.js';
import { FilledSignerField } from './signer-fields.js';

/** A signer of the notification's document, with the fields they filled (decisions.md, "Fields signers fill"). */
const NotificationSigner = Type.Composite([
  ListedSigner,
  Type.Object({ signer_fields: Type.Array(FilledSignerField, { description: 'the fields this signer fills; value null until signed' }) }),
]);

/** The thirteen event identifiers (decisions.md "Events", "Bulk send"); the database checks the same list (0040_bulk_runs.sql). */
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
  'bulk_completed',
] as const;
export const EventKind = StringEnum(EVENT_KINDS);

export const NotificationRequest = Type.Object({ notification_id: Type.String({ minLength: 1, maxLength: 200 }) });
examples(NotificationRequest, { notification_id: '5a0c6f0e-2f55-4f0b-8a8e-0b8f6c1d2e3f' });

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
      signers: Type.Array(NotificationSigner),
      original: Type.String({ description: 'Base64 of the PDF with every signature applied so far' }),
      hash: Type.String({ description: 'SHA-256 of the original, lower-case hex' }),
      ...ArchivalStateFields,
    }),
    { description: 'null for an event about a set alone' },
  ),
});
export type NotificationDocument = Static<typeof NotificationDocument>;
examples(NotificationDocument, {
  notification: {
    notification_id: '5a0c6f0e-2f55-4f0b-8a8e-0b8f6c1d2e3f',
    notification_type: 'document_rejected',
    document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
    document_set: null,
    created_at: '2026-11-22T02:52:15.248Z',
    meta: {
      signer: {
        signer_id: '75dd5827-0af9-48ce-bc38-bab518ec8e07',
        name: 'Ana',
        email: 'ana@example.com',
        authority: 'EMAIL_LINK',
        data: 'ana@example.com',
      },
      reason: 'The amount in clause 3 is wrong.',
    },
  },
  document: {
    document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
    name: 'Contract.pdf',
    status: 'rejected',
    signers: [
      {
        signer_id: '75dd5827-0af9-48ce-bc38-bab518ec8e07',
        name: 'Ana',
        email: 'ana@example.com',
        authority: 'EMAIL_LINK',
        data: 'ana@example.com',
        status: 'rejected',
        signer_fields: [],
      },
    ],
    original: 'JVBERi0xLjcK...',
    hash: '92353c918ece191a3f0747a7b8d87df5c94961b21aa699474df50ef495a84d0e',
    universal_rendition: null,
    nom151_stamps: null,
  },
});

export const SubscriptionRequest = Type.Object({ event: EventKind, url: Type.String({ format: 'uri', maxLength: 2048 }) });
examples(SubscriptionRequest, { event: 'document_completed', url: 'https://erp.example.com/hooks/sello' });

export const CreatedSubscription = Type.Object({
  id: Type.String(),
  event: EventKind,
  url: Type.String(),
  secret: Type.String({ description: 'whsec_...: the key of its webhook-signature headers; shown only here' }),
});
export type CreatedSubscription = Static<typeof CreatedSubscription>;
examples(CreatedSubscription, {
  id: '0f4b8a7e-1c2d-4e5f-9a8b-7c6d5e4f3a2b',
  event: 'document_completed',
  url: 'https://erp.example.com/hooks/sello',
  secret: 'whsec_uhlAMn1/cYDLFALxRpJjkA49LjtJu7N4kf+wnkcrD8Y=',
});

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
examples(SubscriptionList, {
  subscriptions: [
    {
      id: '0f4b8a7e-1c2d-4e5f-9a8b-7c6d5e4f3a2b',
      event: 'document_completed',
      url: 'https://erp.example.com/hooks/sello',
      status: 'active',
      disabled_reason: null,
      disabled_at: null,
      created_at: '2026-11-22T02:52:15.248Z',
    },
  ],
});

export const SubscriptionParams = Type.Object({ id: Type.String() });
export const DeletedSubscription = Type.Object({ id: Type.String(), status: Type.Literal('deleted') });
export type DeletedSubscription = Static<typeof DeletedSubscription>;
examples(DeletedSubscription, { id: '0f4b8a7e-1c2d-4e5f-9a8b-7c6d5e4f3a2b', status: 'deleted' });
