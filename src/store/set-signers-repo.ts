// SQL of a document set's signers: the ones preloaded while the set is OPEN, the ones found on its
// documents when it closes, their links (token stored hashed, and sealed for re-sending), and the
// document signer rows each of them stands for (signers.set_signer_id).
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

type Q = Db | Transaction<Database>;

export interface SetSignerRow {
  id: string;
  signer_id: string;
  set_id: string;
  position: number;
  authority: string;
  data: string;
  name: string | null;
  email: string | null;
  preloaded: boolean;
  status: string;
  token_sealed: Buffer | null;
  invited_at: Date | null;
  last_reminded_at: Date | null;
  reminders_sent: number;
}

const columns = (t: string) =>
  sql.raw(`${t}.id::text as id, ${t}.signer_id, ${t}.set_id::text as set_id, ${t}.position, ${t}.authority, ${t}.data, ${t}.name,
  ${t}.email, ${t}.preloaded, ${t}.status, ${t}.token_sealed, ${t}.invited_at, ${t}.last_reminded_at, ${t}.reminders_sent`);
const COLUMNS = columns('set_signers');

export async function listSetSigners(q: Q, setId: string): Promise<SetSignerRow[]> {
  const r = await sql<SetSignerRow>`select ${COLUMNS} from set_signers where set_id = ${setId} order by position, id`.execute(q);
  return r.rows;
}

/**
 * Inserts a set signer, or returns the one the set already has for (authority, data): `created`
 * says which. The position follows the last one (preload order; positions are renumbered on close).
 */
export async function insertSetSigner(
  trx: Transaction<Database>,
  s: {
    signerId: string;
    setId: string;
    authority: string;
    data: string;
    name: string | null;
    email: string | null;
    preloaded: boolean;
    at: Date;
  },
): Promise<{ row: SetSignerRow; created: boolean }> {
  const inserted = await sql<SetSignerRow>`
    insert into set_signers (signer_id, set_id, position, authority, data, name, email, preloaded, created_at)
    values (${s.signerId}, ${s.setId},
            (select coalesce(max(position), -1) + 1 from set_signers where set_id = ${s.setId}),
            ${s.authority}, ${s.data}, ${s.name}, ${s.email}, ${s.preloaded}, ${s.at})
    on conflict (set_id, authority, data) do nothing
    returning ${COLUMNS}`.execute(trx);
  if (inserted.rows[0]) {
    return { row: inserted.rows[0], created: true };
  }
  const existing = await sql<SetSignerRow>`select ${COLUMNS} from set_signers
    where set_id = ${s.setId} and authority = ${s.authority} and data = ${s.data}`.execute(trx);
  return { row: existing.rows[0], created: false };
}

export async function deleteSetSigner(trx: Transaction<Database>, setId: string, signerId: string): Promise<boolean> {
  const r = await sql`delete from set_signers where set_id = ${setId} and signer_id = ${signerId}`.execute(trx);
  return Number(r.numAffectedRows) === 1;
}

export async function countSetSigners(q: Q, setId: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from set_signers where set_id = ${setId}`.execute(q);
  return r.rows[0].n;
}

/** On close: the final position, the link, and the name/email a document gave when the preload had none. */
export async function sealSetSigner(
  trx: Transaction<Database>,
  s: { id: string; position: number; tokenHash: Buffer; tokenSealed: Buffer; name: string | null; email: string | null },
): Promise<void> {
  await sql`update set_signers set position = ${s.position}, token_hash = ${s.tokenHash}, token_sealed = ${s.tokenSealed},
              name = coalesce(name, ${s.name}), email = coalesce(email, ${s.email})
            where id = ${s.id}`.execute(trx);
}

/** Ties document signer rows to the set signer they belong to. */
export async function linkSignerRows(trx: Transaction<Database>, setSignerId: string, signerRowIds: string[]): Promise<void> {
  if (signerRowIds.length > 0) {
    await sql`update signers set set_signer_id = ${setSignerId} where id = any(${signerRowIds}::bigint[])`.execute(trx);
  }
}

export async function markSetSignerInvited(trx: Transaction<Database>, id: string, at: Date, reminder: boolean): Promise<void> {
  if (reminder) {
    await sql`update set_signers set last_reminded_at = ${at}, reminders_sent = reminders_sent + 1 where id = ${id}`.execute(trx);
  } else {
    await sql`update set_signers set invited_at = ${at}, status = case when status = 'pending' then 'invited' else status end
              where id = ${id}`.execute(trx);
  }
}

export async function markSetSignerViewed(q: Q, id: string): Promise<void> {
  await sql`update set_signers set status = 'viewed' where id = ${id} and status in ('pending', 'invited')`.execute(q);
}

export async function setSetSignerStatus(trx: Transaction<Database>, id: string, status: 'signed' | 'rejected'): Promise<void> {
  await sql`update set_signers set status = ${status} where id = ${id}`.execute(trx);
}

/** How many of the set signer's document rows are still to sign (documents still pending). */
export async function unsignedRowsOf(q: Q, setSignerId: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from signers s join documents d on d.id = s.document_id
    where s.set_signer_id = ${setSignerId} and s.status not in ('signed', 'rejected') and d.status = 'pending'`.execute(q);
  return r.rows[0].n;
}

/** The set signer of a document signer row, if it has one. */
export async function setSignerIdOfRow(q: Q, signerRowId: string): Promise<string | null> {
  const r = await sql<{ id: string | null }>`select set_signer_id::text as id from signers where id = ${signerRowId}`.execute(q);
  return r.rows[0]?.id ?? null;
}

/** The set signer of the row that rejected the document, if any. */
export async function rejectingSetSigner(q: Q, documentId: string): Promise<string | null> {
  const r = await sql<{ id: string | null }>`select set_signer_id::text as id from signers
    where document_id = ${documentId} and status = 'rejected' and set_signer_id is not null order by rejected_at desc nulls last limit 1`.execute(
    q,
  );
  return r.rows[0]?.id ?? null;
}

export interface SetSignerBehindToken {
  signer: SetSignerRow;
  set: { id: string; uuid: string; name: string; status: string; account_id: string; workflow: Record<string, unknown> | null };
}

export async function findSetSignerByToken(q: Q, tokenHash: Buffer): Promise<SetSignerBehindToken | undefined> {
  const r = await sql<
    SetSignerRow & { set_uuid: string; set_name: string; set_status: string; account_id: string; workflow: Record<string, unknown> | null }
  >`
    select ${columns('ss')}, ds.uuid as set_uuid, ds.name as set_name, ds.status as set_status,
           ds.account_id::text as account_id, ds.workflow
    from set_signers ss join document_sets ds on ds.id = ss.set_id
    where ss.token_hash = ${tokenHash}`.execute(q);
  const row = r.rows[0];
  if (!row) {
    return undefined;
  }
  const { set_uuid, set_name, set_status, account_id, workflow, ...signer } = row;
  return { signer, set: { id: row.set_id, uuid: set_uuid, name: set_name, status: set_status, account_id, workflow } };
}

export interface SignerRowOfSet {
  id: string;
  signer_id: string;
  status: string;
  signed_at: Date | null;
  token_sealed: Buffer | null;
  document_id: string;
  ticket: string;
  document_name: string;
  document_status: string;
  original_sha256: string;
  /** null when no identity verification is asked of this person in the set. */
  identity_status: 'verification_pending' | 'verified' | 'verification_failed' | null;
}

/** The document signer rows a set signer stands for, in the set's document order. */
export async function signerRowsOf(q: Q, setSignerId: string): Promise<SignerRowOfSet[]> {
  const r = await sql<SignerRowOfSet>`
    select s.id::text as id, s.signer_id, s.status, s.signed_at, s.token_sealed, d.id::text as document_id, d.ticket,
           d.name as document_name, d.status as document_status, d.original_sha256, s.identity_status
    from signers s join documents d on d.id = s.document_id
    where s.set_signer_id = ${setSignerId} order by d.id`.execute(q);
  return r.rows;
}

/** One verified code proves the set signer for every document: the verification is copied to each row. */
export async function copyVerification(q: Q, setSignerId: string, fromRowId: string): Promise<void> {
  await sql`update signers set verified_at = (select verified_at from signers where id = ${fromRowId})
            where set_signer_id = ${setSignerId} and id <> ${fromRowId}`.execute(q);
}
