// A worker module for the worker pool's own tests: tasks that misbehave in the ways a parser can.
import { threadId } from 'node:worker_threads';
import { retireAfterTask, serveTasks } from '../../src/jail/serve-tasks.js';

serveTasks({
  echo: (input: string) => input,
  threadId: () => threadId,
  /** Answers with its thread, and asks to be replaced after (memory it cannot give back). */
  retire: () => {
    retireAfterTask();
    return threadId;
  },
  /** Asks to be replaced after, then fails (a task that left memory behind and then threw). */
  retireAndFail: () => {
    retireAfterTask();
    throw new Error(`failed on thread ${threadId}`);
  },
  /** Answers, then fails while its worker sits idle in the pool. */
  failWhenIdle: (input: string) => {
    setTimeout(() => {
      throw new Error('failed after answering');
    }, 20);
    return input;
  },
  /** Allocates without end: the worker's memory limit stops it. */
  exhaustMemory: () => {
    const hoard: number[][] = [];
    for (;;) {
      hoard.push(new Array(1 << 16).fill(hoard.length));
    }
  },
});
