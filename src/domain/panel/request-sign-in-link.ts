// The sign-in page's "send me a link": a link for each account the address is a panel user of.
// The caller answers the same whatever happens here, so the page never tells whether an address
// is known.
import type { Deps } from '../deps.js';
import type { Language } from '../../notify/email-templates.js';
import { findAccountById } from '../../store/accounts-repo.js';
import { panelUsersByEmail } from '../../store/panel-repo.js';
import { sendSignInLink } from './send-sign-in-link.js';

export async function requestSignInLink(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'secrets'>,
  o: { email: string; language: Language },
): Promise<void> {
  const users = await panelUsersByEmail(deps.db, o.email);
  for (const user of users) {
    const account = await findAccountById(deps.db, user.account_id);
    await deps.db
      .transaction()
      .execute((trx) => sendSignInLink(trx, deps, { user, accountName: account?.name ?? '', language: o.language }));
  }
}
