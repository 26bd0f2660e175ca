// Task `workflow_expire` (payload: jobs/payloads/workflow-expire.ts): the expiration of a
// standalone document or of a set. Idempotent: it acts only on a flow still running whose
// expiration has come by the service's clock.
import type { Task } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';
import { runSetExpiration } from '../domain/sets/set-flow-jobs.js';
import { runDocumentExpiration } from '../domain/workflows/expire-document.js';
import { payloadTask } from './job-payload.js';
import { WORKFLOW_EXPIRE } from './payloads/workflow-expire.js';

export function workflowExpireTask(deps: Deps): Task {
  return payloadTask(WORKFLOW_EXPIRE, async (p) => {
    if (p.scope === 'set') {
      await runSetExpiration(deps, { setId: p.setId });
    } else {
      await runDocumentExpiration(deps, { documentId: p.documentId });
    }
  });
}
