// `cancel: true` on a document's workflow: the flow stops for good. Pending invitations are revoked
// (the links answer 409 "cancelled"), reminders and the expiration are removed, state cancelled.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import type { Database } from '../../store/schema.js';
import { setDocumentStatus, type FlowDocument } from '../../store/workflow-repo.js';
import { stopDocumentJobs } from './advance-flow.js';

export async function cancelDocumentFlow(
  trx: Transaction<Database>,
  deps: Deps,
  o: { document: FlowDocument; actor: string; ip?: string | null },
): Promise<void> {
  const now = deps.clock.now();
  await setDocumentStatus(trx, o.document.id, 'cancelled', now);
  await stopDocumentJobs(trx, o.document.id);
  await appendHistory(trx, { documentId: o.document.id, at: now, action: 'cancelled', actor: o.actor, ip: o.ip ?? null, details: {} });
}
