// `sello panel sessions end`: the operator ends a panel user's sessions, in every account or in
// one (--web-id), at once: the next request with such a session's cookie is refused.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { findAccountByWebId } from '../../store/accounts-repo.js';
import { endSessionsOf } from '../../store/panel-repo.js';

/** How many sessions were ended. */
export async function endPanelSessions(deps: Pick<Deps, 'db' | 'clock'>, o: { email: string; webId?: string }): Promise<number> {
  let accountId: string | undefined;
  if (o.webId !== undefined) {
    const account = await findAccountByWebId(deps.db, o.webId);
    if (!account) {
      throw new AppError('ACCOUNT_NOT_FOUND', `no account with web id ${o.webId}`);
    }
    accountId = account.id;
  }
  return endSessionsOf(deps.db, o.email, deps.clock.now(), accountId);
}
