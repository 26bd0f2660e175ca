// The workflow of a standalone document and the correction of its signers (HMAC-authenticated).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../domain/deps.js';
import { updateDocumentWorkflow } from '../../domain/workflows/update-document-workflow.js';
import { updateSigner } from '../../domain/workflows/update-signer.js';
import { ErrorResponse, WorkflowSettingsSchema } from '../schemas.js';
import { asObject } from './documents.js';

// Bodies are checked by the use cases, whose messages name the field; the schemas document them.
const documentOnly = () => () => true;

export function workflowRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.post(
      '/api/:documentId/workflow',
      {
        schema: {
          summary: 'Set, change or cancel the workflow of a standalone document',
          description:
            'camelCase or snake_case keys; omitted keys keep their values. A document without a flow starts one (invitations go out). ' +
            'A running flow takes the new values from now on; `ordered` cannot change once someone signed (409). `cancel: true` cancels the flow.',
          tags: ['workflows'],
          security: [{ hmac: [] }],
          params: Type.Object({ documentId: Type.String({ description: 'document_ticket' }) }),
          body: WorkflowSettingsSchema,
          response: {
            200: Type.Object({
              status: Type.Literal('success'),
              document_ticket: Type.String(),
              document_status: Type.String(),
              workflow: Type.Object({}, { additionalProperties: true }),
              expires_at: Type.Union([Type.String(), Type.Null()]),
              ignored_keys: Type.Array(Type.String()),
            }),
            '4xx': ErrorResponse,
          },
        },
        validatorCompiler: documentOnly,
      },
      async (req) =>
        updateDocumentWorkflow(deps, {
          accountId: req.account!.id,
          ticket: (req.params as { documentId: string }).documentId,
          body: req.body === undefined || req.body === null ? {} : req.body,
          ip: req.ip,
        }),
    );

    app.post(
      '/api/:documentId/signer/:signerId/update',
      {
        schema: {
          summary: 'Correct a signer who has not signed (authority, data, name, email); the signing link is replaced',
          tags: ['workflows'],
          security: [{ hmac: [] }],
          params: Type.Object({
            documentId: Type.String({ description: 'document_ticket' }),
            signerId: Type.String({ description: 'signer_id (or a sticker_id of that signer)' }),
          }),
          body: Type.Object(
            {
              authority: Type.Optional(Type.String()),
              data: Type.Optional(Type.String()),
              name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
              email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
            },
            { additionalProperties: true },
          ),
          response: {
            200: Type.Object({
              status: Type.Literal('success'),
              signer: Type.Object(
                {
                  signer_id: Type.String(),
                  authority: Type.String(),
                  data: Type.String(),
                  name: Type.Union([Type.String(), Type.Null()]),
                  email: Type.Union([Type.String(), Type.Null()]),
                  status: Type.String(),
                  signer_url: Type.String(),
                },
                { additionalProperties: true },
              ),
              invited: Type.Boolean({ description: 'whether the corrected signer was invited again now' }),
            }),
            '4xx': ErrorResponse,
          },
        },
        validatorCompiler: documentOnly,
      },
      async (req) => {
        const p = req.params as { documentId: string; signerId: string };
        return updateSigner(deps, {
          accountId: req.account!.id,
          ticket: p.documentId,
          signerId: p.signerId,
          body: asObject(req.body),
          ip: req.ip,
        });
      },
    );
  };
}
