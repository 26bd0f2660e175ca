// SQL of running flows: the document (or set) with what a flow needs, its signers with their
// sealed link tokens, and the invitation bookkeeping. The scheduled jobs (reminders, expiration)
// are added through jobs/payloads/.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

type Q = Db | Transaction<Database>;

export interface FlowDocument {
  id: string;
  ticket: string;
  account_id: string;
  account_name: string;
  time_zone: string;
  set_id: string | null;
  name: string;
  status: string;
  has_flow: boolean;
  workflow: Record<string, unknown> | null;
  original_sha256: string;
  flow_started_at: Date | null;
  expires_at: Date | null;
  flow_generation: number;
  concluded_at: Date | null;
}

export interface FlowSigner {
  id: string;
  signer_id: string;
  position: number;
  authority: string;
  data: string;
  name: string | null;
  email: string | null;
  status: string;
  token_sealed: Buffer | null;
  invited_at: Date | null;
  set_signer_id: string | null;
}

/** The document with its account's name and time zone; lock=true locks the document row. */
export async function findFlowDocument(q: Q, where: { id: string } | { accountId: string; ticket: string }, lock = false) {
  const cond = 'id' in where ? sql`d.id = ${where.id}` : sql`d.account_id = ${where.accountId} and d.ticket = ${where.ticket}`;
  const r = await sql<FlowDocument>`
    select d.id::text as id, d.ticket, d.account_id::text as account_id, a.name as account_name, a.time_zone,
           d.set_id::text as set_id, d.name, d.status, d.has_flow, d.workflow, d.original_sha256,
           d.flow_started_at, d.expires_at, d.flow_generation, d.concluded_at
    from documents d join accounts a on a.id = d.account_id
    where ${cond} ${lock ? sql`for update of d` : sql``}`.execute(q);
  return r.rows[0];
}

export async function accountTimeZone(q: Q, accountId: string): Promise<string> {
  const r = await sql<{ time_zone: string }>`select time_zone from accounts where id = ${accountId}`.execute(q);
  return r.rows[0]?.time_zone ?? 'UTC';
}

export async function flowSigners(q: Q, documentId: string): Promise<FlowSigner[]> {
  const r = await sql<FlowSigner>`
    select id::text as id, signer_id, position, authority, data, name, email, status, token_sealed, invited_at,
           set_signer_id::text as set_signer_id
    from signers where document_id = ${documentId} and role = 'signer' order by position`.execute(q);
  return r.rows;
}

export async function startDocumentFlowRow(
  trx: Transaction<Database>,
  d: { id: string; startedAt: Date; expiresAt: Date; workflow: unknown },
): Promise<number> {
  const r = await sql<{ flow_generation: number }>`
    update documents set flow_started_at = coalesce(flow_started_at, ${d.startedAt}), expires_at = ${d.expiresAt},
           workflow = ${JSON.stringify(d.workflow)}::jsonb, has_flow = true,
           flow_generation = flow_generation + 1, updated_at = ${d.startedAt}
    where id = ${d.id} returning flow_generation`.execute(trx);
  return r.rows[0].flow_generation;
}

/** Changes the settings of a running flow without restarting it. */
export async function saveDocumentWorkflow(trx: Transaction<Database>, d: { id: string; workflow: unknown; expiresAt: Date; at: Date }) {
  await sql`update documents set workflow = ${JSON.stringify(d.workflow)}::jsonb, expires_at = ${d.expiresAt}, updated_at = ${d.at}
            where id = ${d.id}`.execute(trx);
}

export async function setDocumentStatus(trx: Transaction<Database>, id: string, status: string, at: Date) {
  await sql`update documents set status = ${status}, updated_at = ${at} where id = ${id}`.execute(trx);
}

export async function markConcluded(trx: Transaction<Database>, id: string, at: Date): Promise<boolean> {
  const r = await sql`update documents set concluded_at = ${at} where id = ${id} and concluded_at is null`.execute(trx);
  return Number(r.numAffectedRows) === 1;
}

export async function markSignerInvited(trx: Transaction<Database>, signerRowId: string, at: Date, reminder: boolean) {
  if (reminder) {
    await sql`update signers set last_reminded_at = ${at}, reminders_sent = reminders_sent + 1 where id = ${signerRowId}`.execute(trx);
  } else {
    await sql`update signers set invited_at = ${at}, status = case when status = 'pending' then 'invited' else status end
              where id = ${signerRowId}`.execute(trx);
  }
}

export async function insertDownloadLink(
  trx: Transaction<Database>,
  l: { tokenHash: Buffer; documentId: string; expiresAt: Date; at: Date },
) {
  await sql`insert into download_links (token_hash, document_id, expires_at, created_at)
            values (${l.tokenHash}, ${l.documentId}, ${l.expiresAt}, ${l.at})`.execute(trx);
}

export async function findDownloadLink(q: Q, tokenHash: Buffer) {
  const r = await sql<{ expires_at: Date; name: string; status: string; original_sha256: string }>`
    select l.expires_at, d.name, d.status, d.original_sha256 from download_links l join documents d on d.id = l.document_id
    where l.token_hash = ${tokenHash}`.execute(q);
  return r.rows[0];
}

export async function signerRowOfSticker(q: Q, documentId: string, stickerId: string): Promise<string | undefined> {
  const r = await sql<{
    id: string;
  }>`select signer_row_id::text as id from stickers where document_id = ${documentId} and sticker_id = ${stickerId}`.execute(q);
  return r.rows[0]?.id;
}

/**
 * Gives a signer a new identity and a new link; the old token's hash no longer matches anything.
 * The one-time codes start afresh: the code, its proof, the wait before another and the attempts
 * were the old identity's (a phone just corrected may ask for its code at once).
 */
export async function replaceSigner(
  trx: Transaction<Database>,
  s: { id: string; authority: string; data: string; name: string | null; email: string | null; tokenHash: Buffer; tokenSealed: Buffer },
): Promise<FlowSigner> {
  const r = await sql<FlowSigner>`
    update signers set authority = ${s.authority}, data = ${s.data}, name = ${s.name}, email = ${s.email},
           token_hash = ${s.tokenHash}, token_sealed = ${s.tokenSealed}, otp_hash = null, otp_expires_at = null, verified_at = null,
           otp_sent_at = null, otp_attempts = 0
    where id = ${s.id}
    returning id::text as id, signer_id, position, authority, data, name, email, status, token_sealed, invited_at,
              set_signer_id::text as set_signer_id`.execute(trx);
  return r.rows[0];
}

/**
 * Whether an ordered flow still waits for someone before this signer: in a standalone document, a
 * signer earlier in sticker order who has not signed; in a closed set, a set signer earlier in the
 * set's order who has not signed all their documents.
 */
export async function waitsForEarlierSigner(q: Q, documentId: string, signerRowId: string): Promise<boolean> {
  const r = await sql<{ waits: boolean }>`
    select case
      when d.set_id is null then
        coalesce((d.workflow->>'ordered')::boolean, false) and d.flow_started_at is not null and exists (
          select 1 from signers e where e.document_id = d.id and e.role = 'signer' and e.position < me.position and e.status <> 'signed')
      else
        coalesce((ds.workflow->>'ordered')::boolean, false) and ds.status = 'CLOSED' and exists (
          select 1 from set_signers mine join set_signers e on e.set_id = mine.set_id
          where mine.id = me.set_signer_id and e.position < mine.position and e.status <> 'signed')
    end as waits
    from signers me join documents d on d.id = me.document_id left join document_sets ds on ds.id = d.set_id
    where me.id = ${signerRowId} and d.id = ${documentId}`.execute(q);
  return r.rows[0]?.waits ?? false;
}
