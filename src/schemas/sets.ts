// Document sets: create, read, preload and remove signers, close, and adjust the running flow
// (routes/sets.ts).
import { type Static, Type } from '@sinclair/typebox';
import { AuthorityName, DateTime, Nullable, StringEnum } from './common.js';
import { examples } from './common.js';
import { ArchivalStateFields } from './documents.js';
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
export type CreateSetBody = Static<typeof CreateSetBody>;
examples(CreateSetBody, { name: 'Onboarding', metadata: { crm: 42 } });
export const CreatedSet = Type.Object({ uuid: Type.String(), status: SetStatus, name: Type.String() });
export type CreatedSet = Static<typeof CreatedSet>;
examples(CreatedSet, { uuid: '664a6790-db83-4db0-bc94-2e313049a434', status: 'OPEN', name: 'Onboarding' });

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
examples(SetSignerView, {
  signer_id: '5b0f0b8e-2d4e-4f7c-9a51-0f3f7d1c2a10',
  authority: 'EMAIL_LINK',
  data: 'ana@example.com',
  name: 'Ana García',
  email: 'ana@example.com',
  position: 0,
});

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
      ...ArchivalStateFields,
    }),
  ),
});
export type DocumentSet = Static<typeof DocumentSet>;
examples(DocumentSet, {
  uuid: '664a6790-db83-4db0-bc94-2e313049a434',
  name: 'Onboarding',
  status: 'OPEN',
  metadata: { crm: 42 },
  created_at: '2026-11-22T02:52:15.301Z',
  closed_at: null,
  expires_at: null,
  workflow: null,
  signers: [
    {
      signer_id: '5b0f0b8e-2d4e-4f7c-9a51-0f3f7d1c2a10',
      authority: 'EMAIL_LINK',
      data: 'ana@example.com',
      name: 'Ana',
      email: 'ana@example.com',
      status: 'pending',
      position: 0,
    },
  ],
  documents: [
    {
      document_ticket: '0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7',
      name: 'document.pdf',
      status: 'draft',
      created_at: '2026-11-22T02:53:01.112Z',
      signers: [
        {
          signer_id: '11ba7747-4f38-4fca-8ccd-53b7969b61fc',
          authority: 'EMAIL_LINK',
          data: 'ana@example.com',
          name: null,
          status: 'pending',
        },
      ],
      universal_rendition: null,
      nom151_stamps: null,
    },
  ],
});

export const AddSetSignerBody = Type.Object({
  authority: AuthorityName,
  data: Type.String(),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
});
export type AddSetSignerBody = Static<typeof AddSetSignerBody>;
examples(AddSetSignerBody, { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García' });

export const SetSignerParams = Type.Object({ uuid: Type.String(), signerId: Type.String() });
export const RemovedSetSigner = Type.Object({ status: Type.Literal('deleted'), signer_id: Type.String() });
export type RemovedSetSigner = Static<typeof RemovedSetSigner>;
examples(RemovedSetSigner, { status: 'deleted', signer_id: '5b0f0b8e-2d4e-4f7c-9a51-0f3f7d1c2a10' });

export const CloseSetBody = Type.Object({
  documentSet: Type.String({ minLength: 1, description: 'the uuid of an OPEN document set' }),
  workflow: Type.Optional(SetWorkflowSettings),
});
export type CloseSetBody = Static<typeof CloseSetBody>;
examples(CloseSetBody, {
  documentSet: '664a6790-db83-4db0-bc94-2e313049a434',
  workflow: { ordered: true, expiration_date: '31/12/2026', attach_files: true },
});

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
examples(ClosedSet, {
  status: 'success',
  uuid: '664a6790-db83-4db0-bc94-2e313049a434',
  set_status: 'CLOSED',
  expires_at: '2027-01-01T05:59:59.999Z',
  signers: [
    {
      signer_id: '5b0f0b8e-2d4e-4f7c-9a51-0f3f7d1c2a10',
      authority: 'EMAIL_LINK',
      data: 'ana@example.com',
      name: 'Ana García',
      signer_url: 'https://sign.example.com/sign/set/Jx3K9pQe8vT2mL5nR7sW1yB4cD6fG0hJ',
    },
    {
      signer_id: 'c2d9a1f4-7e3b-4a6d-8f0c-5b9e2d7a1c34',
      authority: 'EMAIL_LINK',
      data: 'bruno@example.com',
      name: 'Bruno',
      signer_url: 'https://sign.example.com/sign/set/Qe8vT2mL5nR7sW1yB4cD6fG0hJx3K9pA',
    },
  ],
  ignored_keys: [],
});

export const SetWorkflowBody = Type.Optional(SetWorkflowSettings);

export const SetWorkflowResult = Type.Object({
  status: Type.Literal('success'),
  set_status: SetStatus,
  expires_at: Nullable(DateTime()),
  invitations_sent: Type.Integer(),
  ignored_keys: Type.Array(Type.String()),
});
export type SetWorkflowResult = Static<typeof SetWorkflowResult>;
examples(SetWorkflowResult, {
  status: 'success',
  set_status: 'CLOSED',
  expires_at: '2027-01-01T05:59:59.999Z',
  invitations_sent: 2,
  ignored_keys: [],
});
