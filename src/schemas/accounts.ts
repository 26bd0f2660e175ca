// The account's own view through the API: what is left of its packages, the packages, and what it
// consumed (decisions.md "Accounts and packages"; routes/account.ts).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, examples } from './common.js';

export const PieceKindName = StringEnum(['documents', 'verifications', 'messages', 'stamps']);

const Remaining = (kind: string) =>
  Nullable(Type.Integer({ minimum: 0 }), { description: `${kind} left; null: no package of that kind, no limit` });

export const AccountSummary = Type.Object({
  web_id: Type.String(),
  name: Type.String(),
  remaining: Type.Object({
    documents: Remaining('documents'),
    verifications: Remaining('identity verifications'),
    messages: Remaining('SMS and WhatsApp messages'),
    stamps: Remaining('NOM-151 stamps'),
  }),
});
export type AccountSummary = Static<typeof AccountSummary>;
examples(AccountSummary, {
  web_id: 'k3Q9dXw2LmPz7TfA',
  name: 'Notaría 12',
  remaining: { documents: 412, verifications: null, messages: 95, stamps: null },
});

export const AccountPackage = Type.Object({
  id: Type.String(),
  kind: PieceKindName,
  pieces: Type.Integer({ description: 'pieces included' }),
  used: Type.Integer({ description: 'pieces used so far' }),
  valid_from: DateTime('first instant the package gives pieces'),
  valid_to: DateTime('the package gives no piece from this instant on'),
  ended_at: Type.Optional(DateTime('when the operator ended the package early')),
});

export type AccountPackage = Static<typeof AccountPackage>;
export const AccountPackages = Type.Array(AccountPackage);
export type AccountPackages = Static<typeof AccountPackages>;
examples(AccountPackages, [
  {
    id: '5d1f6a8e-0b7c-4f2e-9a55-3c1d2b4e6f70',
    kind: 'documents',
    pieces: 500,
    used: 88,
    valid_from: '2026-11-01T00:00:00.000Z',
    valid_to: '2027-11-01T00:00:00.000Z',
  },
]);

export const ConsumptionQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'epoch milliseconds, inclusive (default: 30 days before `to`)' })),
  to: Type.Optional(Type.String({ description: 'epoch milliseconds, exclusive (default now)' })),
});

const KindConsumption = Type.Object({
  total: Type.Integer(),
  channels: Type.Record(Type.String(), Type.Integer(), {
    description: "per channel: a document's origin (b64_doc, url_doc, template), a message's channel (sms, whatsapp), …",
  }),
});

export const ConsumptionReport = Type.Object({
  from: DateTime(),
  to: DateTime(),
  consumption: Type.Object({
    documents: KindConsumption,
    verifications: KindConsumption,
    messages: KindConsumption,
    stamps: KindConsumption,
  }),
});
export type ConsumptionReport = Static<typeof ConsumptionReport>;
examples(ConsumptionReport, {
  from: '2026-11-01T00:00:00.000Z',
  to: '2026-12-01T00:00:00.000Z',
  consumption: {
    documents: { total: 88, channels: { b64_doc: 70, template: 18 } },
    verifications: { total: 0, channels: {} },
    messages: { total: 0, channels: {} },
    stamps: { total: 0, channels: {} },
  },
});
