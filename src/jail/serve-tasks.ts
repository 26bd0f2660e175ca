// The worker side of WorkerPool: answers each message by running the named task, and sends back
// its output or its error. Errors cross the thread as plain data (structured clone keeps no class),
// so each worker module says what of its errors the parent needs (`data`) to rebuild them.
import { parentPort } from 'node:worker_threads';

/** A task's error as it crosses to the parent thread. */
export interface TaskFailure {
  name: string;
  message: string;
  /** Whatever the worker module adds to rebuild its error in the parent (a problem code, details). */
  data?: Record<string, unknown>;
}

export type TaskHandlers = Record<string, (input: never) => unknown>;

let retiring = false;

/**
 * Asks the pool to end this worker once the current task is answered (its next task gets a fresh
 * one): for memory the worker cannot give back, such as a WebAssembly memory that only grows.
 */
export function retireAfterTask(): void {
  retiring = true;
}

export function serveTasks(handlers: TaskHandlers, describe: (err: unknown) => TaskFailure['data'] = () => undefined): void {
  parentPort!.on('message', async (m: { id: number; task: string; input: unknown }) => {
    try {
      const handler = handlers[m.task];
      if (!handler) {
        throw new Error(`no task ${m.task} in this worker`);
      }
      const output = await (handler as (input: unknown) => unknown)(m.input);
      parentPort!.postMessage({ id: m.id, output, ...(retiring ? { retire: true } : {}) });
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      // A failed task's worker retires too when it asked to: its memory is no smaller for the failure.
      parentPort!.postMessage({
        id: m.id,
        failure: { name: e.name, message: e.message, data: describe(err) },
        ...(retiring ? { retire: true } : {}),
      });
    }
  });
}
