// Task `workflow_remind`: a reminder of a standalone document's signer ({scope: 'document',
// documentId, signerRowId, dueAt}) or of a set signer ({scope: 'set', setId, setSignerId}).
// Idempotent: the use cases check that the reminder is still due before sending it.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { runSetReminder } from '../domain/sets/set-flow-jobs.js';
import { runDocumentReminder } from '../domain/workflows/send-reminder.js';

export function workflowRemindTask(deps: Deps): Task {
  return async (payload) => {
    const p = payload as {
      scope: 'document' | 'set';
      documentId?: string;
      signerRowId?: string;
      setId?: string;
      setSignerId?: string;
      dueAt?: string;
    };
    if (p.scope === 'set') {
      await runSetReminder(deps, { setId: p.setId!, setSignerId: p.setSignerId! });
    } else {
      await runDocumentReminder(deps, { documentId: p.documentId!, signerRowId: p.signerRowId!, dueAt: p.dueAt });
    }
  };
}
