// How often the sign-in page may ask for links: per address (so nobody floods a person's inbox)
// and per client address (so nobody walks a list of addresses). Counted across processes in fixed
// windows, like the API's rate limit (http/rate-limit.ts).
import { LINK_REQUEST_WINDOW_MINUTES, LINK_REQUESTS_PER_ADDRESS, LINK_REQUESTS_PER_IP } from '../../domain/panel/panel-settings.js';
import type { SharedRequestCounts } from '../rate-limit.js';

export function createLinkRequestLimit(counts: SharedRequestCounts) {
  const windowMs = LINK_REQUEST_WINDOW_MINUTES * 60_000;
  /** Counts one request; answers 0, or the seconds until the window ends when over a limit. */
  return function hit(email: string, ip: string): number {
    const byEmail = counts.hit(`panel-link-email:${email}`, windowMs);
    const byIp = counts.hit(`panel-link-ip:${ip}`, windowMs);
    if (byEmail.count <= LINK_REQUESTS_PER_ADDRESS && byIp.count <= LINK_REQUESTS_PER_IP) {
      return 0;
    }
    return Math.max(1, Math.ceil(byEmail.msLeft / 1000));
  };
}
