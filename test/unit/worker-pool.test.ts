import { afterEach, describe, expect, it } from 'vitest';
import { WorkerLimitError, WorkerPool } from '../../src/jail/worker-pool.js';

const entry = new URL('../helpers/pool-worker.ts', import.meta.url);
let pool: WorkerPool | undefined;
afterEach(() => pool?.close());

/** Lets a worker fail, exit or be replaced before the next step. */
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WorkerPool', () => {
  it('survives a worker that fails while idle, and answers the next task with a fresh worker', async () => {
    pool = new WorkerPool({ entry, size: 1, timeoutMs: 10_000 });
    // Unheard, the idle worker's failure would be an uncaught exception that fails this run.
    expect(await pool.run('failWhenIdle', 'first')).toBe('first');
    await settle(500);
    expect(await pool.run('echo', 'second')).toBe('second');
  });

  it('keeps a worker between tasks, and replaces one that asked to retire after answering', async () => {
    pool = new WorkerPool({ entry, size: 1, timeoutMs: 10_000 });
    const first = await pool.run<number>('threadId', null);
    expect(await pool.run<number>('threadId', null)).toBe(first);
    expect(await pool.run<number>('retire', null)).toBe(first);
    const next = await pool.run<number>('threadId', null);
    expect(next).not.toBe(first);
    expect(await pool.run<number>('threadId', null)).toBe(next);
  });

  it('replaces a worker that asked to retire and then failed its task', async () => {
    pool = new WorkerPool({ entry, size: 1, timeoutMs: 10_000 });
    const first = await pool.run<number>('threadId', null);
    await expect(pool.run('retireAndFail', null)).rejects.toThrow(`failed on thread ${first}`);
    expect(await pool.run<number>('threadId', null)).not.toBe(first);
  });

  it('stops a task that runs out of memory, then serves the next', async () => {
    pool = new WorkerPool({ entry, size: 1, timeoutMs: 20_000, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    const err = await pool.run('exhaustMemory', null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerLimitError);
    expect((err as WorkerLimitError).limit).toBe('memory');
    expect(await pool.run('echo', 'after')).toBe('after');
  });

  it('stops a task at its time limit even when it is running out of memory as the limit falls', async () => {
    // The time limit terminates the worker while it allocates: its memory failure may arrive after
    // the task was answered, with no task listening. It must not escape as an uncaught exception
    // (which fails this run). The limit is short, so each attempt ends by time or by memory.
    pool = new WorkerPool({ entry, size: 1, timeoutMs: 300, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    for (let i = 0; i < 5; i++) {
      const err = await pool.run('exhaustMemory', null).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkerLimitError);
    }
    await settle(500);
  });
});
