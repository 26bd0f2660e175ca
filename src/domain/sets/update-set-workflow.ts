// POST /api/{uuid}/workflowSet: adjusts the flow of a closed set. snake_case keys only (camelCase
// keys are ignored and listed in ignored_keys); omitted keys keep their values; the signers are not
// edited here. `cancel: true` cancels the set. Otherwise EVERY call restarts the flow (interface.md,
// States rule 4), an empty body included: pending reminders are cancelled and re-scheduled from now,
// and the invitation goes again, at once, to every set signer the flow waits for (all still to sign,
// or the current one of an ordered flow). A new expiration_date re-schedules the expiration.
import type { Static } from '@sinclair/typebox';
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { readWorkflowSettings, type WorkflowSettings } from '../documents/workflow-settings.js';
import { appendHistory } from '../history/append-history.js';
import { expirationInstant, requireFutureExpiration } from '../workflows/effective-workflow.js';
import { scheduleExpiration } from '../workflows/start-document-flow.js';
import { endSet, findFlowSet, lockPendingDocuments, saveSetWorkflow, type FlowSet } from '../../store/set-flow-repo.js';
import { listSetSigners } from '../../store/set-signers-repo.js';
import { removeWorkflowRemindJob } from '../../jobs/payloads/workflow-remind.js';
import { endOpenDocuments, stopSetJobs } from './end-set-flow.js';
import { inviteDueSetSigners } from './invite-set-signer.js';
import type { SetWorkflowBody, SetWorkflowResult } from '../../schemas/sets.js';

export type { SetWorkflowResult };

export async function updateSetWorkflow(
  deps: Deps,
  o: { accountId: string; uuid: string; body: Static<typeof SetWorkflowBody>; ip?: string },
): Promise<SetWorkflowResult> {
  // A document id (or any unknown uuid) is a 404 before the body is even looked at.
  const found = await findFlowSet(deps.db, { accountId: o.accountId, uuid: o.uuid });
  if (!found) {
    throw new AppError('DOCUMENT_SET_NOT_FOUND', `no document set ${o.uuid} (this operation takes the uuid of a set, not a document id)`);
  }
  const { settings, ignoredKeys } = readWorkflowSettings(o.body ?? {}, { field: 'workflow', allowCamelCase: false });
  return deps.db.transaction().execute(async (trx) => {
    // Pending documents first, then the set: the order that cannot cross a signature in progress.
    await lockPendingDocuments(trx, found.id);
    const set = (await findFlowSet(trx, { id: found.id }, true))!;
    requireRunning(set);
    const now = deps.clock.now();
    requireFutureExpiration(settings, now, set.time_zone, 'workflow');
    const merged: WorkflowSettings = { ...((set.workflow as WorkflowSettings | null) ?? {}), ...settings };
    delete merged.cancel; // an order, not a setting
    const details = { changes: settings, ...(ignoredKeys.length ? { ignored_keys: ignoredKeys } : {}) };

    if (settings.cancel) {
      await endSet(trx, set.id, 'CANCELLED', now);
      await stopSetJobs(trx, set.id);
      await endOpenDocuments(trx, deps, {
        set,
        to: 'cancelled',
        actor: 'account',
        ip: o.ip,
        details: { reason: 'set_cancelled', ...details },
      });
      return {
        status: 'success',
        set_status: 'CANCELLED',
        expires_at: set.expires_at?.toISOString() ?? null,
        invitations_sent: 0,
        ignored_keys: ignoredKeys,
      };
    }

    const expiresAt = settings.expiration_date ? expirationInstant(merged, set.flow_started_at ?? now, set.time_zone) : set.expires_at!;
    const generation = await saveSetWorkflow(trx, { id: set.id, workflow: merged, expiresAt, at: now });
    if (settings.expiration_date) {
      await scheduleExpiration(trx, { scope: 'set', id: set.id, at: expiresAt });
    }
    const restarted: FlowSet = { ...set, workflow: merged as Record<string, unknown>, expires_at: expiresAt, flow_generation: generation };
    for (const s of await listSetSigners(trx, set.id)) {
      await removeWorkflowRemindJob(trx, { scope: 'set', setSignerId: s.id });
    }
    for (const documentId of await lockPendingDocuments(trx, set.id)) {
      await appendHistory(trx, {
        documentId,
        at: now,
        action: 'flow_restarted',
        actor: 'account',
        ip: o.ip ?? null,
        details: { document_set: set.uuid, ...details },
      });
    }
    const sent = await inviteDueSetSigners(trx, deps, restarted, { resend: true });
    return {
      status: 'success',
      set_status: set.status,
      expires_at: expiresAt.toISOString(),
      invitations_sent: sent,
      ignored_keys: ignoredKeys,
    };
  });
}

function requireRunning(set: FlowSet): void {
  if (set.status === 'OPEN') {
    throw new AppError('WORKFLOW_NOT_CHANGEABLE', 'the set is OPEN: its flow starts when it is closed (POST /api/documentset/close)', {
      status: set.status,
    });
  }
  if (set.status !== 'CLOSED') {
    throw new AppError('WORKFLOW_NOT_CHANGEABLE', `the set is ${set.status}: its flow has ended`, { status: set.status });
  }
}
