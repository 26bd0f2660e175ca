// SQL for the account panel: its users (people invited to an account), their one-time sign-in
// links and their sessions. Every lookup by a secret goes through its SHA-256.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

type Q = Db | Transaction<Database>;

export interface PanelUser {
  id: string;
  account_id: string;
  email: string;
}

/** The user of that account with that address, made when missing. */
export async function upsertPanelUser(q: Q, u: { accountId: string; email: string; at: Date }): Promise<PanelUser> {
  const r = await sql<PanelUser>`insert into panel_users (account_id, email, created_at) values (${u.accountId}, ${u.email}, ${u.at})
    on conflict (account_id, email) do update set email = excluded.email
    returning id::text as id, account_id::text as account_id, email`.execute(q);
  return r.rows[0];
}

/** Every user with that address, one per account it was invited to. */
export async function panelUsersByEmail(q: Q, email: string): Promise<PanelUser[]> {
  const r = await sql<PanelUser>`select id::text as id, account_id::text as account_id, email from panel_users
    where email = ${email} order by id`.execute(q);
  return r.rows;
}

export async function insertSignInLink(q: Q, l: { userId: string; tokenHash: Buffer; at: Date; expiresAt: Date }): Promise<void> {
  await sql`insert into panel_sign_in_links (user_id, token_hash, created_at, expires_at)
    values (${l.userId}, ${l.tokenHash}, ${l.at}, ${l.expiresAt})`.execute(q);
}

/**
 * Marks the link used and answers its user, in one statement, so two sign-ins racing with one link
 * cannot both succeed; undefined when the link is unknown, used or expired.
 */
export async function consumeSignInLink(q: Q, tokenHash: Buffer, now: Date): Promise<PanelUser | undefined> {
  const r = await sql<PanelUser>`update panel_sign_in_links l set used_at = ${now}
    from panel_users u
    where l.token_hash = ${tokenHash} and l.used_at is null and l.expires_at > ${now} and u.id = l.user_id
    returning u.id::text as id, u.account_id::text as account_id, u.email`.execute(q);
  return r.rows[0];
}

export interface PanelSessionRow {
  id: string;
  user_id: string;
  account_id: string;
  email: string;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export async function insertSession(
  q: Q,
  s: { sessionHash: Buffer; user: PanelUser; csrfToken: string; at: Date; expiresAt: Date },
): Promise<void> {
  await sql`insert into panel_sessions (session_hash, user_id, account_id, csrf_token, created_at, last_seen_at, expires_at)
    values (${s.sessionHash}, ${s.user.id}, ${s.user.account_id}, ${s.csrfToken}, ${s.at}, ${s.at}, ${s.expiresAt})`.execute(q);
}

/**
 * The live session with that id, its last activity moved to now; undefined when unknown, ended,
 * past its absolute end or idle for longer than `idleMs`.
 */
export async function touchSession(q: Q, sessionHash: Buffer, now: Date, idleMs: number): Promise<PanelSessionRow | undefined> {
  const idleSince = new Date(now.getTime() - idleMs);
  const r = await sql<PanelSessionRow>`update panel_sessions s set last_seen_at = ${now}
    from panel_users u
    where s.session_hash = ${sessionHash} and s.ended_at is null and s.expires_at > ${now} and s.last_seen_at > ${idleSince}
      and u.id = s.user_id
    returning s.id::text as id, s.user_id::text as user_id, s.account_id::text as account_id, u.email, s.csrf_token,
      s.created_at, s.last_seen_at, s.expires_at`.execute(q);
  return r.rows[0];
}

export async function endSession(q: Q, sessionId: string, now: Date): Promise<void> {
  await sql`update panel_sessions set ended_at = ${now} where id = ${sessionId} and ended_at is null`.execute(q);
}

/** Ends every live session of the users with that address (of one account, or all); answers how many. */
export async function endSessionsOf(q: Q, email: string, now: Date, accountId?: string): Promise<number> {
  const r = await sql`update panel_sessions s set ended_at = ${now} from panel_users u
    where u.id = s.user_id and u.email = ${email} and s.ended_at is null
      ${accountId === undefined ? sql`` : sql`and u.account_id = ${accountId}`}`.execute(q);
  return Number(r.numAffectedRows ?? 0);
}
