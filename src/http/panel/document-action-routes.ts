// The panel's actions on one document, each through the use case of the HMAC API that does the same
// (docs/api.md "The account panel"): resend an invitation (what a due reminder sends), change or
// cancel the workflow (POST /api/{documentId}/workflow), correct a signer (POST
// /api/{documentId}/signer/{signerId}/update), delete and restore (POST /developers/docs). The
// bodies passed on are those operations' bodies, checked by the same schemas. The session's account
// scopes each; the CSRF check is the hook's in index.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { deleteOrRestoreDocument } from '../../domain/documents/delete-or-restore.js';
import { resendInvitation } from '../../domain/panel/resend-invitation.js';
import { updateDocumentWorkflow } from '../../domain/workflows/update-document-workflow.js';
import { updateSigner } from '../../domain/workflows/update-signer.js';
import { ErrorResponse, NoBody } from '../../schemas/common.js';
import { DeleteOrRestoreResult } from '../../schemas/documents.js';
import { PanelDocumentActionParams, PanelResentInvitation, PanelSignerParams, PanelTicketParams } from '../../schemas/panel.js';
import { DocumentWorkflowBody, SignerUpdateBody, SignerUpdateResult, WorkflowUpdateResult } from '../../schemas/workflows.js';
import { sessionOf } from './session-of.js';

export function panelDocumentActionRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const resend = { hide: true, params: PanelSignerParams, body: NoBody, response: { 200: PanelResentInvitation, '4xx': ErrorResponse } };
    app.post('/panel/api/documents/:ticket/signers/:signerId/resend', { schema: resend }, async (req) =>
      resendInvitation(deps, { accountId: sessionOf(req).account_id, ticket: req.params.ticket, signerId: req.params.signerId }),
    );

    const signer = {
      hide: true,
      params: PanelSignerParams,
      body: SignerUpdateBody,
      response: { 200: SignerUpdateResult, '4xx': ErrorResponse },
    };
    app.post('/panel/api/documents/:ticket/signers/:signerId/update', { schema: signer }, async (req) =>
      updateSigner(deps, {
        accountId: sessionOf(req).account_id,
        ticket: req.params.ticket,
        signerId: req.params.signerId,
        body: req.body,
        ip: req.ip,
      }),
    );

    const workflow = {
      hide: true,
      params: PanelTicketParams,
      body: DocumentWorkflowBody,
      response: { 200: WorkflowUpdateResult, '4xx': ErrorResponse },
    };
    app.post('/panel/api/documents/:ticket/workflow', { schema: workflow }, async (req) =>
      updateDocumentWorkflow(deps, { accountId: sessionOf(req).account_id, ticket: req.params.ticket, body: req.body ?? {}, ip: req.ip }),
    );

    const action = {
      hide: true,
      params: PanelDocumentActionParams,
      body: NoBody,
      response: { 200: DeleteOrRestoreResult, '4xx': ErrorResponse },
    };
    app.post('/panel/api/documents/:ticket/:action', { schema: action }, async (req) =>
      deleteOrRestoreDocument(deps, {
        accountId: sessionOf(req).account_id,
        ticket: req.params.ticket,
        action: req.params.action,
        ip: req.ip,
      }),
    );
  };
}
