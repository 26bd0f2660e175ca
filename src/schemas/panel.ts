// The account panel's requests and answers (/panel/api, http/panel/): the one definition the
// routes validate and serialise with and the panel's page (web/src/panel/api.ts) takes its types
// from. Where the panel calls a use case of the HMAC API it takes and answers that operation's own
// shapes, imported here from the API's schemas; the rest is the panel's own. Hidden from the
// OpenAPI document: the panel is not part of the integrators' API (docs/api.md "The account panel").
import { type Static, Type } from '@sinclair/typebox';
import { AccountPackages, AccountSummary, ConsumptionReport } from './accounts.js';
import { DateTime, Nullable, StringEnum } from './common.js';
import { CreateDocumentBody, DocumentListing, DocumentListQuery, FILE_TYPES } from './documents.js';
import { EventKind, SubscriptionList } from './events.js';
import { DocumentHistory } from './report.js';
import { DeliveryListQuery } from './webhook-deliveries.js';

// --- signing in

export const PanelLinkRequest = Type.Object({ email: Type.String({ maxLength: 254 }), language: Type.Optional(StringEnum(['es', 'en'])) });
export const PanelLinkSent = Type.Object({
  sent: Type.Literal(true, { description: 'the same answer whether or not the address is a user' }),
});
export const PanelSignInBody = Type.Object({ token: Type.String({ maxLength: 200, description: "the sign-in link's token" }) });
export const PanelSignedIn = Type.Object({ signed_in: Type.Literal(true), expires_at: DateTime('when the session ends, however active') });

export const PanelSessionView = Type.Object({
  email: Type.String(),
  account: Type.Object({
    web_id: Type.String(),
    name: Type.String(),
    time_zone: Type.String({ description: "the account's IANA time zone: times are shown in it, an expiration date ends a day there" }),
  }),
  csrf_token: Type.String({ description: 'sent back in X-CSRF-Token with every change' }),
  expires_at: DateTime(),
  idle_expires_at: DateTime('when the session ends if nothing is asked before'),
});
export type PanelSessionView = Static<typeof PanelSessionView>;

// --- documents

export const PanelDocumentQuery = Type.Object({
  ...DocumentListQuery.properties,
  q: Type.Optional(Type.String({ maxLength: 200, description: "text in the document's name or a signer's name or email" })),
  status: Type.Optional(Type.String({ description: 'one of the document states; empty: any' })),
});
export const PanelTicketParams = Type.Object({ ticket: Type.String() });
export const PanelFileParams = Type.Object({ ticket: Type.String(), type: StringEnum(FILE_TYPES) });
export const PanelStampParams = Type.Object({ ticket: Type.String(), hash: Type.String() });
export const PanelSignerParams = Type.Object({ ticket: Type.String(), signerId: Type.String() });
export const PanelDocumentActionParams = Type.Object({ ticket: Type.String(), action: StringEnum(['delete', 'restore']) });

export const PanelDocumentPage = Type.Object({
  document: DocumentListing.properties.documents.items,
  history: DocumentHistory,
  workflow: Type.Object({
    started: Type.Boolean({ description: 'whether the service runs the flow' }),
    in_set: Type.Boolean(),
    expires_at: Nullable(DateTime()),
    time_zone: Type.String({ description: "the account's, where a new expiration date ends a day" }),
  }),
  people: Type.Record(Type.String(), Type.String(), { description: 'each history actor `signer:<signer_id>` in words' }),
});
export type PanelDocumentPage = Static<typeof PanelDocumentPage>;

export const PanelResentInvitation = Type.Object({ document_ticket: Type.String(), signer_id: Type.String(), sent_at: DateTime() });
export type PanelResentInvitation = Static<typeof PanelResentInvitation>;

// --- sets and templates

export const PanelSetQuery = Type.Object({
  q: Type.Optional(Type.String({ description: "text in the set's name, or its whole uuid" })),
  status: Type.Optional(Type.String({ description: 'one of the set states; empty: any' })),
  from: Type.Optional(Type.String({ description: 'epoch milliseconds of creation, inclusive' })),
  to: Type.Optional(Type.String({ description: 'epoch milliseconds of creation, inclusive' })),
  limit: Type.Optional(Type.String({ description: '1..100, default 50' })),
  nextToken: Type.Optional(Type.String()),
});
export type PanelSetQuery = Static<typeof PanelSetQuery>;
export const PanelSetParams = Type.Object({ uuid: Type.String({ maxLength: 100 }) });

export const PanelSetList = Type.Object({
  sets: Type.Array(
    Type.Object({
      uuid: Type.String(),
      name: Type.String(),
      status: Type.String(),
      created_at: DateTime(),
      closed_at: Nullable(DateTime()),
      expires_at: Nullable(DateTime()),
      documents: Type.Integer({ description: 'how many documents' }),
    }),
  ),
  nextToken: Type.Optional(Type.String({ description: 'absent on the last page' })),
});
export type PanelSetList = Static<typeof PanelSetList>;

export const PanelTemplateParams = Type.Object({ name: Type.String({ maxLength: 200 }) });
/** The values of a trial generation: the template origin's `fields` and `tables` of POST /developers/json. */
export const PanelTemplateTrialBody = Type.Object({
  fields: CreateDocumentBody.properties.fields,
  tables: CreateDocumentBody.properties.tables,
});
export const PanelTemplateTrial = Type.Object({
  name: Type.String(),
  warnings: Type.Array(Type.String()),
  pdf: Type.String({ description: 'the generated PDF, Base64' }),
});

// --- API keys

export const PanelKeyParams = Type.Object({ id: Type.String() });
export const PanelKeyList = Type.Object({
  keys: Type.Array(Type.Object({ id: Type.String(), active: Type.Boolean(), created_at: DateTime() })),
  max_active: Type.Integer(),
});
export const PanelNewKey = Type.Object({ id: Type.String(), api_key: Type.String({ description: 'shown this once' }) });
export const PanelRotatedKey = Type.Object({
  ...PanelNewKey.properties,
  replaced: Type.String({ description: 'the id of the key it stops' }),
});
export const PanelRevokedKey = Type.Object({ id: Type.String(), active: Type.Literal(false) });

// --- webhook

export const PanelWebhook = Type.Object({ url: Nullable(Type.String()), secret_set: Type.Boolean() });
export const PanelWebhookUrlBody = Type.Object({ url: Type.String({ maxLength: 2000 }) });
export const PanelWebhookSecret = Type.Object({ url: Type.String(), secret: Type.String({ description: 'shown this once' }) });
/** The API's query of the delivery log, but an empty state (the page's "any") is no filter. */
export const PanelDeliveryQuery = Type.Object({
  ...DeliveryListQuery.properties,
  state: Type.Optional(Type.String({ description: 'one of the delivery states; empty: any' })),
});
export const PanelTestEvent = Type.Object({
  url: Type.String(),
  notification_id: Type.String(),
  delivered: Type.Boolean(),
  status: Nullable(Type.Integer(), { description: "the receiver's HTTP status; null when it did not answer" }),
  error: Nullable(Type.String()),
});
export const PanelSubscriptions = Type.Object({
  ...SubscriptionList.properties,
  event_kinds: Type.Array(EventKind, { description: 'the kinds a subscription may name' }),
});

// --- usage

export const PanelUsage = Type.Object({
  remaining: AccountSummary.properties.remaining,
  packages: AccountPackages,
  months: Type.Array(ConsumptionReport, { description: 'the last six calendar months (UTC), oldest first' }),
});
