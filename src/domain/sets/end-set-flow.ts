// How a set's flow ends: the scheduled jobs removed, the documents still pending moved to the end
// state with an entry in each one's history, and — when every document is signed — ONE conclusion
// email per recipient carrying every document of the set.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { sendConclusion } from '../workflows/conclude-document.js';
import type { Database } from '../../store/schema.js';
import { endPendingDocuments, endSet, setFlowDocuments, type FlowSet } from '../../store/set-flow-repo.js';
import { listSetSigners } from '../../store/set-signers-repo.js';
import { removeWorkflowRemindJob } from '../../jobs/payloads/workflow-remind.js';
import { removeWorkflowExpireJob } from '../../jobs/payloads/workflow-expire.js';

/** Removes the set's expiration and every set signer's reminder. */
export async function stopSetJobs(trx: Transaction<Database>, setId: string): Promise<void> {
  await removeWorkflowExpireJob(trx, { scope: 'set', setId });
  for (const s of await listSetSigners(trx, setId)) {
    await removeWorkflowRemindJob(trx, { scope: 'set', setSignerId: s.id });
  }
}

/**
 * Moves the set's pending documents to `to` and writes the entry in each one's history. With
 * skipLocked, a document held by a signature in progress is left for later (returns how many).
 */
export async function endOpenDocuments(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock'>,
  o: {
    set: FlowSet;
    to: 'cancelled' | 'expired';
    actor: 'account' | 'system';
    ip?: string | null;
    details: Record<string, unknown>;
    exceptId?: string;
    skipLocked?: boolean;
  },
): Promise<number> {
  const now = deps.clock.now();
  const ended = await endPendingDocuments(trx, { setId: o.set.id, to: o.to, at: now, exceptId: o.exceptId, skipLocked: o.skipLocked });
  for (const d of ended) {
    await appendHistory(trx, {
      documentId: d.id,
      at: now,
      action: o.to,
      actor: o.actor,
      ip: o.ip ?? null,
      details: { document_set: o.set.uuid, ...o.details },
    });
  }
  return ended.length;
}

/** Every document of the set is signed: the set is COMPLETED and the conclusion goes out once. */
export async function concludeSet(trx: Transaction<Database>, deps: Deps, set: FlowSet): Promise<void> {
  if (!(await endSet(trx, set.id, 'COMPLETED', deps.clock.now()))) {
    return; // concluded already
  }
  await stopSetJobs(trx, set.id);
  const docs = (await setFlowDocuments(trx, set.id)).filter((d) => d.status === 'completed');
  if (docs.length === 0) {
    return;
  }
  const signers = await listSetSigners(trx, set.id);
  await sendConclusion(trx, deps, {
    accountId: set.account_id,
    historyDocumentIds: docs.map((d) => d.id),
    workflow: set.workflow,
    title: set.name || docs[0].name,
    files: docs.map((d) => ({ documentId: d.id, name: d.name, sha256: d.original_sha256 })),
    signerEmails: signers.map((s) => s.email),
  });
}
