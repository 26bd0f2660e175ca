// Panel sessions: made by following a sign-in link, found by the cookie on each request, ended by
// signing out (or by the operator). The session id and the CSRF token are random; only the id's
// SHA-256 is stored, and the CSRF token is compared in constant time.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { hashToken } from '../ids.js';
import { findAccountById } from '../../store/accounts-repo.js';
import { consumeSignInLink, endSession, insertSession, touchSession, type PanelSessionRow } from '../../store/panel-repo.js';
import { SESSION_ABSOLUTE_HOURS, SESSION_IDLE_MINUTES } from './panel-settings.js';

export type PanelSession = PanelSessionRow & { web_id: string; account_name: string; idle_expires_at: Date };

/** Trades a sign-in link's token for a new session; the link is used up. */
export async function signIn(
  deps: Pick<Deps, 'db' | 'clock'>,
  o: { token: string },
): Promise<{ sessionId: string; csrfToken: string; expiresAt: Date }> {
  const now = deps.clock.now();
  const user = /^[A-Za-z0-9_-]{43}$/.test(o.token) ? await consumeSignInLink(deps.db, hashToken(o.token), now) : undefined;
  if (!user) {
    throw new AppError(
      'SIGN_IN_LINK_INVALID',
      'this sign-in link is not valid: it was used already, it expired, or it is incomplete; ask for a new one',
    );
  }
  const sessionId = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_HOURS * 3_600_000);
  await insertSession(deps.db, { sessionHash: hashToken(sessionId), user, csrfToken, at: now, expiresAt });
  return { sessionId, csrfToken, expiresAt };
}

/** The live session the cookie names, or a 401 PANEL_SESSION_REQUIRED. */
export async function currentSession(deps: Pick<Deps, 'db' | 'clock'>, sessionId: string | undefined): Promise<PanelSession> {
  const now = deps.clock.now();
  const row =
    sessionId && /^[A-Za-z0-9_-]{43}$/.test(sessionId)
      ? await touchSession(deps.db, hashToken(sessionId), now, SESSION_IDLE_MINUTES * 60_000)
      : undefined;
  const account = row ? await findAccountById(deps.db, row.account_id) : undefined;
  if (!row || !account) {
    throw new AppError('PANEL_SESSION_REQUIRED', 'sign in to the panel: no session, or it ended or expired');
  }
  const idle = new Date(now.getTime() + SESSION_IDLE_MINUTES * 60_000);
  return {
    ...row,
    web_id: account.web_id,
    account_name: account.name,
    idle_expires_at: idle < row.expires_at ? idle : row.expires_at,
  };
}

/** Whether the header holds the session's CSRF token (constant time: no byte-by-byte guessing). */
export function csrfMatches(session: PanelSession, header: string | undefined): boolean {
  if (typeof header !== 'string') {
    return false;
  }
  const a = Buffer.from(header);
  const b = Buffer.from(session.csrf_token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function signOut(deps: Pick<Deps, 'db' | 'clock'>, session: PanelSession): Promise<void> {
  await endSession(deps.db, session.id, deps.clock.now());
}
