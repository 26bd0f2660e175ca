// The floor of a timing-equalised answer waits for what is left of it after the work, and nothing
// once the work took longer; the wait is injected, so no time passes here.
import type { FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { holdUntilFloor } from '../../src/http/answer-floor.js';

const replyAfter = (elapsedTime: number) => ({ elapsedTime }) as FastifyReply;

describe('holdUntilFloor', () => {
  it('waits for the rest of the floor after the work done so far', async () => {
    const waits: number[] = [];
    const floor = holdUntilFloor(async (ms) => {
      waits.push(ms);
    });
    await floor(replyAfter(3.5), 25);
    await floor(replyAfter(0), 250);
    expect(waits).toEqual([21.5, 250]);
  });

  it('does not wait once the work took the floor or longer', async () => {
    const waits: number[] = [];
    const floor = holdUntilFloor(async (ms) => {
      waits.push(ms);
    });
    await floor(replyAfter(25), 25);
    await floor(replyAfter(400), 250);
    expect(waits).toEqual([]);
  });

  it('returns only when the wait is over', async () => {
    let release!: () => void;
    const floor = holdUntilFloor(
      () =>
        new Promise<void>((r) => {
          release = r;
        }),
    );
    let done = false;
    const held = floor(replyAfter(1), 25).then(() => {
      done = true;
    });
    await new Promise((r) => setImmediate(r)); // every pending continuation runs
    expect(done).toBe(false);
    release();
    await held;
    expect(done).toBe(true);
  });
});
