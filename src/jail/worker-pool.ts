// A small pool of worker threads for work that must not run on the main thread: code that is
// synchronous for long stretches (pdfmake's layout) or that parses hostile input (a PDF parser
// looping on a stray delimiter, allocating without end). On the main thread such work stops every
// request of the process and can take it down; in a worker it stops that worker only, which is
// terminated when the task runs out of time or memory, and replaced for the next task.
//
// Tasks are named; the worker module answers them through serveTasks (serve-tasks.ts). Work beyond
// the pool's size waits in a bounded queue, in arrival order: a burst is refused at once rather
// than piling up work the pool could not finish in time anyway.
import { extname } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { TaskFailure } from './serve-tasks.js';

export interface WorkerPoolOptions {
  /** The worker's module (started through worker-boot.mjs), named by workerModule(). */
  entry: URL;
  /** Tasks at once, one worker each. */
  size: number;
  /** Most tasks waiting for a worker; beyond it, run() rejects with PoolBusyError. */
  maxQueue?: number;
  /** Longest a task may run before its worker is terminated. */
  timeoutMs: number;
  /** Heap limits of each worker (V8 stops a worker that exceeds them). */
  resourceLimits?: ResourceLimits;
}

/** The task ran out of time or memory; its worker was terminated. */
export class WorkerLimitError extends Error {
  constructor(
    readonly limit: 'time' | 'memory',
    message: string,
  ) {
    super(message);
    this.name = 'WorkerLimitError';
  }
}

/** The task threw in the worker: its serialized error (name, message and the data it chose to send). */
export class WorkerTaskError extends Error {
  constructor(readonly failure: TaskFailure) {
    super(failure.message);
    this.name = 'WorkerTaskError';
  }
}

/** The worker died for another reason (it could not start, or crashed). */
export class WorkerCrashError extends Error {
  override name = 'WorkerCrashError';
}

/** The queue is full, or the pool is closed. */
export class PoolBusyError extends Error {
  override name = 'PoolBusyError';
}

/** Longest a fresh worker may take to load its modules before it counts as unable to start. */
const BOOT_LIMIT_MS = 60_000;

interface Job {
  task: string;
  input: unknown;
  resolve: (output: unknown) => void;
  reject: (err: Error) => void;
}

const BOOT = new URL('./worker-boot.mjs', import.meta.url);

/**
 * The worker module `name` beside the module at `base` (its import.meta.url), named with that
 * module's own extension: .js when the service runs its build, .ts when the sources run (tsx,
 * vitest), so a worker runs the same code as the thread that starts it.
 */
export function workerModule(name: string, base: string): URL {
  return new URL(`./${name}${extname(new URL(base).pathname)}`, base);
}

export class WorkerPool {
  private readonly idle: Worker[] = [];
  private readonly queue: Job[] = [];
  private busy = 0;
  private nextId = 1;
  private closed = false;
  private readonly size: number;
  private readonly maxQueue: number;

  constructor(private readonly opts: WorkerPoolOptions) {
    this.size = Math.max(1, opts.size);
    this.maxQueue = opts.maxQueue ?? Number.POSITIVE_INFINITY;
  }

  /** Runs `task` on `input` in a worker; the input and output are copied (structured clone). */
  run<T>(task: string, input: unknown): Promise<T> {
    if (this.closed) {
      return Promise.reject(new PoolBusyError('the worker pool is closed'));
    }
    if (this.busy >= this.size && this.queue.length >= this.maxQueue) {
      return Promise.reject(new PoolBusyError(`${this.busy} tasks running and ${this.queue.length} waiting`));
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ task, input, resolve: resolve as (o: unknown) => void, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      job.reject(new PoolBusyError('the worker pool is closed'));
    }
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }

  private pump() {
    while (this.queue.length > 0 && this.busy < this.size) {
      const job = this.queue.shift()!;
      this.busy++;
      const worker = this.idle.pop() ?? this.start();
      void this.runOn(worker, job).finally(() => {
        this.busy--;
        this.pump();
      });
    }
  }

  /** Resolves once a worker has loaded its modules (worker-boot.mjs posts {ready: true}). */
  private readonly booted = new WeakMap<Worker, Promise<boolean>>();

  private start(): Worker {
    const worker = new Worker(BOOT, {
      workerData: { entry: this.opts.entry.href },
      resourceLimits: this.opts.resourceLimits,
      stdout: false,
    });
    // A worker can fail when no task listens: it runs out of memory in the moment between its task's
    // time limit and its termination, or fails while idle (a timer its task left behind). Without a
    // listener of its own, that 'error' event would be an uncaught exception of the whole process.
    // The task, if any, has been answered already; a dead worker leaves the idle list.
    worker.on('error', () => {});
    worker.once('exit', () => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) {
        this.idle.splice(at, 1);
      }
    });
    this.booted.set(
      worker,
      new Promise<boolean>((resolve) => {
        const onReady = (m: { ready?: boolean }) => {
          if (m?.ready) {
            worker.off('message', onReady);
            clearTimeout(limit);
            resolve(true);
          }
        };
        const limit = setTimeout(() => resolve(false), BOOT_LIMIT_MS);
        worker.on('message', onReady);
        worker.once('exit', () => {
          clearTimeout(limit);
          resolve(false);
        });
      }),
    );
    return worker;
  }

  private runOn(worker: Worker, job: Job): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((done) => {
      let settled = false;
      const finish = (keep: boolean) => {
        if (settled) {
          return;
        }
        settled = true;
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (keep && !this.closed) {
          this.idle.push(worker);
        } else {
          // A worker stopped mid-task is never reused: its state is unknown.
          void worker.terminate();
        }
        done();
      };
      const onMessage = (m: { id: number; output?: unknown; failure?: TaskFailure; retire?: boolean }) => {
        if (m.id !== id) {
          return;
        }
        if (m.failure) {
          job.reject(new WorkerTaskError(m.failure));
        } else {
          job.resolve(m.output);
        }
        // A worker that asked to retire (serve-tasks.ts, retireAfterTask) is ended, not reused.
        finish(!m.retire);
      };
      const onError = (err: Error & { code?: string }) => {
        job.reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new WorkerLimitError('memory', 'the task ran out of its memory limit and was stopped')
            : new WorkerCrashError(`the worker failed: ${err.message}`),
        );
        finish(false);
      };
      const onExit = (code: number) => {
        job.reject(new WorkerCrashError(`the worker exited (code ${code})`));
        finish(false);
      };
      let timer: NodeJS.Timeout | undefined;
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, task: job.task, input: job.input });
      // The time limit runs from the moment the worker can work on the task (a reused worker: now).
      void (this.booted.get(worker) ?? Promise.resolve(true)).then((ok) => {
        if (settled) {
          return;
        }
        if (!ok) {
          job.reject(new WorkerCrashError(`the worker did not start within ${BOOT_LIMIT_MS / 1000} s`));
          finish(false);
          return;
        }
        timer = setTimeout(() => {
          job.reject(new WorkerLimitError('time', `the task did not finish within ${this.opts.timeoutMs} ms and was stopped`));
          finish(false);
        }, this.opts.timeoutMs);
      });
    });
  }
}
