// Requests a minute per account (decisions.md: 600 by default). A fixed one-minute window per
// account, counted in this process: with N API processes behind a balancer the effective limit is
// up to N times the setting, which docs/configuration.md states.

/** Returns a function that counts a request and answers 0, or the seconds to wait when over the limit. */
export function createRateLimiter(perMinute: number, nowMs: () => number) {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  return function hit(accountId: string): number {
    if (perMinute <= 0) {
      return 0;
    }
    const now = nowMs();
    const windowStart = now - (now % 60_000);
    if (windowStart !== lastSweep) {
      // Forget accounts from past windows so the map stays as small as the active accounts.
      for (const [k, w] of windows) {
        if (w.start !== windowStart) {
          windows.delete(k);
        }
      }
      lastSweep = windowStart;
    }
    let w = windows.get(accountId);
    if (!w) {
      w = { start: windowStart, count: 0 };
      windows.set(accountId, w);
    }
    w.count++;
    if (w.count <= perMinute) {
      return 0;
    }
    return Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000));
  };
}
