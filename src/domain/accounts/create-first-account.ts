// The very first start of the service: with no account yet, one is created so the operator can
// call the API at once. Its credentials are returned once, to be printed.
import type { Deps } from '../deps.js';
import { countAccounts } from '../../store/accounts-repo.js';
import { createAccount } from './create-account.js';

/** The new account's credentials, or undefined when an account exists already. */
export async function createFirstAccount(
  deps: Parameters<typeof createAccount>[0] & Pick<Deps, 'db'>,
  o: { name: string },
): Promise<Awaited<ReturnType<typeof createAccount>> | undefined> {
  if ((await countAccounts(deps.db)) > 0) {
    return undefined;
  }
  return createAccount(deps, { name: o.name });
}
