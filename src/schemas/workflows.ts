// Workflows: the settings of a document's or a set's flow (decisions.md "Workflow keys"), and the
// correction of a document's signers (routes/workflows.ts, routes/sets.ts).
import { type Static, Type } from '@sinclair/typebox';
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

/** The settings a document's workflow also takes in camelCase (decisions.md "Workflow keys"). */
const camelCaseSettings = {
  expirationDate: settings.expiration_date,
  remindEvery: settings.remind_every,
  attachFiles: settings.attach_files,
  conclusionEmails: settings.conclusion_emails,
};

const documentWorkflowOptions = {
  additionalProperties: true,
  description: 'snake_case or camelCase keys; unknown keys are ignored and listed in ignored_keys (warnings on create)',
};

/**
 * A document's workflow: each key also in camelCase (remindEvery). The dates and addresses are
 * checked by the use case (domain/documents/workflow-settings.ts): a calendar date, the house's
 * rule for an email address.
 */
export const DocumentWorkflowSettings = Type.Object({ ...settings, ...camelCaseSettings }, documentWorkflowOptions);
export type DocumentWorkflowSettings = Static<typeof DocumentWorkflowSettings>;
examples(DocumentWorkflowSettings, { remind_every: 3, expiration_date: '31/12/2026' }, { cancel: true });
// The same settings as the body of POST /api/{documentId}/workflow. checkedByUseCase: its errors
// name the key as `workflow.<key>`, as on create (docs/api.md), where the route's check of a bare
// body would name `<key>`; the use case runs DocumentWorkflowSettings with checkInput(…, 'workflow').
export const DocumentWorkflowBody = Type.Optional(
  Type.Object({ ...settings, ...camelCaseSettings }, { ...documentWorkflowOptions, ...checkedByUseCase }),
);
examples(DocumentWorkflowBody, { remind_every: 3, expiration_date: '31/12/2026' }, { cancel: true });

/** A set's workflow: snake_case only; any other key (camelCase included) is ignored and listed in ignored_keys. */
export const SetWorkflowSettings = Type.Object(settings, {
  additionalProperties: true,
  description: 'snake_case keys only; any other key (camelCase included) is ignored and listed in ignored_keys',
});
export type SetWorkflowSettings = Static<typeof SetWorkflowSettings>;
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
