// One signed POST of a webhook body (Standard Webhooks headers), as every delivery attempt makes
// it (jobs/deliver-webhook.ts) and as the panel's test event does (send-test-event.ts): through the
// address guard, no redirects, a bounded answer and time.
import type { Deps } from '../deps.js';
import { UrlGuardError } from '../../net/url-guard.js';
import { webhookHeaders } from './webhook-signature.js';

/** Success is any 2xx within this time (decisions.md). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Receivers answer with a short acknowledgement; more than this counts as a failed attempt. */
export const RESPONSE_MAX_BYTES = 64 * 1024;
export const USER_AGENT = 'Sello-Webhooks/1';

/** The receiver's status, or why no answer came (the guard's reason, or NETWORK). */
export async function postWebhook(
  deps: Pick<Deps, 'secrets' | 'fetchUrl' | 'config'>,
  o: { url: string; secretEnc: Buffer; id: string; at: Date; body: string },
): Promise<{ status: number | null; error: string | null }> {
  const headers = {
    ...webhookHeaders(deps.secrets.open(o.secretEnc), o.id, Math.floor(o.at.getTime() / 1000), o.body),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
  };
  try {
    const res = await deps.fetchUrl(o.url, {
      method: 'POST',
      headers,
      body: o.body,
      maxBytes: RESPONSE_MAX_BYTES,
      totalTimeoutMs: DELIVERY_TIMEOUT_MS,
      maxRedirects: 0,
      allowPrivate: deps.config.allowPrivateUrls,
    });
    return { status: res.status, error: null };
  } catch (err) {
    return { status: null, error: err instanceof UrlGuardError ? `${err.reason}: ${err.message}` : `NETWORK: ${(err as Error).message}` };
  }
}
