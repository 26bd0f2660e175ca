// `sello panel invite --web-id ID --email E`: makes the person a panel user of the account (again
// is harmless) and emails them a sign-in link.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import type { Language } from '../../notify/email-templates.js';
import { findAccountByWebId } from '../../store/accounts-repo.js';
import { upsertPanelUser } from '../../store/panel-repo.js';
import { panelEmail } from './panel-email.js';
import { sendSignInLink } from './send-sign-in-link.js';

export async function invitePanelUser(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'secrets'>,
  o: { webId: string; email: string; language?: Language },
): Promise<{ webId: string; email: string }> {
  const email = panelEmail(o.email);
  const account = await findAccountByWebId(deps.db, o.webId);
  if (!account) {
    throw new AppError('ACCOUNT_NOT_FOUND', `no account with web id ${o.webId}`);
  }
  await deps.db.transaction().execute(async (trx) => {
    const user = await upsertPanelUser(trx, { accountId: account.id, email, at: deps.clock.now() });
    await sendSignInLink(trx, deps, { user, accountName: account.name, language: o.language ?? 'es' });
  });
  return { webId: account.web_id, email };
}
