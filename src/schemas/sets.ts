// Document sets: create, read, preload and remove signers, close, and adjust the running flow
// (routes/sets.ts).
import { type Static, Type } from '@sinclair/typebox';
import { AuthorityName, DateTime, Nullable, StringEnum } from './common.js';
import { SetWorkflowSettings, WorkflowSettings } from './workflows.js';

export const SET_STATUSES = ['OPEN', 'CLOSED', 'COMPLETED', 'REJECTED', 'EXPIRED', 'CANCELLED'] as const;
export const SetStatus = StringEnum(SET_STATUSES);

export const SetParams = Type.Object({ uuid: Type.String({ description: 'the uuid of a document set' }) });

export const CreateSetBody = Type.Optional(
  Type.Object(
    {
      name: Type.Optional(Type.String({ maxLength: 200 })),
      metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'any JSON object, at most 16 KiB' })),
    },
    { additionalProperties: true },
  ),
);
export const CreatedSet = Type.Object({ uuid: Type.String(), status: SetStatus, name: Type.String() });
export type CreatedSet = Static<typeof CreatedSet>;

/** A signer of a set: preloaded while OPEN, or found on its documents when it closed. */
export const SetSignerView = Type.Object({
  signer_id: Type.String(),
  authority: Type.String(),
  data: Type.String(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  position: Type.Integer(),
});
export type SetSignerView = Static<typeof SetSignerView>;

export const DocumentSet = Type.Object({
  uuid: Type.String(),
  name: Type.String(),
  status: SetStatus,
  metadata: Type.Unknown(),
  created_at: DateTime(),
  closed_at: Nullable(DateTime()),
  expires_at: Nullable(DateTime(), { description: "the flow's expiration, once closed" }),
  workflow: Nullable(WorkflowSettings, { description: "the set's workflow settings, once closed" }),
  signers: Type.Array(Type.Composite([SetSignerView, Type.Object({ status: Type.String() })]), {
    description: 'the set signers: preloaded while OPEN; everyone, in flow order, once closed',
  }),
  documents: Type.Array(
    Type.Object({
      document_ticket: Type.String(),
      name: Type.String(),
      status: Type.String({ description: 'draft while the set is OPEN' }),
      created_at: DateTime(),
      signers: Type.Array(
        Type.Object({
          signer_id: Type.String(),
          authority: Type.String(),
          data: Type.String(),
          name: Nullable(Type.String()),
          status: Type.String(),
        }),
      ),
    }),
  ),
});
export type DocumentSet = Static<typeof DocumentSet>;

export const AddSetSignerBody = Type.Object({
  authority: AuthorityName,
  data: Type.String(),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
});
export type AddSetSignerBody = Static<typeof AddSetSignerBody>;

export const SetSignerParams = Type.Object({ uuid: Type.String(), signerId: Type.String() });
export const RemovedSetSigner = Type.Object({ status: Type.Literal('deleted'), signer_id: Type.String() });
export type RemovedSetSigner = Static<typeof RemovedSetSigner>;

export const CloseSetBody = Type.Object({ documentSet: Type.String(), workflow: Type.Optional(SetWorkflowSettings) });

export const ClosedSet = Type.Object({
  status: Type.Literal('success'),
  uuid: Type.String(),
  set_status: Type.Literal('CLOSED'),
  expires_at: DateTime(),
  signers: Type.Array(
    Type.Object({
      signer_id: Type.String(),
      authority: Type.String(),
      data: Type.String(),
      name: Nullable(Type.String()),
      signer_url: Type.String({ description: 'the set link: /sign/set/{token}, for all the documents of this signer' }),
    }),
  ),
  ignored_keys: Type.Array(Type.String()),
});
export type ClosedSet = Static<typeof ClosedSet>;

export const SetWorkflowBody = Type.Optional(SetWorkflowSettings);

export const SetWorkflowResult = Type.Object({
  status: Type.Literal('success'),
  set_status: SetStatus,
  expires_at: Nullable(DateTime()),
  invitations_sent: Type.Integer(),
  ignored_keys: Type.Array(Type.String()),
});
export type SetWorkflowResult = Static<typeof SetWorkflowResult>;
