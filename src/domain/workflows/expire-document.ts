// The expiration falls due (job workflow_expire): a document still pending at its expires_at, by
// the service's clock, becomes expired; its links answer 409, reminders stop, workflow_expired fires.
// A later expiration (the workflow was changed) re-scheduled the job; this run then does nothing.
import type { Deps } from '../deps.js';
import { emitEvent } from '../events/emit-event.js';
import { appendHistory } from '../history/append-history.js';
import { findFlowDocument, flowSigners, setDocumentStatus } from '../../store/workflow-repo.js';
import { stopDocumentJobs } from './advance-flow.js';
import { isOpen } from './invite-due.js';
import { scheduleExpiration } from './start-document-flow.js';

export async function runDocumentExpiration(deps: Deps, o: { documentId: string }): Promise<'expired' | 'skipped'> {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await findFlowDocument(trx, { id: o.documentId }, true);
    const now = deps.clock.now();
    if (doc?.status !== 'pending' || doc.set_id || !doc.expires_at) {
      return 'skipped';
    }
    if (now.getTime() < doc.expires_at.getTime()) {
      // Early by this worker's clock (or a job of an earlier schedule): put it back at its time.
      await scheduleExpiration(trx, { scope: 'document', id: doc.id, at: doc.expires_at });
      return 'skipped';
    }
    await setDocumentStatus(trx, doc.id, 'expired', now);
    await stopDocumentJobs(trx, doc.id);
    const pending = (await flowSigners(trx, doc.id)).filter((s) => isOpen(s.status));
    const pendingSigners = pending.map((s) => ({
      signer_id: s.signer_id,
      name: s.name,
      email: s.email,
      authority: s.authority,
      data: s.data,
    }));
    await appendHistory(trx, {
      documentId: doc.id,
      at: now,
      action: 'expired',
      actor: 'system',
      details: { expires_at: doc.expires_at.toISOString(), pending_signers: pending.map((s) => s.signer_id) },
    });
    await emitEvent(trx, deps, {
      accountId: doc.account_id,
      documentId: doc.id,
      kind: 'workflow_expired',
      meta: { expired_at: doc.expires_at.toISOString(), pending_signers: pendingSigners },
      dedupeKey: `expired:${doc.ticket}`,
    });
    return 'expired';
  });
}
