// Scheduled work of a set's flow (jobs workflow_remind and workflow_expire with scope 'set'). Each
// runs in its own transaction, is idempotent, and acts only when the service's clock says the work
// is due and the set's state still calls for it. A job that runs early (its schedule changed while it
// waited) puts itself back at the right time, so no reminder or expiration is ever lost.
import type { Deps } from '../deps.js';
import { emitEvent } from '../events/emit-event.js';
import { daysMs, effectiveWorkflow } from '../workflows/effective-workflow.js';
import { isOpen } from '../workflows/invite-due.js';
import { scheduleExpiration } from '../workflows/start-document-flow.js';
import { endSet, findFlowSet, lockPendingDocuments } from '../../store/set-flow-repo.js';
import { listSetSigners } from '../../store/set-signers-repo.js';
import { endOpenDocuments, stopSetJobs } from './end-set-flow.js';
import { dueSetSigners, inviteSetSigner, lastContact, scheduleSetReminder } from './invite-set-signer.js';

/** Slack for a clock a little behind the database's when a job becomes due. */
const EARLY_MS = 60_000;

/**
 * A set signer's reminder. Also the invitation of the next signer of an ordered flow (scheduled
 * when the previous one finished), which arrives here not yet invited.
 */
export async function runSetReminder(deps: Deps, o: { setId: string; setSignerId: string }): Promise<'invited' | 'reminded' | 'skipped'> {
  return deps.db.transaction().execute(async (trx) => {
    await lockPendingDocuments(trx, o.setId);
    const set = await findFlowSet(trx, { id: o.setId }, true);
    if (set?.status !== 'CLOSED') {
      return 'skipped';
    }
    const signers = await listSetSigners(trx, set.id);
    const signer = signers.find((s) => s.id === o.setSignerId);
    if (!signer || !isOpen(signer.status) || !dueSetSigners(signers, set.workflow).some((s) => s.id === signer.id)) {
      return 'skipped';
    }
    if (!signer.invited_at) {
      return (await inviteSetSigner(trx, deps, { set, signer, reminder: false })) ? 'invited' : 'skipped';
    }
    const days = effectiveWorkflow(set.workflow).remindEveryDays;
    const last = lastContact(signer)!;
    if (days <= 0) {
      return 'skipped';
    }
    if (deps.clock.now().getTime() < last.getTime() + daysMs(days) - EARLY_MS) {
      await scheduleSetReminder(trx, { setId: set.id, setSignerId: signer.id, days, from: last });
      return 'skipped';
    }
    return (await inviteSetSigner(trx, deps, { set, signer, reminder: true })) ? 'reminded' : 'skipped';
  });
}

/**
 * The set's expiration: a set still CLOSED at its expires_at becomes EXPIRED, its pending documents
 * expired, and workflow_expired fires once for the set. Also settles an ended set's documents that
 * were busy when it ended (see stopSetAfterRejection).
 */
export async function runSetExpiration(deps: Deps, o: { setId: string }): Promise<'expired' | 'settled' | 'skipped'> {
  return deps.db.transaction().execute(async (trx) => {
    await lockPendingDocuments(trx, o.setId);
    const set = await findFlowSet(trx, { id: o.setId }, true);
    if (!set || set.status === 'OPEN' || set.status === 'COMPLETED') {
      return 'skipped';
    }
    if (set.status !== 'CLOSED') {
      const to = set.status === 'EXPIRED' ? 'expired' : 'cancelled';
      const n = await endOpenDocuments(trx, deps, { set, to, actor: 'system', details: { reason: `set_${set.status.toLowerCase()}` } });
      return n > 0 ? 'settled' : 'skipped';
    }
    const now = deps.clock.now();
    if (!set.expires_at) {
      return 'skipped';
    }
    if (now.getTime() < set.expires_at.getTime()) {
      await scheduleExpiration(trx, { scope: 'set', id: set.id, at: set.expires_at });
      return 'skipped';
    }
    await endSet(trx, set.id, 'EXPIRED', now);
    const pending = (await listSetSigners(trx, set.id)).filter((s) => isOpen(s.status));
    await stopSetJobs(trx, set.id);
    await endOpenDocuments(trx, deps, {
      set,
      to: 'expired',
      actor: 'system',
      details: { expires_at: set.expires_at.toISOString(), pending_signers: pending.map((s) => s.signer_id) },
    });
    await emitEvent(trx, deps, {
      accountId: set.account_id,
      documentSetId: set.id,
      kind: 'workflow_expired',
      meta: {
        expired_at: set.expires_at.toISOString(),
        pending_signers: pending.map((s) => ({
          signer_id: s.signer_id,
          name: s.name,
          email: s.email,
          authority: s.authority,
          data: s.data,
        })),
      },
      dedupeKey: `expired:set:${set.uuid}`,
    });
    return 'expired';
  });
}
