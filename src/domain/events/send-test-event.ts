// The account panel's "send a test event": one signed POST to the account's webhook URL, now, with
// the body and Standard Webhooks headers of a real delivery and `notification_type: "webhook_test"`,
// so a receiver's signature check and routing can be tried. It is not an event of the API (no
// notification, not retried, not in the delivery log): the answer says how the receiver replied.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { newPublicId } from '../ids.js';
import { DELIVERY_TIMEOUT_MS, RESPONSE_MAX_BYTES, USER_AGENT } from '../../jobs/deliver-webhook.js';
import { UrlGuardError } from '../../net/url-guard.js';
import { webhookOf } from '../../store/accounts-repo.js';
import { webhookHeaders } from './webhook-signature.js';

export interface TestEventResult {
  url: string;
  notification_id: string;
  delivered: boolean;
  status: number | null;
  error: string | null;
}

export async function sendTestEvent(
  deps: Pick<Deps, 'db' | 'secrets' | 'clock' | 'fetchUrl' | 'config'>,
  o: { accountId: string },
): Promise<TestEventResult> {
  const hook = await webhookOf(deps.db, o.accountId);
  if (!hook?.url || !hook.secretEnc) {
    throw new AppError('WEBHOOK_NOT_SET', 'the account has no webhook URL: set one first');
  }
  const at = deps.clock.now();
  const id = newPublicId();
  const body = JSON.stringify({
    notification_id: id,
    notification_type: 'webhook_test',
    document_ticket: null,
    document_title: null,
    document_set: null,
    created_at: at.toISOString(),
    meta: { test: true },
  });
  const headers = {
    ...webhookHeaders(deps.secrets.open(hook.secretEnc), id, Math.floor(at.getTime() / 1000), body),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
  };
  try {
    const res = await deps.fetchUrl(hook.url, {
      method: 'POST',
      headers,
      body,
      maxBytes: RESPONSE_MAX_BYTES,
      totalTimeoutMs: DELIVERY_TIMEOUT_MS,
      maxRedirects: 0,
      allowPrivate: deps.config.allowPrivateUrls,
    });
    return { url: hook.url, notification_id: id, delivered: res.status >= 200 && res.status < 300, status: res.status, error: null };
  } catch (err) {
    const error = err instanceof UrlGuardError ? `${err.reason}: ${err.message}` : `NETWORK: ${(err as Error).message}`;
    return { url: hook.url, notification_id: id, delivered: false, status: null, error };
  }
}
