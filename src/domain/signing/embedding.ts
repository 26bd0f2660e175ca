// Embedding mode: an account lists the origins allowed to show its signer pages in a frame
// (`frame_origins`, empty by default). The site that embeds names itself in the page's address,
// `?embed_origin=<its origin>`; the page answers with CSP `frame-ancestors <that origin>` when the
// link's account lists it, and `frame-ancestors 'none'` otherwise (frame-guard.ts). One origin, not
// the whole list: the page then knows its parent's origin exactly and posts its events to that
// origin alone (web/src/embed-events.ts), never to `*`.
import type { Deps } from '../deps.js';
import { hashToken } from '../ids.js';
import { frameOriginsOf } from '../../store/accounts-repo.js';
import { findSetSignerByToken } from '../../store/set-signers-repo.js';
import { findByToken } from '../../store/signing-repo.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The origin that may frame this link's page: `asked` when the account behind the link lists it,
 * else null (an unknown link, no origin asked, or one the account did not list).
 */
export async function embeddingOrigin(
  deps: Pick<Deps, 'db'>,
  link: { kind: 'document' | 'set'; token: string },
  asked: string | undefined,
): Promise<string | null> {
  if (!asked || !TOKEN.test(link.token)) {
    return null;
  }
  const hash = hashToken(link.token);
  const accountId =
    link.kind === 'set'
      ? (await findSetSignerByToken(deps.db, hash))?.set.account_id
      : (await findByToken(deps.db, hash, false))?.document.account_id;
  if (!accountId) {
    return null;
  }
  // Compared as stored: origins are kept in their serialised form (account-brand.ts).
  return (await frameOriginsOf(deps.db, accountId)).includes(asked) ? asked : null;
}
