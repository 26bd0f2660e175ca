// Starts the flow of a standalone document: the expiration is fixed and scheduled, and the first
// invitations go out (every signer at once, or the first in sticker order when `ordered`).
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { WorkflowSettings } from '../documents/workflow-settings.js';
import type { Database } from '../../store/schema.js';
import { addWorkflowExpireJob } from '../../jobs/payloads/workflow-expire.js';
import { findFlowDocument, startDocumentFlowRow } from '../../store/workflow-repo.js';
import { expirationInstant } from './effective-workflow.js';
import { inviteDue } from './invite-due.js';

export async function startDocumentFlow(
  trx: Transaction<Database>,
  deps: Deps,
  o: { documentId: string; workflow: WorkflowSettings },
): Promise<void> {
  const now = deps.clock.now();
  const doc = await findFlowDocument(trx, { id: o.documentId }, true);
  const expiresAt = expirationInstant(o.workflow, now, doc.time_zone);
  const generation = await startDocumentFlowRow(trx, { id: doc.id, startedAt: now, expiresAt, workflow: o.workflow });
  await scheduleExpiration(trx, { scope: 'document', id: doc.id, at: expiresAt });
  await inviteDue(trx, deps, { ...doc, workflow: o.workflow as Record<string, unknown>, flow_generation: generation });
}

export async function scheduleExpiration(trx: Transaction<Database>, e: { scope: 'document' | 'set'; id: string; at: Date }) {
  await addWorkflowExpireJob(trx, e.scope === 'document' ? { scope: 'document', documentId: e.id } : { scope: 'set', setId: e.id }, e.at);
}
