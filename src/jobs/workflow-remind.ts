// Task `workflow_remind` (payload: jobs/payloads/workflow-remind.ts): a reminder of a standalone
// document's signer or of a set signer. Idempotent: the use cases check that the reminder is still
// due before sending it.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { runSetReminder } from '../domain/sets/set-flow-jobs.js';
import { runDocumentReminder } from '../domain/workflows/send-reminder.js';
import { payloadTask } from './job-payload.js';
import { WORKFLOW_REMIND } from './payloads/workflow-remind.js';

export function workflowRemindTask(deps: Deps): Task {
  return payloadTask(WORKFLOW_REMIND, async (p) => {
    if (p.scope === 'set') {
      await runSetReminder(deps, { setId: p.setId, setSignerId: p.setSignerId });
    } else {
      await runDocumentReminder(deps, { documentId: p.documentId, signerRowId: p.signerRowId, dueAt: p.dueAt });
    }
  });
}
