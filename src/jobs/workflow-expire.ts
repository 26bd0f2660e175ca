// Task `workflow_expire`: the expiration of a standalone document ({scope: 'document', documentId})
// or of a set ({scope: 'set', setId}). Idempotent: it acts only on a flow still running whose
// expiration has come by the service's clock.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { runSetExpiration } from '../domain/sets/set-flow-jobs.js';
import { runDocumentExpiration } from '../domain/workflows/expire-document.js';

export function workflowExpireTask(deps: Deps): Task {
  return async (payload) => {
    const p = payload as { scope: 'document' | 'set'; documentId?: string; setId?: string };
    if (p.scope === 'set') {
      await runSetExpiration(deps, { setId: p.setId! });
    } else {
      await runDocumentExpiration(deps, { documentId: p.documentId! });
    }
  };
}
