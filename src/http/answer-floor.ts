// An answer that must not tell two cases apart by when it leaves (a 401 for an unknown web id or
// for a wrong signature; "a link was sent" for a known or an unknown address) is held until a
// floor after its request arrived. The work of either case is far below the floor, so both leave
// at the floor. The wait goes through the app (app.ts decorates it), so a test can see each
// answer take its floor without timing one.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';

/** Holds `reply` until `floorMs` after its request arrived (reply.elapsedTime, Fastify's clock). */
export type AnswerFloor = (reply: FastifyReply, floorMs: number) => Promise<void>;

/** The floor as the service runs it: a timer for what is left, no CPU spent. */
export function holdUntilFloor(wait: (ms: number) => Promise<unknown> = sleep): AnswerFloor {
  return async (reply, floorMs) => {
    const left = floorMs - reply.elapsedTime;
    if (left > 0) {
      await wait(left);
    }
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where timing-equalised answers wait (http/answer-floor.ts). */
    answerFloor: AnswerFloor;
  }
}
