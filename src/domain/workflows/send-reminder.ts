// A reminder falls due (job workflow_remind): the signer gets the invitation again, marked as a
// reminder, if they still have to act, the flow is still running, and the reminder is really due
// by the service's clock (a changed remind_every or a restarted flow re-schedules it).
import type { Deps } from '../deps.js';
import { findFlowDocument, flowSigners, waitsForEarlierSigner } from '../../store/workflow-repo.js';
import { effectiveWorkflow } from './effective-workflow.js';
import { isOpen } from './invite-due.js';
import { inviteSigner, rescheduleReminder, scheduleReminder } from './invite-signer.js';

export async function runDocumentReminder(
  deps: Deps,
  o: { documentId: string; signerRowId: string; dueAt?: string },
): Promise<'sent' | 'skipped'> {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await findFlowDocument(trx, { id: o.documentId }, true);
    if (doc?.status !== 'pending' || !doc.flow_started_at || doc.set_id) {
      return 'skipped';
    }
    const signer = (await flowSigners(trx, doc.id)).find((s) => s.id === o.signerRowId);
    const wf = effectiveWorkflow(doc.workflow);
    if (!signer || !isOpen(signer.status) || !signer.invited_at || wf.remindEveryDays <= 0) {
      return 'skipped';
    }
    // Scheduled jobs are replaced by key when the schedule changes; this guards the one that was
    // already running at that moment. A worker whose clock is behind the database's runs the job
    // early: it is put back at its time rather than dropped, or the reminders would stop.
    if (o.dueAt && deps.clock.now().getTime() < Date.parse(o.dueAt) - 60_000) {
      await rescheduleReminder(trx, { signerRowId: signer.id, documentId: doc.id, at: new Date(o.dueAt) });
      return 'skipped';
    }
    // An ordered flow (made ordered after invitations went out) does not remind a signer whose turn
    // has not come; their reminders resume from their turn on.
    if (await waitsForEarlierSigner(trx, doc.id, signer.id)) {
      await scheduleReminder(trx, { signerRowId: signer.id, documentId: doc.id, days: wf.remindEveryDays, from: deps.clock.now() });
      return 'skipped';
    }
    await inviteSigner(trx, deps, { document: doc, signer, reminder: true });
    return 'sent';
  });
}
