// Rate limits counted across every process of the service: requests a minute per account
// (decisions.md: 600 by default), and the public pages' limits per ticket or client address.
//
// Where the counts live. A request must not wait for the database to be counted (the limit would
// add a round trip to every request), and one counter row per account updated by every request
// would be a hot row: at the hundreds of requests a second one node takes, every request of an
// account would queue on that row's lock. So each process counts in memory and decides at once on
// what it knows: its own count of the key in the current window plus the other processes' counts
// as of its last exchange. About once a second (FLUSH_MS) it exchanges with PostgreSQL, in one
// statement for all the keys it saw: its new counts are added to its own row of each key (one row
// per key, window and process: no two processes ever write the same row) and the others' rows are
// summed back (store/rate-counts-repo.ts). The limit therefore holds across processes within one
// exchange of slack: each other process may accept what reaches it in about a second before this
// one hears of it. Windows are fixed and aligned on the clock (a minute for the API), so every
// process counts into the same window.
//
// When the database does not answer, the exchange is retried at the next interval with the counts
// kept, and each process limits on what it knows meanwhile.
import type { SharedRequestCounts } from '../domain/service/shared-request-counts.js';

export { FLUSH_MS, SharedRequestCounts } from '../domain/service/shared-request-counts.js';

/**
 * A limit of `perWindow` requests per key in fixed windows of `windowMs`, counted across processes.
 * The function counts a request and answers 0, or the seconds to wait when over the limit.
 */
export function createRateLimiter(counts: SharedRequestCounts, opts: { scope: string; perWindow: number; windowMs?: number }) {
  const windowMs = opts.windowMs ?? 60_000;
  return function hit(key: string): number {
    if (opts.perWindow <= 0) {
      return 0;
    }
    const { count, msLeft } = counts.hit(`${opts.scope}:${key}`, windowMs);
    return count <= opts.perWindow ? 0 : Math.max(1, Math.ceil(msLeft / 1000));
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate limits' counts, shared with the other processes (http/rate-limit.ts). */
    requestCounts: SharedRequestCounts;
  }
}
