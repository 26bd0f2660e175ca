// Workflows: the settings of a document's or a set's flow (decisions.md "Workflow keys"), and the
// correction of a document's signers (routes/workflows.ts, routes/sets.ts).
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, TicketParam, checkedByUseCase } from './common.js';
import { examples } from './common.js';

const settings = {
  ordered: Type.Optional(Type.Boolean({ description: 'invite one signer at a time, in sticker (or set signer) order (default false)' })),
  expiration_date: Type.Optional(
    Type.String({ description: 'dd/mm/yyyy (end of that day, account time zone) or ISO 8601; default 30 days after start' }),
  ),
  remind_every: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, description: 'days between reminders; 0 never (default 2)' })),
  language: Type.Optional(StringEnum(['es', 'en'])),
  subject: Type.Optional(Type.String({ maxLength: 200 })),
  message: Type.Optional(Type.String({ maxLength: 5000 })),
  attach_files: Type.Optional(Type.Boolean({ description: 'the conclusion email carries the signed PDF (default false)' })),
  conclusion_emails: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
  cancel: Type.Optional(Type.Boolean({ description: 'cancel the flow' })),
};

/** Each value's rules left to the use case (see checkedByUseCase). */
function valuesCheckedByUseCase<T extends Record<string, TSchema>>(props: T): T {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, { ...v, ...checkedByUseCase }])) as unknown as T;
}

/**
 * A document's workflow: each key also in camelCase (remindEvery), which a schema cannot say
 * without listing every key twice, so the use case (domain/documents/workflow-settings.ts) checks
 * the values under either spelling, naming the key as sent, and lists unknown keys.
 */
export const DocumentWorkflowSettings = Type.Object(valuesCheckedByUseCase(settings), {
  additionalProperties: true,
  description: 'snake_case or camelCase keys; unknown keys are ignored and listed in ignored_keys (warnings on create)',
});
examples(DocumentWorkflowSettings, { remind_every: 3, expiration_date: '31/12/2026' }, { cancel: true });
export const DocumentWorkflowBody = Type.Optional(DocumentWorkflowSettings);

/** A set's workflow: snake_case only; any other key (camelCase included) is ignored and listed in ignored_keys. */
export const SetWorkflowSettings = Type.Object(settings, {
  additionalProperties: true,
  description: 'snake_case keys only; any other key (camelCase included) is ignored and listed in ignored_keys',
});
examples(SetWorkflowSettings, { remind_every: 1, expiration_date: '31/12/2026' });

/** The workflow settings as stored and answered: snake_case keys only, values checked. */
export const WorkflowSettings = Type.Object(settings);
export type WorkflowSettings = Static<typeof WorkflowSettings>;

export const DocumentIdParams = Type.Object({ documentId: TicketParam() });

export const WorkflowUpdateResult = Type.Object({
  status: Type.Literal('success'),
  document_ticket: Type.String(),
  document_status: Type.String(),
  workflow: WorkflowSettings,
  expires_at: Nullable(DateTime()),
  ignored_keys: Type.Array(Type.String()),
});
export type WorkflowUpdateResult = Static<typeof WorkflowUpdateResult>;
examples(WorkflowUpdateResult, {
  status: 'success',
  document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
  document_status: 'pending',
  workflow: { remind_every: 3, expiration_date: '31/12/2026' },
  expires_at: '2027-01-01T05:59:59.999Z',
  ignored_keys: [],
});

export const SignerUpdateParams = Type.Object({
  documentId: TicketParam(),
  signerId: Type.String({ description: 'signer_id (or a sticker_id of that signer)' }),
});

export const SignerUpdateBody = Type.Object(
  {
    authority: Type.Optional(Type.String()),
    data: Type.Optional(Type.String()),
    name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    email: Type.Optional(Nullable(Type.String({ maxLength: 254 }))),
  },
  { additionalProperties: true, description: 'at least one key; the authority and data are checked together as on create' },
);
export type SignerUpdateBody = Static<typeof SignerUpdateBody>;
examples(SignerUpdateBody, { data: 'bruno@example.com', name: 'Bruno' });

export const SignerUpdateResult = Type.Object({
  status: Type.Literal('success'),
  signer: Type.Object({
    signer_id: Type.String(),
    authority: Type.String(),
    data: Type.String(),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    status: Type.String(),
    signer_url: Type.String({ description: 'the new personal signing link; the old one no longer opens' }),
  }),
  invited: Type.Boolean({ description: 'whether the corrected signer was invited again now' }),
});
export type SignerUpdateResult = Static<typeof SignerUpdateResult>;
examples(SignerUpdateResult, {
  status: 'success',
  invited: true,
  signer: {
    signer_id: 'e5170200-5785-4d56-a8d0-99fde182bf52',
    authority: 'EMAIL_LINK',
    data: 'bruno@example.com',
    name: 'Bruno',
    email: 'bruno@example.com',
    status: 'invited',
    signer_url: 'https://sign.example.com/sign/YuxnKuNawWeuvm24wnjj4QcbUs9z7mWI8AiT2sF9RSI',
  },
});

/** The token of a conclusion email's download link. */
export const DownloadLinkParams = Type.Object({ token: Type.String() });
