// The panel's "resend the invitation": the signer gets their invitation again now, exactly as a due
// reminder sends it (workflows/send-reminder.ts: inviteSigner with reminder: true, which also
// re-schedules the next reminder from now). Only where a reminder could go: a running flow of a
// standalone document, a signer who still has to act and whose turn has come (was invited).
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findFlowDocument, flowSigners } from '../../store/workflow-repo.js';
import { isOpen } from '../workflows/invite-due.js';
import { inviteSigner } from '../workflows/invite-signer.js';

export interface ResentInvitation {
  document_ticket: string;
  signer_id: string;
  sent_at: string;
}

export async function resendInvitation(deps: Deps, o: { accountId: string; ticket: string; signerId: string }): Promise<ResentInvitation> {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await findFlowDocument(trx, { accountId: o.accountId, ticket: o.ticket }, true);
    if (!doc) {
      throw new AppError('DOCUMENT_NOT_FOUND', `no document ${o.ticket}`);
    }
    if (doc.set_id) {
      throw new AppError('WORKFLOW_NOT_CHANGEABLE', "the document belongs to a document set: its invitations are the set's");
    }
    if (doc.status === 'deleted') {
      throw new AppError('DOCUMENT_DELETED', 'the document is deleted; restore it first');
    }
    if (doc.status !== 'pending' || !doc.flow_started_at) {
      throw new AppError(
        'WORKFLOW_NOT_CHANGEABLE',
        doc.status === 'pending'
          ? 'the document has no workflow: the service sends no invitations for it'
          : `the document is ${doc.status}`,
        { status: doc.status },
      );
    }
    const signer = (await flowSigners(trx, doc.id)).find((s) => s.signer_id === o.signerId);
    if (!signer) {
      throw new AppError('SIGNER_NOT_FOUND', `no signer ${o.signerId} on document ${o.ticket}`);
    }
    if (!isOpen(signer.status)) {
      throw new AppError('SIGNER_NOT_EDITABLE', `the signer has already ${signer.status === 'signed' ? 'signed' : 'rejected'}`, {
        status: signer.status,
      });
    }
    // In an ordered flow a later signer is invited when their turn comes, not before.
    if (!signer.invited_at) {
      throw new AppError('SIGNER_NOT_EDITABLE', 'the signer has not been invited yet: their turn has not come', { status: signer.status });
    }
    await inviteSigner(trx, deps, { document: doc, signer, reminder: true });
    return { document_ticket: doc.ticket, signer_id: signer.signer_id, sent_at: deps.clock.now().toISOString() };
  });
}
