// The account panel's "send a test event": one signed POST to the account's webhook URL, now, with
// the body and Standard Webhooks headers of a real delivery and `notification_type: "webhook_test"`,
// so a receiver's signature check and routing can be tried. It is not an event of the API (no
// notification, not retried, not in the delivery log): the answer says how the receiver replied.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { newPublicId } from '../ids.js';
import { webhookOf } from '../../store/accounts-repo.js';
import { postWebhook } from './post-webhook.js';

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
  const { status, error } = await postWebhook(deps, { url: hook.url, secretEnc: hook.secretEnc, id, at, body });
  return { url: hook.url, notification_id: id, delivered: status !== null && status >= 200 && status < 300, status, error };
}
