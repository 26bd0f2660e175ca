// Issues a one-time sign-in link for a panel user and queues the email that carries it, in the
// caller's transaction: the link row and its email commit together, or neither does. The link
// carries the token in the fragment (#token=…), which browsers never send to a server: it stays
// out of access logs and referrers, and a mail scanner that fetches the link uses nothing up,
// since only the page's POST signs in.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { newSigningToken } from '../ids.js';
import { queueEmail } from '../mail/queue-email.js';
import { panelSignInMail, type Language } from '../../notify/email-templates.js';
import { insertSignInLink, type PanelUser } from '../../store/panel-repo.js';
import type { Database } from '../../store/schema.js';
import { SIGN_IN_LINK_MINUTES } from './panel-settings.js';

export async function sendSignInLink(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock' | 'config' | 'secrets'>,
  o: { user: PanelUser; accountName: string; language: Language },
): Promise<void> {
  const now = deps.clock.now();
  const { token, hash } = newSigningToken();
  await insertSignInLink(trx, {
    userId: o.user.id,
    tokenHash: hash,
    at: now,
    expiresAt: new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000),
  });
  const url = `${deps.config.publicUrl}/panel/sign-in#token=${token}`;
  await queueEmail(trx, deps, {
    accountId: o.user.account_id,
    documentId: null,
    kind: 'panel_sign_in',
    to: o.user.email,
    // The operator's service speaks here, as on the sign-in page: under its name, not the account's
    // brand (the From name follows it too: jobs/send-email.ts).
    mail: panelSignInMail({
      language: o.language,
      accountName: o.accountName,
      service: deps.config.operatorBrand.name,
      url,
      minutes: SIGN_IN_LINK_MINUTES,
    }),
  });
}
