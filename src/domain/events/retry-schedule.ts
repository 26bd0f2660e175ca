// When a failed delivery is tried again (decisions.md "Events"): after 5 s, 5 min, 30 min, 2 h,
// 5 h, 10 h, 14 h, 20 h and 24 h, each ±10% so that deliveries that failed together (a receiver
// that was down) do not all come back at the same instant. Ten attempts in all, about 3 days.

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

/** Wait before attempt n+1 after attempt n failed, for n = 1..9. */
export const RETRY_DELAYS_MS = [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H] as const;

/** The first attempt and one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export const JITTER = 0.1;

/**
 * The wait after failed attempt number `attempt` (1-based), or undefined when it was the last.
 * `random` returns a number in [0, 1), like Math.random.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) {
    return undefined;
  }
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(base * (1 + JITTER * (2 * r - 1)));
}
