// The panel's actions on one document, each through the use case of the HMAC API that does the same
// (docs/api.md "The account panel"): resend an invitation (what a due reminder sends), change or
// cancel the workflow (POST /api/{documentId}/workflow), correct a signer (POST
// /api/{documentId}/signer/{signerId}/update), delete and restore (POST /developers/docs). The
// session's account scopes each; the CSRF check is the hook's in index.ts.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { deleteOrRestoreDocument } from '../../domain/documents/delete-or-restore.js';
import { resendInvitation } from '../../domain/panel/resend-invitation.js';
import { updateDocumentWorkflow } from '../../domain/workflows/update-document-workflow.js';
import { updateSigner } from '../../domain/workflows/update-signer.js';
import { asObject } from '../routes/documents.js';
import { sessionOf } from './session-of.js';

const TicketParams = Type.Object({ ticket: Type.String() });
const SignerParams = Type.Object({ ticket: Type.String(), signerId: Type.String() });
const ActionParams = Type.Object({ ticket: Type.String(), action: Type.Union([Type.Literal('delete'), Type.Literal('restore')]) });

export function panelDocumentActionRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.post('/panel/api/documents/:ticket/signers/:signerId/resend', { schema: { hide: true, params: SignerParams } }, async (req) => {
      const p = req.params as { ticket: string; signerId: string };
      return resendInvitation(deps, { accountId: sessionOf(req).account_id, ticket: p.ticket, signerId: p.signerId });
    });

    app.post('/panel/api/documents/:ticket/signers/:signerId/update', { schema: { hide: true, params: SignerParams } }, async (req) => {
      const p = req.params as { ticket: string; signerId: string };
      return updateSigner(deps, {
        accountId: sessionOf(req).account_id,
        ticket: p.ticket,
        signerId: p.signerId,
        body: asObject(req.body),
        ip: req.ip,
      });
    });

    app.post('/panel/api/documents/:ticket/workflow', { schema: { hide: true, params: TicketParams } }, async (req) =>
      updateDocumentWorkflow(deps, {
        accountId: sessionOf(req).account_id,
        ticket: (req.params as { ticket: string }).ticket,
        body: asObject(req.body),
        ip: req.ip,
      }),
    );

    app.post('/panel/api/documents/:ticket/:action', { schema: { hide: true, params: ActionParams } }, async (req) => {
      const p = req.params as { ticket: string; action: 'delete' | 'restore' };
      return deleteOrRestoreDocument(deps, { accountId: sessionOf(req).account_id, ticket: p.ticket, action: p.action, ip: req.ip });
    });
  };
}
