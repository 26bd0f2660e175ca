// What a signature moves in the flow, inside the signing transaction: the signer's reminders stop;
// when everyone has signed the expiration is dropped and the conclusion email goes out; otherwise
// an ordered flow invites the next signer. Documents of a set move their set's flow instead.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { Database } from '../../store/schema.js';
import { removeWorkflowRemindJob } from '../../jobs/payloads/workflow-remind.js';
import { removeWorkflowExpireJob } from '../../jobs/payloads/workflow-expire.js';
import { findFlowDocument, flowSigners } from '../../store/workflow-repo.js';
import { advanceSetAfterSignature, stopSetAfterRejection } from '../sets/advance-set-flow.js';
import { concludeDocument } from './conclude-document.js';
import { inviteDue } from './invite-due.js';

export async function advanceAfterSignature(
  trx: Transaction<Database>,
  deps: Deps,
  o: { documentId: string; signerRowId: string; completed: boolean },
): Promise<void> {
  const doc = await findFlowDocument(trx, { id: o.documentId });
  await removeWorkflowRemindJob(trx, { scope: 'document', signerRowId: o.signerRowId });
  if (doc.set_id) {
    await advanceSetAfterSignature(trx, deps, { setId: doc.set_id, document: doc, signerRowId: o.signerRowId });
    return;
  }
  if (!doc.has_flow || !doc.flow_started_at) {
    return; // no workflow: the client distributes the links and follows events
  }
  if (o.completed) {
    await removeWorkflowExpireJob(trx, { scope: 'document', documentId: doc.id });
    await concludeDocument(trx, deps, { ...doc, status: 'completed' });
    return;
  }
  await inviteDue(trx, deps, doc);
}

/** Stops every scheduled job of a standalone document's flow (cancelled, expired, rejected). */
export async function stopDocumentJobs(trx: Transaction<Database>, documentId: string): Promise<void> {
  await removeWorkflowExpireJob(trx, { scope: 'document', documentId });
  for (const s of await flowSigners(trx, documentId)) {
    await removeWorkflowRemindJob(trx, { scope: 'document', signerRowId: s.id });
  }
}

export async function stopFlowAfterRejection(trx: Transaction<Database>, deps: Deps, o: { documentId: string }): Promise<void> {
  const doc = await findFlowDocument(trx, { id: o.documentId });
  await stopDocumentJobs(trx, doc.id);
  if (doc.set_id) {
    await stopSetAfterRejection(trx, deps, { setId: doc.set_id, documentId: doc.id });
  }
}
