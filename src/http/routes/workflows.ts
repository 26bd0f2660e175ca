// The workflow of a standalone document and the correction of its signers (HMAC-authenticated).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { updateDocumentWorkflow } from '../../domain/workflows/update-document-workflow.js';
import { updateSigner } from '../../domain/workflows/update-signer.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  DocumentIdParams,
  DocumentWorkflowBody,
  SignerUpdateBody,
  SignerUpdateParams,
  SignerUpdateResult,
  WorkflowUpdateResult,
} from '../../schemas/workflows.js';

export function workflowRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/api/:documentId/workflow',
      {
        schema: {
          operationId: 'updateDocumentWorkflow',
          summary: 'Set, change or cancel the workflow of a standalone document',
          description:
            'camelCase or snake_case keys; omitted keys keep their values. A document without a flow starts one (invitations go out). ' +
            'A running flow takes the new values from now on; `ordered` cannot change once someone signed (409). `cancel: true` cancels the flow.',
          tags: ['workflows'],
          security: [{ hmac: [] }],
          params: DocumentIdParams,
          body: DocumentWorkflowBody,
          response: { 200: WorkflowUpdateResult, '4xx': ErrorResponse },
        },
      },
      async (req) =>
        updateDocumentWorkflow(deps, { accountId: req.account!.id, ticket: req.params.documentId, body: req.body, ip: req.ip }),
    );

    app.post(
      '/api/:documentId/signer/:signerId/update',
      {
        schema: {
          operationId: 'updateSigner',
          summary: 'Correct a signer who has not signed (authority, data, name, email); the signing link is replaced',
          tags: ['workflows'],
          security: [{ hmac: [] }],
          params: SignerUpdateParams,
          body: SignerUpdateBody,
          response: { 200: SignerUpdateResult, '4xx': ErrorResponse },
        },
      },
      async (req) =>
        updateSigner(deps, {
          accountId: req.account!.id,
          ticket: req.params.documentId,
          signerId: req.params.signerId,
          body: req.body,
          ip: req.ip,
        }),
    );
  };
}
