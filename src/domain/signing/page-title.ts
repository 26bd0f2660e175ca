// The title of the signer page as the service sends it, before its script runs (the browser's tab,
// a shared link's preview, a page read without JavaScript): what the link opens and who asks for
// it, as the page's header names them (web/src/components/PageShell.tsx): the account's brand
// name, else Sello's unless the account hides it, then the account's own name. The bare page's
// "Sello" would otherwise show for an account that hides Sello's name.
import type { Deps } from '../deps.js';
import { hashToken } from '../ids.js';
import { documentTitleByTicket, documentTitleByToken, type PageTitleRow, setTitleByToken } from '../../store/page-title-repo.js';

/** The title of a page whose link is unknown: there is no account whose brand could replace Sello's. */
export const DEFAULT_PAGE_TITLE = 'Sello';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type TitledPage = { kind: 'document' | 'set'; token: string } | { kind: 'ticket'; ticket: string };

export async function signerPageTitle(deps: Pick<Deps, 'db'>, page: TitledPage): Promise<string> {
  let row: PageTitleRow | undefined;
  if (page.kind === 'ticket') {
    row = await documentTitleByTicket(deps.db, page.ticket);
  } else if (TOKEN.test(page.token)) {
    const hash = hashToken(page.token);
    row = page.kind === 'set' ? await setTitleByToken(deps.db, hash) : await documentTitleByToken(deps.db, hash);
  }
  if (!row) {
    return DEFAULT_PAGE_TITLE;
  }
  const brand = row.brand_name ?? (row.hide_sello ? row.account_name : DEFAULT_PAGE_TITLE);
  return [row.name, brand].filter((s) => s.trim() !== '').join(' · ');
}
