// The flow of a closed document set, moved by what happens on its documents. Both functions run in
// the transaction of the signature (or rejection), which holds the document row; the set row is
// locked after it (document, then set: the order every set path follows, set-flow-repo.ts).
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { effectiveWorkflow } from '../workflows/effective-workflow.js';
import type { Database } from '../../store/schema.js';
import { countPendingDocuments, documentTicket, endSet, findFlowSet } from '../../store/set-flow-repo.js';
import { listSetSigners, rejectingSetSigner, setSetSignerStatus, setSignerIdOfRow, unsignedRowsOf } from '../../store/set-signers-repo.js';
import { addWorkflowExpireJob } from '../../jobs/payloads/workflow-expire.js';
import { addWorkflowRemindJob, removeWorkflowRemindJob } from '../../jobs/payloads/workflow-remind.js';
import type { FlowDocument } from '../../store/workflow-repo.js';
import { concludeSet, endOpenDocuments, stopSetJobs } from './end-set-flow.js';
import { dueSetSigners } from './invite-set-signer.js';

/**
 * After a signature on a document of the set: a set signer who has now signed every document of
 * theirs is done (their reminders stop; in an ordered flow the next one is invited); when no
 * document is left pending the set is COMPLETED and the conclusion goes out.
 */
export async function advanceSetAfterSignature(
  trx: Transaction<Database>,
  deps: Deps,
  o: { setId: string; document: FlowDocument; signerRowId: string },
): Promise<void> {
  const set = await findFlowSet(trx, { id: o.setId }, true);
  if (set?.status !== 'CLOSED') {
    // The set ended while this signature was being made (a rejection at the same instant): the
    // job that ending scheduled settles its documents.
    return;
  }
  const setSignerId = await setSignerIdOfRow(trx, o.signerRowId);
  let done = false;
  if (setSignerId && (await unsignedRowsOf(trx, setSignerId)) === 0) {
    await setSetSignerStatus(trx, setSignerId, 'signed');
    await removeWorkflowRemindJob(trx, { scope: 'set', setSignerId });
    done = true;
  }
  if ((await countPendingDocuments(trx, set.id)) === 0) {
    await concludeSet(trx, deps, set);
    return;
  }
  if (done && effectiveWorkflow(set.workflow).ordered) {
    const next = dueSetSigners(await listSetSigners(trx, set.id), set.workflow)[0];
    if (next && !next.invited_at) {
      // Invited by a job, not here: the invitation writes to the history of the next signer's
      // documents, which this transaction must not lock while it holds one document and the set.
      // No run_at: due at once, by the database's clock.
      await addWorkflowRemindJob(trx, { scope: 'set', setId: set.id, setSignerId: next.id });
    }
  }
}

/**
 * After a signer rejected a document of the set: the set is REJECTED, its other pending documents
 * are cancelled, reminders and the expiration removed. A document another signer is signing at
 * this very moment cannot be locked without risking a deadlock; it is skipped here and cancelled by
 * a job right after (runSetExpiration settles an ended set).
 */
export async function stopSetAfterRejection(
  trx: Transaction<Database>,
  deps: Deps,
  o: { setId: string; documentId: string },
): Promise<void> {
  const set = await findFlowSet(trx, { id: o.setId }, true);
  if (set?.status !== 'CLOSED') {
    return;
  }
  const now = deps.clock.now();
  await endSet(trx, set.id, 'REJECTED', now);
  const rejecter = await rejectingSetSigner(trx, o.documentId);
  if (rejecter) {
    await setSetSignerStatus(trx, rejecter, 'rejected');
  }
  await stopSetJobs(trx, set.id);
  const ticket = await documentTicket(trx, o.documentId);
  await appendHistory(trx, {
    documentId: o.documentId,
    at: now,
    action: 'set_rejected',
    actor: 'system',
    details: { document_set: set.uuid },
  });
  await endOpenDocuments(trx, deps, {
    set,
    to: 'cancelled',
    actor: 'system',
    details: { reason: 'set_rejected', rejected_document: ticket },
    exceptId: o.documentId,
    skipLocked: true,
  });
  if ((await countPendingDocuments(trx, set.id)) > 0) {
    await addWorkflowExpireJob(trx, { scope: 'set', setId: set.id });
  }
}
