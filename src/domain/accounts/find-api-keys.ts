// The sealed API keys an HMAC signature is checked against (http/auth.ts): the account behind a web
// id and its active keys, newest first, as stored (opened by the caller, so that an unknown web id
// can open as many dummy keys and take the same time).
import type { Deps } from '../deps.js';
import { MAX_ACTIVE_KEYS, activeKeysOf } from '../../store/accounts-repo.js';

/** Most keys an account has active at once: a request's signature is compared with this many slots. */
export { MAX_ACTIVE_KEYS };

/** The account of `webId` and its active keys (sealed); undefined for a web id no account has. */
export async function findActiveApiKeys(deps: Pick<Deps, 'db'>, webId: string): Promise<{ accountId: string; keys: Buffer[] } | undefined> {
  return activeKeysOf(deps.db, webId);
}
