// Task `workflow_remind`: a reminder (or, in an ordered set, the invitation) of one signer
// (handler: jobs/workflow-remind.ts). One waiting job per signer: scheduling again replaces it.
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import { removeJob } from '../../store/job-queue.js';
import type { Database } from '../../store/schema.js';
import { defineJob, queueJob } from '../job-payload.js';

const Id = Type.String({ minLength: 1 });

export const WORKFLOW_REMIND = defineJob(
  'workflow_remind',
  Type.Union([
    /** A signer of a standalone document; dueAt is the instant it was scheduled for. */
    Type.Object({ scope: Type.Literal('document'), documentId: Id, signerRowId: Id, dueAt: Type.Optional(Type.String()) }),
    /** A signer of a set (all its documents at once). */
    Type.Object({ scope: Type.Literal('set'), setId: Id, setSignerId: Id, dueAt: Type.Optional(Type.String()) }),
  ]),
);

export type WorkflowRemindPayload = Static<typeof WORKFLOW_REMIND.payload>;

function remindJobKey(p: { scope: 'document'; signerRowId: string } | { scope: 'set'; setSignerId: string }): string {
  return p.scope === 'document' ? `remind:signer:${p.signerRowId}` : `remind:set-signer:${p.setSignerId}`;
}

/** Schedules the signer's reminder at runAt (as soon as a worker is free without it), replacing any. */
export async function addWorkflowRemindJob(trx: Transaction<Database>, payload: WorkflowRemindPayload, runAt?: Date): Promise<void> {
  await queueJob(trx, WORKFLOW_REMIND, payload, { runAt, jobKey: remindJobKey(payload) });
}

/** Removes the signer's waiting reminder (the signer is done, replaced, or the flow ended). */
export async function removeWorkflowRemindJob(
  trx: Transaction<Database>,
  signer: { scope: 'document'; signerRowId: string } | { scope: 'set'; setSignerId: string },
): Promise<void> {
  await removeJob(trx, remindJobKey(signer));
}
