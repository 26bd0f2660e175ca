import { randomBytes } from 'node:crypto';
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { findAccountByWebId, setWebhook } from '../../store/accounts-repo.js';

/**
 * Sets the account's webhook URL and issues a fresh signing secret for its deliveries
 * (Standard Webhooks: "whsec_" + Base64 of 32 random bytes).
 */
export async function setAccountWebhook(
  deps: Pick<Deps, 'db' | 'secrets'>,
  opts: { webId: string; url: string },
): Promise<{ url: string; secret: string }> {
  let parsed: URL;
  try {
    parsed = new URL(opts.url);
  } catch {
    throw invalid('url', 'expected an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid('url', 'expected an absolute http(s) URL');
  }
  const account = await findAccountByWebId(deps.db, opts.webId);
  if (!account) {
    throw new AppError('ACCOUNT_NOT_FOUND', `no account with web id ${opts.webId}`);
  }
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  await setWebhook(deps.db, account.id, parsed.href, deps.secrets.seal(secret));
  return { url: parsed.href, secret };
}
