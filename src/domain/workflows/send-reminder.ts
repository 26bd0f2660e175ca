// A reminder falls due (job workflow_remind): the signer gets the invitation again, marked as a
// reminder, if they still have to act, the flow is still running, and the reminder is really due
// by the service's clock (a changed remind_every or a restarted flow re-schedules it).
import type { Deps } from '../deps.js';
import { findFlowDocument, flowSigners } from '../../store/workflow-repo.js';
import { effectiveWorkflow } from './effective-workflow.js';
import { isOpen } from './invite-due.js';
import { inviteSigner } from './invite-signer.js';

export async function runDocumentReminder(deps: Deps, o: { documentId: string; signerRowId: string; dueAt?: string }): Promise<'sent' | 'skipped'> {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await findFlowDocument(trx, { id: o.documentId }, true);
    if (!doc || doc.status !== 'pending' || !doc.flow_started_at || doc.set_id) {
      return 'skipped';
    }
    const signer = (await flowSigners(trx, doc.id)).find((s) => s.id === o.signerRowId);
    const wf = effectiveWorkflow(doc.workflow);
    if (!signer || !isOpen(signer.status) || !signer.invited_at || wf.remindEveryDays <= 0) {
      return 'skipped';
    }
    // Scheduled jobs are replaced by key when the schedule changes; this guards the one that was
    // already running at that moment, and a clock that is behind the database's.
    if (o.dueAt && deps.clock.now().getTime() < Date.parse(o.dueAt) - 60_000) {
      return 'skipped';
    }
    await inviteSigner(trx, deps, { document: doc, signer, reminder: true });
    return 'sent';
  });
}
