// Document sets: create, read, preload and remove signers, close (the flow starts), and adjust or
// cancel the running flow (POST /api/{uuid}/workflowSet).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../domain/deps.js';
import { createDocumentSet } from '../../domain/sets/create-set.js';
import { getDocumentSet } from '../../domain/sets/get-set.js';
import { addSetSigner } from '../../domain/sets/add-set-signer.js';
import { closeDocumentSet } from '../../domain/sets/close-set.js';
import { removeSetSigner } from '../../domain/sets/remove-set-signer.js';
import { updateSetWorkflow } from '../../domain/sets/update-set-workflow.js';
import { DocumentSetResponse, ErrorResponse } from '../schemas.js';
import { asObject } from './documents.js';

const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);

/** The workflow keys of a set (snake_case only; decisions.md "Workflow keys"). */
const SetWorkflow = Type.Object(
  {
    ordered: Type.Optional(Type.Boolean({ description: 'invite one set signer at a time, in set signer order' })),
    expiration_date: Type.Optional(Type.String({ description: 'dd/mm/yyyy (end of that day, account time zone) or ISO 8601' })),
    remind_every: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, description: 'days between reminders; 0 = never (default 2)' })),
    language: Type.Optional(Type.Union([Type.Literal('es'), Type.Literal('en')])),
    subject: Type.Optional(Type.String({ maxLength: 200 })),
    message: Type.Optional(Type.String({ maxLength: 5000 })),
    attach_files: Type.Optional(Type.Boolean()),
    conclusion_emails: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
    cancel: Type.Optional(Type.Boolean({ description: 'workflowSet only: cancels the set' })),
  },
  {
    additionalProperties: true,
    description: 'snake_case keys only; any other key (camelCase included) is ignored and listed in ignored_keys',
  },
);

const SetSigner = Type.Object({
  signer_id: Type.String(),
  authority: Type.String(),
  data: Type.String(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  position: Type.Integer(),
});

// Bodies are checked by the use cases, whose messages name the field; schemas document them.
const documentOnly = () => () => true;

export function setRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.post(
      '/api/documentset',
      {
        schema: {
          summary: 'Create an empty, OPEN document set',
          tags: ['sets'],
          security: [{ hmac: [] }],
          body: Type.Optional(
            Type.Object(
              {
                name: Type.Optional(Type.String({ maxLength: 200 })),
                metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
              },
              { additionalProperties: true },
            ),
          ),
          response: { 200: Type.Object({ uuid: Type.String(), status: Type.String(), name: Type.String() }), '4xx': ErrorResponse },
        },
        // The body is optional and checked by the use case, whose messages name the field.
        validatorCompiler: () => () => true,
      },
      async (req) => {
        const b = asObject(req.body);
        return createDocumentSet(deps, { accountId: req.account!.id, name: b.name, metadata: b.metadata });
      },
    );

    app.get(
      '/api/documentset/:uuid',
      {
        schema: {
          summary: 'A document set with its documents and their signers',
          tags: ['sets'],
          security: [{ hmac: [] }],
          params: Type.Object({ uuid: Type.String() }),
          response: { 200: DocumentSetResponse, '4xx': ErrorResponse },
        },
      },
      async (req) => getDocumentSet(deps, { accountId: req.account!.id, uuid: (req.params as { uuid: string }).uuid }),
    );

    app.post(
      '/api/documentset/:uuid/signer',
      {
        schema: {
          summary: 'Preload a signer for the whole set while it is OPEN (the same authority and data again returns the existing one)',
          tags: ['sets'],
          security: [{ hmac: [] }],
          params: Type.Object({ uuid: Type.String() }),
          body: Type.Object({
            authority: Type.String({ enum: ['EMAIL_LINK', 'EMAIL', 'SMS', 'WHATSAPP', 'SAT'] }),
            data: Type.String(),
            name: Type.Optional(Type.String({ maxLength: 200 })),
            email: Type.Optional(Type.String({ maxLength: 254 })),
          }),
          response: { 200: SetSigner, '4xx': ErrorResponse },
        },
        validatorCompiler: documentOnly,
      },
      async (req) =>
        addSetSigner(deps, { accountId: req.account!.id, uuid: (req.params as { uuid: string }).uuid, body: asObject(req.body) }),
    );

    app.delete(
      '/api/documentset/:uuid/signer/:signerId',
      {
        schema: {
          summary: 'Remove a preloaded signer while the set is OPEN',
          tags: ['sets'],
          security: [{ hmac: [] }],
          params: Type.Object({ uuid: Type.String(), signerId: Type.String() }),
          response: { 200: Type.Object({ status: Type.Literal('deleted'), signer_id: Type.String() }), '4xx': ErrorResponse },
        },
      },
      async (req) => {
        const p = req.params as { uuid: string; signerId: string };
        return removeSetSigner(deps, { accountId: req.account!.id, uuid: p.uuid, signerId: p.signerId });
      },
    );

    app.post(
      '/api/documentset/close',
      {
        schema: {
          summary: 'Close an OPEN set: its signers are fixed, its documents become pending and the invitations go out',
          tags: ['sets'],
          security: [{ hmac: [] }],
          body: Type.Object({ documentSet: Type.String(), workflow: Type.Optional(SetWorkflow) }),
          response: {
            200: Type.Object({
              status: Type.Literal('success'),
              uuid: Type.String(),
              set_status: Type.Literal('CLOSED'),
              expires_at: Type.String({ format: 'date-time' }),
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
            }),
            '4xx': ErrorResponse,
          },
        },
        validatorCompiler: documentOnly,
      },
      async (req) => closeDocumentSet(deps, { accountId: req.account!.id, body: asObject(req.body), ip: req.ip }),
    );

    app.post(
      '/api/:uuid/workflowSet',
      {
        schema: {
          summary: "Adjust or cancel a closed set's flow; every call restarts it (the invitation is sent again at once)",
          tags: ['sets'],
          security: [{ hmac: [] }],
          params: Type.Object({ uuid: Type.String({ description: 'the uuid of a document set (not a document id)' }) }),
          body: Type.Optional(SetWorkflow),
          response: {
            200: Type.Object({
              status: Type.Literal('success'),
              set_status: Type.String(),
              expires_at: Nullable(Type.String({ format: 'date-time' })),
              invitations_sent: Type.Integer(),
              ignored_keys: Type.Array(Type.String()),
            }),
            '4xx': ErrorResponse,
          },
        },
        validatorCompiler: documentOnly,
      },
      async (req) =>
        updateSetWorkflow(deps, {
          accountId: req.account!.id,
          uuid: (req.params as { uuid: string }).uuid,
          body: req.body ?? {},
          ip: req.ip,
        }),
    );
  };
}
