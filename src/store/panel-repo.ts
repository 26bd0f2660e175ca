// SQL for the account panel: its users (people invited to an account), their one-time sign-in
// links and their sessions. Every lookup by a secret goes through its SHA-256.
import type { Selectable, Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, PanelSessionsTable, PanelUsersTable } from './schema.js';

type Q = Db | Transaction<Database>;

export type PanelUser = Pick<Selectable<PanelUsersTable>, 'id' | 'account_id' | 'email'>;

/** The user of that account with that address, made when missing. */
export async function upsertPanelUser(q: Q, u: { accountId: string; email: string; at: Date }): Promise<PanelUser> {
  return q
    .insertInto('panel_users')
    .values({ account_id: u.accountId, email: u.email, created_at: u.at })
    .onConflict((oc) => oc.columns(['account_id', 'email']).doUpdateSet((eb) => ({ email: eb.ref('excluded.email') })))
    .returning(['id', 'account_id', 'email'])
    .executeTakeFirstOrThrow();
}

/** Every user with that address, one per account it was invited to. */
export async function panelUsersByEmail(q: Q, email: string): Promise<PanelUser[]> {
  return q.selectFrom('panel_users').select(['id', 'account_id', 'email']).where('email', '=', email).orderBy('id').execute();
}

export async function insertSignInLink(q: Q, l: { userId: string; tokenHash: Buffer; at: Date; expiresAt: Date }): Promise<void> {
  await q
    .insertInto('panel_sign_in_links')
    .values({ user_id: l.userId, token_hash: l.tokenHash, created_at: l.at, expires_at: l.expiresAt })
    .execute();
}

/**
 * Marks the link used and answers its user, in one statement, so two sign-ins racing with one link
 * cannot both succeed; undefined when the link is unknown, used or expired.
 */
export async function consumeSignInLink(q: Q, tokenHash: Buffer, now: Date): Promise<PanelUser | undefined> {
  return q
    .updateTable('panel_sign_in_links as l')
    .from('panel_users as u')
    .set({ used_at: now })
    .where('l.token_hash', '=', tokenHash)
    .where('l.used_at', 'is', null)
    .where('l.expires_at', '>', now)
    .whereRef('u.id', '=', 'l.user_id')
    .returning(['u.id', 'u.account_id', 'u.email'])
    .executeTakeFirst();
}

export type PanelSessionRow = Pick<
  Selectable<PanelSessionsTable>,
  'id' | 'user_id' | 'account_id' | 'csrf_token' | 'created_at' | 'last_seen_at' | 'expires_at'
> &
  Pick<Selectable<PanelUsersTable>, 'email'>;

export async function insertSession(
  q: Q,
  s: { sessionHash: Buffer; user: PanelUser; csrfToken: string; at: Date; expiresAt: Date },
): Promise<void> {
  await q
    .insertInto('panel_sessions')
    .values({
      session_hash: s.sessionHash,
      user_id: s.user.id,
      account_id: s.user.account_id,
      csrf_token: s.csrfToken,
      created_at: s.at,
      last_seen_at: s.at,
      expires_at: s.expiresAt,
    })
    .execute();
}

/**
 * The live session with that id, its last activity moved to now; undefined when unknown, ended,
 * past its absolute end or idle for longer than `idleMs`.
 */
export async function touchSession(q: Q, sessionHash: Buffer, now: Date, idleMs: number): Promise<PanelSessionRow | undefined> {
  const idleSince = new Date(now.getTime() - idleMs);
  return q
    .updateTable('panel_sessions as s')
    .from('panel_users as u')
    .set({ last_seen_at: now })
    .where('s.session_hash', '=', sessionHash)
    .where('s.ended_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('s.last_seen_at', '>', idleSince)
    .whereRef('u.id', '=', 's.user_id')
    .returning(['s.id', 's.user_id', 's.account_id', 'u.email', 's.csrf_token', 's.created_at', 's.last_seen_at', 's.expires_at'])
    .executeTakeFirst();
}

export async function endSession(q: Q, sessionId: string, now: Date): Promise<void> {
  await q.updateTable('panel_sessions').set({ ended_at: now }).where('id', '=', sessionId).where('ended_at', 'is', null).execute();
}

/** Ends every live session of the users with that address (of one account, or all); answers how many. */
export async function endSessionsOf(q: Q, email: string, now: Date, accountId?: string): Promise<number> {
  const r = await q
    .updateTable('panel_sessions as s')
    .from('panel_users as u')
    .set({ ended_at: now })
    .whereRef('u.id', '=', 's.user_id')
    .where('u.email', '=', email)
    .where('s.ended_at', 'is', null)
    .$if(accountId !== undefined, (qb) => qb.where('u.account_id', '=', accountId!))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
