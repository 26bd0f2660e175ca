// Endorsements of completed documents (decisions.md "Endorsements"; docs/api.md "Endorsements").
import { type Static, Type } from '@sinclair/typebox';
import { AuthorityName, DateTime, Nullable, Rect, StringEnum, TicketParam, checkedByUseCase, examples } from './common.js';

const EndorsementType = StringEnum(['propiedad', 'procuracion', 'garantia'], {
  description: 'propiedad (ownership passes), procuracion (a mandate to collect), garantia (as a pledge)',
});

export const EndorseParams = Type.Object({ ticket: TicketParam() });

const EndorsementText = (description: string) =>
  Type.Object(
    {
      type: EndorsementType,
      text: Type.String({ description: 'the endorsement as it is written, 1 to 1,000 characters' }),
    },
    { description },
  );

const EndorseParties = {
  endorser: Type.Object({
    name: Type.String(),
    authority: AuthorityName,
    data: Type.String({ description: 'what identifies the endorser for the authority: email, E.164 phone or RFC' }),
  }),
  endorsee: Type.Object({
    name: Type.String(),
    email: Type.Optional(Type.String({ description: 'how the endorsee is recognized when they endorse next (EMAIL, EMAIL_LINK)' })),
    rfc: Type.Optional(
      Type.String({ description: 'how the endorsee is recognized when they endorse next (SAT); email or rfc is required' }),
    ),
  }),
  page: Type.Optional(Type.Integer({ description: '0-based page of the endorsement box; default: the last page' })),
  rect: Type.Optional(Rect),
};

// The public JavaScript and PHP clients of the original service spell the key `endorsment`
// (decisions.md "Paths"): either spelling, never both (400 naming `endorsement`).
// checkedByUseCase: a union's errors name neither the spelling sent (`endorsment.type`) nor the
// rule "not both"; the use case (parse-endorsement.ts) checks it field by field, naming each.
export const EndorseBody = Type.Union(
  [
    Type.Object({ endorsement: EndorsementText('what the endorsement says'), ...EndorseParties }),
    Type.Object({
      endorsment: EndorsementText("the same as endorsement, spelled as the original service's public clients send it"),
      ...EndorseParties,
    }),
  ],
  {
    ...checkedByUseCase,
    description: 'rules and messages: docs/api.md "Endorsements"; the endorsement under `endorsement` or `endorsment`, not both',
  },
);
examples(EndorseBody, {
  endorsement: { type: 'propiedad', text: 'Páguese a la orden de Beatriz Gómez' },
  endorser: { name: 'Ana Pérez', authority: 'EMAIL', data: 'ana@example.com' },
  endorsee: { name: 'Beatriz Gómez', email: 'beatriz@example.com' },
});

export const CreatedEndorsement = Type.Object({
  endorsement_id: Type.String(),
  signer_url: Type.String({ description: "the endorser's signing link: hand it to them; no email is sent" }),
  sequence: Type.Integer({ description: "the endorsement's place in the document's chain, from 1" }),
});
export type CreatedEndorsement = Static<typeof CreatedEndorsement>;
examples(CreatedEndorsement, {
  endorsement_id: '7c0e5a52-5d5b-4f0e-9a57-3d3f4f3e1b21',
  signer_url: 'http://localhost:3000/sign/Hq3r1bGm0yG9pYt1m0aJ0G4y1V2s3d4f5g6h7j8k9l0',
  sequence: 1,
});

const Party = Type.Object({ name: Type.String(), email: Nullable(Type.String()), rfc: Nullable(Type.String()) });

export const EndorsementEntry = Type.Object({
  endorsement_id: Type.String(),
  sequence: Type.Integer(),
  type: EndorsementType,
  text: Type.String(),
  endorser: Type.Object({ name: Type.String(), authority: Type.String(), data: Type.String(), signer_id: Type.String() }),
  endorsee: Party,
  status: StringEnum(['pending', 'signed', 'declined', 'withdrawn'], {
    description: 'pending: the endorser has not signed; declined: they refused; withdrawn: the account withdrew it before',
  }),
  created_at: DateTime(),
  signed_at: Nullable(DateTime()),
  declined_at: Nullable(DateTime()),
  withdrawn_at: Nullable(DateTime()),
  withdrawal_reason: Nullable(Type.String({ description: "the account's note when it withdrew the endorsement, if it gave one" })),
});
export type EndorsementEntry = Static<typeof EndorsementEntry>;
examples(EndorsementEntry, {
  endorsement_id: '9a4d2c11-3b7e-4f59-8c1a-6e5f4d3c2b10',
  sequence: 2,
  type: 'propiedad',
  text: 'Páguese a la orden de Carla Ruiz',
  endorser: { name: 'Beatriz Gómez', authority: 'EMAIL', data: 'beatriz@example.com', signer_id: '5e1d9c7a-0f3b-4a2e-9d8c-7b6a5f4e3d21' },
  endorsee: { name: 'Carla Ruiz', email: 'carla@example.com', rfc: null },
  status: 'withdrawn',
  created_at: '2026-01-12T10:00:00.000Z',
  signed_at: null,
  declined_at: null,
  withdrawn_at: '2026-01-12T10:20:00.000Z',
  withdrawal_reason: 'Sent to the wrong endorsee',
});

export const WithdrawEndorsementParams = Type.Object({
  ticket: TicketParam(),
  endorsement_id: Type.String({ description: 'the endorsement_id the endorsement was created with' }),
});

export const WITHDRAWAL_REASON_MAX = 500;

export const WithdrawEndorsementBody = Type.Optional(
  Type.Object(
    {
      reason: Type.Optional(
        Nullable(
          Type.String({
            maxLength: WITHDRAWAL_REASON_MAX,
            description: `why it is withdrawn, 1 to ${WITHDRAWAL_REASON_MAX} characters: the account's own note, never shown to the endorser`,
          }),
        ),
      ),
    },
    { description: 'optional; rules and messages: docs/api.md "Withdrawing an endorsement"' },
  ),
);
export type WithdrawEndorsementBody = Static<typeof WithdrawEndorsementBody>;
examples(WithdrawEndorsementBody, { reason: 'Sent to the wrong endorsee' });

export const EndorsementChain = Type.Object({
  endorsements: Type.Array(EndorsementEntry, { description: 'in the order they were asked for' }),
  holder: Nullable(Party, { description: 'the endorsee of the last signed endorsement; null before the first' }),
});
export type EndorsementChain = Static<typeof EndorsementChain>;
examples(EndorsementChain, {
  endorsements: [
    {
      endorsement_id: '7c0e5a52-5d5b-4f0e-9a57-3d3f4f3e1b21',
      sequence: 1,
      type: 'propiedad',
      text: 'Páguese a la orden de Beatriz Gómez',
      endorser: { name: 'Ana Pérez', authority: 'EMAIL', data: 'ana@example.com', signer_id: '0b6f3f4e-2a44-4e0b-8d7e-1b2c3d4e5f60' },
      endorsee: { name: 'Beatriz Gómez', email: 'beatriz@example.com', rfc: null },
      status: 'signed',
      created_at: '2026-01-10T16:00:00.000Z',
      signed_at: '2026-01-10T16:05:00.000Z',
      declined_at: null,
      withdrawn_at: null,
      withdrawal_reason: null,
    },
  ],
  holder: { name: 'Beatriz Gómez', email: 'beatriz@example.com', rfc: null },
});
