// Task `bulk_run`: makes the documents of a bulk run's rows (handler: jobs/bulk-run.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { defineJob, queueJob } from '../job-payload.js';

export const BULK_RUN = defineJob('bulk_run', Type.Object({ runId: Type.String({ minLength: 1 }) }));

export type BulkRunPayload = Static<typeof BULK_RUN.payload>;

/** One job per run, added with the run: a retry after a crash goes on where the rows stand. */
export async function addBulkRunJob(trx: Transaction<Database>, payload: BulkRunPayload): Promise<void> {
  await queueJob(trx, BULK_RUN, payload, { jobKey: `${BULK_RUN.task}:${payload.runId}` });
}
