// A task's payload, typed once: the TypeBox schema in jobs/payloads/<task>.ts types the code that
// adds the job and is checked again by the handler, since a payload is JSON read back from the
// queue (a job added by an older release, or by hand with graphile_worker.add_job).
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { JobHelpers, Task } from 'graphile-worker';
import type { Transaction } from 'kysely';
import { addJob, type JobOptions } from '../store/job-queue.js';
import type { Database } from '../store/schema.js';

/** A graphile-worker task: its identifier and the schema of its payload. */
export interface JobDefinition<S extends TSchema> {
  task: string;
  payload: S;
}

export function defineJob<S extends TSchema>(task: string, payload: S): JobDefinition<S> {
  return { task, payload };
}

/** Adds the job in the caller's transaction; a payload off its schema is a bug of the caller. */
export async function queueJob<S extends TSchema>(
  trx: Transaction<Database>,
  def: JobDefinition<S>,
  payload: Static<S>,
  options: JobOptions = {},
): Promise<void> {
  const problem = payloadProblem(def, payload);
  if (problem) {
    throw new Error(`${def.task}: refusing to queue a malformed payload: ${problem}`);
  }
  await addJob(trx, def.task, payload, options);
}

/**
 * The task's handler, given only payloads that match the schema. Retrying cannot make a malformed
 * payload valid: such a job is logged with what is wrong and dropped (completed), instead of
 * failing the same way through every retry.
 */
export function payloadTask<S extends TSchema>(
  def: JobDefinition<S>,
  run: (payload: Static<S>, helpers: JobHelpers) => Promise<void>,
): Task {
  return async (payload, helpers) => {
    const problem = payloadProblem(def, payload);
    if (problem) {
      helpers.logger.error(`${def.task}: malformed payload (${problem}); job ${helpers.job.id} dropped`);
      return;
    }
    await run(payload as Static<S>, helpers);
  };
}

/** The first thing wrong with a payload, or undefined when it matches the schema. */
export function payloadProblem<S extends TSchema>(def: JobDefinition<S>, payload: unknown): string | undefined {
  if (Value.Check(def.payload, payload)) {
    return undefined;
  }
  const first = Value.Errors(def.payload, payload).First();
  return first ? `${first.path || '/'}: ${first.message}` : 'does not match the schema';
}
