// How often the sign-in page may ask for links: per address (so nobody floods a person's inbox)
// and per client address (so nobody walks a list of addresses). Counted in this process, in fixed
// windows, like the API's rate limit (http/rate-limit.ts); the clock is injected.
import { LINK_REQUEST_WINDOW_MINUTES, LINK_REQUESTS_PER_ADDRESS, LINK_REQUESTS_PER_IP } from '../../domain/panel/panel-settings.js';

export function createLinkRequestLimit(nowMs: () => number) {
  const windowMs = LINK_REQUEST_WINDOW_MINUTES * 60_000;
  const counts = new Map<string, number>();
  let windowStart = 0;
  /** Counts one request; answers 0, or the seconds until the window ends when over a limit. */
  return function hit(email: string, ip: string): number {
    const now = nowMs();
    const start = now - (now % windowMs);
    if (start !== windowStart) {
      counts.clear();
      windowStart = start;
    }
    const byEmail = (counts.get(`e:${email}`) ?? 0) + 1;
    const byIp = (counts.get(`i:${ip}`) ?? 0) + 1;
    counts.set(`e:${email}`, byEmail);
    counts.set(`i:${ip}`, byIp);
    if (byEmail <= LINK_REQUESTS_PER_ADDRESS && byIp <= LINK_REQUESTS_PER_IP) {
      return 0;
    }
    return Math.max(1, Math.ceil((start + windowMs - now) / 1000));
  };
}
