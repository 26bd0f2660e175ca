// The account panel's webhook settings: the URL, whether a secret is set, and a new secret that
// replaces the old one at once (shown once, in the answer). Setting the URL goes through
// set-webhook.ts, as the command line does.
import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { setWebhook, webhookOf } from '../../store/accounts-repo.js';

export async function accountWebhook(
  deps: Pick<Deps, 'db'>,
  o: { accountId: string },
): Promise<{ url: string | null; secret_set: boolean }> {
  const w = await webhookOf(deps.db, o.accountId);
  return { url: w?.url ?? null, secret_set: Boolean(w?.secretEnc) };
}

export async function rotateWebhookSecret(
  deps: Pick<Deps, 'db' | 'secrets'>,
  o: { accountId: string },
): Promise<{ url: string; secret: string }> {
  const w = await webhookOf(deps.db, o.accountId);
  if (!w?.url) {
    throw new AppError('WEBHOOK_NOT_SET', 'the account has no webhook URL: set one first');
  }
  // Standard Webhooks: "whsec_" + Base64 of 32 random bytes, as set-webhook.ts issues them.
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  await setWebhook(deps.db, o.accountId, w.url, deps.secrets.seal(secret));
  return { url: w.url, secret };
}
