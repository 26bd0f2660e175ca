// An account's active API keys in clear, for the operator's commands on the server (`sello auth
// check` shows the signature each key gives; `sello api` signs with the newest). The HTTP door
// never shows a key after the answer that created it.
import type { Deps } from '../deps.js';
import { activeKeysOf } from '../../store/accounts-repo.js';

/** The keys, newest first (possibly none), or undefined when no account has this web id. */
export async function activeApiKeys(deps: Pick<Deps, 'db' | 'secrets'>, o: { webId: string }): Promise<string[] | undefined> {
  const found = await activeKeysOf(deps.db, o.webId);
  return found?.keys.map((k) => deps.secrets.open(k));
}
