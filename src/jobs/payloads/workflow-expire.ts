// Task `workflow_expire`: the expiration of a standalone document's or a set's flow (handler:
// jobs/workflow-expire.ts). One waiting job per flow: scheduling again replaces it.
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import { removeJob } from '../../store/job-queue.js';
import type { Database } from '../../store/schema.js';
import { defineJob, queueJob } from '../job-payload.js';

const Id = Type.String({ minLength: 1 });

export const WORKFLOW_EXPIRE = defineJob(
  'workflow_expire',
  Type.Union([Type.Object({ scope: Type.Literal('document'), documentId: Id }), Type.Object({ scope: Type.Literal('set'), setId: Id })]),
);

export type WorkflowExpirePayload = Static<typeof WORKFLOW_EXPIRE.payload>;

function expireJobKey(p: WorkflowExpirePayload): string {
  return p.scope === 'document' ? `expire:document:${p.documentId}` : `expire:set:${p.setId}`;
}

/** Schedules the flow's expiration at runAt (as soon as a worker is free without it), replacing any. */
export async function addWorkflowExpireJob(trx: Transaction<Database>, payload: WorkflowExpirePayload, runAt?: Date): Promise<void> {
  await queueJob(trx, WORKFLOW_EXPIRE, payload, { runAt, jobKey: expireJobKey(payload) });
}

/** Removes the flow's waiting expiration (the flow ended before it). */
export async function removeWorkflowExpireJob(trx: Transaction<Database>, flow: WorkflowExpirePayload): Promise<void> {
  await removeJob(trx, expireJobKey(flow));
}
