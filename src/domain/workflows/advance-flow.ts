// What a signature moves in the flow, inside the signing transaction: the signer's reminders stop;
// when everyone has signed the expiration is dropped and the conclusion email goes out; otherwise
// an ordered flow invites the next signer. Documents of a set move their set's flow instead.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { Database } from '../../store/schema.js';
import { findFlowDocument, flowSigners, unscheduleJob } from '../../store/workflow-repo.js';
import { advanceSetAfterSignature, stopSetAfterRejection } from '../sets/advance-set-flow.js';
import { concludeDocument } from './conclude-document.js';
import { inviteDue } from './invite-due.js';
import { reminderJobKey } from './invite-signer.js';
import { expirationJobKey } from './start-document-flow.js';

export async function advanceAfterSignature(
  trx: Transaction<Database>,
  deps: Deps,
  o: { documentId: string; signerRowId: string; completed: boolean },
): Promise<void> {
  const doc = await findFlowDocument(trx, { id: o.documentId });
  await unscheduleJob(trx, reminderJobKey(o.signerRowId));
  if (doc.set_id) {
    await advanceSetAfterSignature(trx, deps, { setId: doc.set_id, document: doc, signerRowId: o.signerRowId });
    return;
  }
  if (!doc.has_flow || !doc.flow_started_at) {
    return; // no workflow: the client distributes the links and follows events
  }
  if (o.completed) {
    await unscheduleJob(trx, expirationJobKey('document', doc.id));
    await concludeDocument(trx, deps, { ...doc, status: 'completed' });
    return;
  }
  await inviteDue(trx, deps, doc);
}

/** Stops every scheduled job of a standalone document's flow (cancelled, expired, rejected). */
export async function stopDocumentJobs(trx: Transaction<Database>, documentId: string): Promise<void> {
  await unscheduleJob(trx, expirationJobKey('document', documentId));
  for (const s of await flowSigners(trx, documentId)) {
    await unscheduleJob(trx, reminderJobKey(s.id));
  }
}

export async function stopFlowAfterRejection(trx: Transaction<Database>, deps: Deps, o: { documentId: string }): Promise<void> {
  const doc = await findFlowDocument(trx, { id: o.documentId });
  await stopDocumentJobs(trx, doc.id);
  if (doc.set_id) {
    await stopSetAfterRejection(trx, deps, { setId: doc.set_id, documentId: doc.id });
  }
}
