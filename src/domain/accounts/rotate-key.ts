import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { addKeyKeepingNewest, findAccountByWebId } from '../../store/accounts-repo.js';
import { newApiKey, type Credentials } from './create-account.js';

/**
 * Issues a new API key. The previous key stays valid so clients can switch without downtime; at
 * most two keys are active, so the one before that stops working now.
 */
export async function rotateKey(deps: Pick<Deps, 'db' | 'secrets'>, opts: { webId: string }): Promise<Credentials> {
  const account = await findAccountByWebId(deps.db, opts.webId);
  if (!account) {
    throw new AppError('ACCOUNT_NOT_FOUND', `no account with web id ${opts.webId}`);
  }
  const apiKey = newApiKey();
  await addKeyKeepingNewest(deps.db, account.id, deps.secrets.seal(apiKey));
  return { webId: account.web_id, apiKey };
}
