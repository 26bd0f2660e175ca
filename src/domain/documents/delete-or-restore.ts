// POST /developers/docs {ticket, action}: soft delete, and restore to the state it had. Deleting
// stops a running flow's reminders and expiration; restoring resumes them.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { findDocument, setStatusOf, transitionDocument } from '../../store/documents-repo.js';
import { removeDeliverWebhookJob } from '../../jobs/payloads/deliver-webhook.js';
import { discardPendingNotifications } from '../../store/notifications-repo.js';
import type { DocumentStatus } from '../../store/schema.js';
import { pauseDocumentFlow, resumeDocumentFlow } from '../workflows/resume-document-flow.js';
import type { DeleteOrRestoreBody, DeleteOrRestoreResult } from '../../schemas/documents.js';

const LIVE: DocumentStatus[] = ['draft', 'pending', 'completed', 'rejected', 'expired', 'cancelled'];

type Found = NonNullable<Awaited<ReturnType<typeof findDocument>>>;
type Ctx = { deps: Pick<Deps, 'db' | 'clock'>; doc: Found; setStatus: string | undefined; at: Date; ip?: string };

export async function deleteOrRestoreDocument(
  deps: Pick<Deps, 'db' | 'clock'>,
  opts: { accountId: string; ticket: string; action: DeleteOrRestoreBody['action']; ip?: string },
): Promise<DeleteOrRestoreResult> {
  const doc = await findDocument(deps.db, opts.accountId, opts.ticket);
  if (!doc) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${opts.ticket}`);
  }
  const setStatus = doc.set_id ? await setStatusOf(deps.db, doc.set_id) : undefined;
  const ctx: Ctx = { deps, doc, setStatus, at: deps.clock.now(), ip: opts.ip };
  return opts.action === 'delete' ? deleteDocument(ctx) : restoreDocument(ctx);
}

async function deleteDocument({ deps, doc, setStatus, at, ip }: Ctx): Promise<DeleteOrRestoreResult> {
  if (doc.status === 'deleted') {
    throw new AppError('INVALID_STATE', `document ${doc.ticket} is already deleted`, { status: doc.status });
  }
  // A set's flow spans all its documents (its completion, its order): one cannot leave mid-flow.
  if (setStatus === 'CLOSED') {
    throw new AppError(
      'INVALID_STATE',
      `document ${doc.ticket} belongs to a document set whose flow is running; cancel the set's flow first (POST /api/{uuid}/workflowSet with "cancel": true)`,
      { set_status: setStatus },
    );
  }
  // The state change and the discarding of its pending notifications commit together
  // (decisions.md "Events": deleting a document discards its pending notifications). A restore
  // does not bring them back.
  const ok = await deps.db.transaction().execute(async (trx) => {
    const moved = await transitionDocument(trx, doc.id, [doc.status], {
      status: 'deleted',
      statusBeforeDelete: doc.status,
      deletedAt: at,
      at,
    });
    if (moved) {
      for (const delivery of await discardPendingNotifications(trx, doc.id, 'the document was deleted', at)) {
        await removeDeliverWebhookJob(trx, delivery);
      }
      await appendHistory(trx, {
        documentId: doc.id,
        at,
        action: 'deleted',
        actor: 'account',
        ip: ip ?? null,
        details: { from: doc.status },
      });
      await pauseDocumentFlow(trx, doc.id);
    }
    return moved;
  });
  if (!ok) {
    throw new AppError('INVALID_STATE', `document ${doc.ticket} changed state meanwhile; retry`);
  }
  return { document_ticket: doc.ticket, status: 'deleted' };
}

async function restoreDocument({ deps, doc, setStatus, at, ip }: Ctx): Promise<DeleteOrRestoreResult> {
  if (doc.status !== 'deleted') {
    throw new AppError('INVALID_STATE', `document ${doc.ticket} is not deleted (it is ${doc.status})`, { status: doc.status });
  }
  const back = doc.status_before_delete && LIVE.includes(doc.status_before_delete) ? doc.status_before_delete : 'pending';
  if (setStatus && setStatus !== 'OPEN' && (back === 'draft' || back === 'pending')) {
    throw new AppError(
      'INVALID_STATE',
      `document ${doc.ticket} was deleted from a document set that is ${setStatus} now; it cannot rejoin its flow`,
      {
        set_status: setStatus,
      },
    );
  }
  const ok = await deps.db.transaction().execute(async (trx) => {
    const moved = await transitionDocument(trx, doc.id, ['deleted'], { status: back, statusBeforeDelete: null, deletedAt: null, at });
    if (moved) {
      await appendHistory(trx, {
        documentId: doc.id,
        at,
        action: 'restored',
        actor: 'account',
        ip: ip ?? null,
        details: { to: back },
      });
      await resumeDocumentFlow(trx, deps, doc.id);
    }
    return moved;
  });
  if (!ok) {
    throw new AppError('INVALID_STATE', `document ${doc.ticket} changed state meanwhile; retry`);
  }
  return { document_ticket: doc.ticket, status: back };
}
