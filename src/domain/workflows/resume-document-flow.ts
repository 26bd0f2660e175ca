// A deleted document's flow stops (no reminders to signers of a document the sender removed); a
// restore to `pending` resumes it: the expiration is scheduled again (at once when it passed
// meanwhile) and each invited signer still to sign gets their next reminder counted from now.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { Database } from '../../store/schema.js';
import { findFlowDocument, flowSigners } from '../../store/workflow-repo.js';
import { stopDocumentJobs } from './advance-flow.js';
import { effectiveWorkflow } from './effective-workflow.js';
import { isOpen } from './invite-due.js';
import { scheduleReminder } from './invite-signer.js';
import { scheduleExpiration } from './start-document-flow.js';

export async function pauseDocumentFlow(trx: Transaction<Database>, documentId: string): Promise<void> {
  await stopDocumentJobs(trx, documentId);
}

export async function resumeDocumentFlow(trx: Transaction<Database>, deps: Pick<Deps, 'clock'>, documentId: string): Promise<void> {
  const doc = await findFlowDocument(trx, { id: documentId });
  if (doc?.status !== 'pending' || doc.set_id || !doc.flow_started_at || !doc.expires_at) {
    return;
  }
  const now = deps.clock.now();
  await scheduleExpiration(trx, { scope: 'document', id: doc.id, at: new Date(Math.max(now.getTime(), doc.expires_at.getTime())) });
  const days = effectiveWorkflow(doc.workflow).remindEveryDays;
  for (const s of (await flowSigners(trx, doc.id)).filter((x) => isOpen(x.status) && x.invited_at)) {
    await scheduleReminder(trx, { signerRowId: s.id, documentId: doc.id, days, from: now });
  }
}
