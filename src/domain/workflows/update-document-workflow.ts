// POST /api/{documentId}/workflow: sets, changes or cancels the workflow of a standalone document.
// Keys in camelCase or snake_case; omitted keys keep their values. A document without a flow gets
// one (its invitations go out now). A running flow takes the new values from now on: a new
// expiration re-schedules the expiration (later extends, earlier shortens), a new remind_every
// re-schedules each pending signer's next reminder from now, `ordered: false` invites everyone not
// yet invited. `ordered` cannot change once someone signed: the order already lived is history.
import type { Static } from '@sinclair/typebox';
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { checkInput } from '../check-input.js';
import { readWorkflowSettings, type WorkflowSettings } from '../documents/workflow-settings.js';
import { appendHistory } from '../history/append-history.js';
import { findFlowDocument, flowSigners, saveDocumentWorkflow, type FlowDocument } from '../../store/workflow-repo.js';
import { cancelDocumentFlow } from './cancel-document-flow.js';
import { effectiveWorkflow, expirationInstant, requireFutureExpiration } from './effective-workflow.js';
import { inviteDue, isOpen } from './invite-due.js';
import { scheduleReminder } from './invite-signer.js';
import { scheduleExpiration, startDocumentFlow } from './start-document-flow.js';
import { type DocumentWorkflowBody, DocumentWorkflowSettings, type WorkflowUpdateResult } from '../../schemas/workflows.js';

export type { WorkflowUpdateResult };

export async function updateDocumentWorkflow(
  deps: Deps,
  o: { accountId: string; ticket: string; body: Static<typeof DocumentWorkflowBody>; ip?: string },
): Promise<WorkflowUpdateResult> {
  // The route leaves this body to us (schemas/workflows.ts): its errors name `workflow.<key>`.
  const body = checkInput(DocumentWorkflowSettings, o.body ?? {}, 'workflow');
  const { settings, ignoredKeys } = readWorkflowSettings(body, { field: 'workflow', allowCamelCase: true });
  return deps.db.transaction().execute(async (trx) => {
    const doc = await findFlowDocument(trx, { accountId: o.accountId, ticket: o.ticket }, true);
    if (!doc) {
      throw new AppError('DOCUMENT_NOT_FOUND', `no document ${o.ticket}`);
    }
    requireChangeable(doc);
    const now = deps.clock.now();
    const merged: WorkflowSettings = { ...((doc.workflow as WorkflowSettings | null) ?? {}), ...settings };
    delete merged.cancel; // an order, not a setting
    const signers = await flowSigners(trx, doc.id);
    if (
      settings.ordered !== undefined &&
      settings.ordered !== effectiveWorkflow(doc.workflow).ordered &&
      signers.some((s) => s.status === 'signed')
    ) {
      throw new AppError('WORKFLOW_ORDER_LOCKED', 'workflow.ordered: cannot change once a signer has signed', {
        ordered: effectiveWorkflow(doc.workflow).ordered,
      });
    }
    requireFutureExpiration(settings, now, doc.time_zone, 'workflow');
    await appendHistory(trx, {
      documentId: doc.id,
      at: now,
      action: 'workflow_changed',
      actor: 'account',
      ip: o.ip ?? null,
      details: { changes: settings, ...(ignoredKeys.length ? { ignored_keys: ignoredKeys } : {}) },
    });
    let expiresAt: Date | null = doc.expires_at;
    let status = doc.status;
    if (settings.cancel) {
      await cancelDocumentFlow(trx, deps, { document: doc, actor: 'account', ip: o.ip });
      status = 'cancelled';
    } else if (!doc.flow_started_at) {
      await startDocumentFlow(trx, deps, { documentId: doc.id, workflow: merged });
      expiresAt = (await findFlowDocument(trx, { id: doc.id })).expires_at;
    } else {
      expiresAt = settings.expiration_date ? expirationInstant(merged, doc.flow_started_at, doc.time_zone) : doc.expires_at!;
      await saveDocumentWorkflow(trx, { id: doc.id, workflow: merged, expiresAt, at: now });
      if (settings.expiration_date) {
        await scheduleExpiration(trx, { scope: 'document', id: doc.id, at: expiresAt });
      }
      const updated: FlowDocument = { ...doc, workflow: merged as Record<string, unknown>, expires_at: expiresAt };
      if (settings.remind_every !== undefined) {
        for (const s of signers.filter((x) => isOpen(x.status) && x.invited_at)) {
          await scheduleReminder(trx, { signerRowId: s.id, documentId: doc.id, days: settings.remind_every, from: now });
        }
      }
      await inviteDue(trx, deps, updated);
    }
    return {
      status: 'success',
      document_ticket: doc.ticket,
      document_status: status,
      workflow: merged,
      expires_at: expiresAt?.toISOString() ?? null,
      ignored_keys: ignoredKeys,
    };
  });
}

function requireChangeable(doc: FlowDocument): void {
  if (doc.set_id) {
    throw new AppError(
      'WORKFLOW_NOT_CHANGEABLE',
      "the document belongs to a document set: its flow is the set's (POST /api/documentset/close, POST /api/{uuid}/workflowSet)",
    );
  }
  if (doc.status === 'deleted') {
    throw new AppError('DOCUMENT_DELETED', 'the document is deleted; restore it first');
  }
  if (doc.status !== 'pending') {
    throw new AppError('WORKFLOW_NOT_CHANGEABLE', `the document is ${doc.status}: its flow has ended`, { status: doc.status });
  }
}
