// SQL of running flows: the document (or set) with what a flow needs, its signers with their
// sealed link tokens, and the invitation bookkeeping. The scheduled jobs (reminders, expiration)
// are added through jobs/payloads/.
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { AccountsTable, Database, DocumentStatus, DocumentsTable, SignersTable } from './schema.js';

type Q = Db | Transaction<Database>;

const DOCUMENT_COLUMNS = [
  'id',
  'ticket',
  'account_id',
  'set_id',
  'name',
  'status',
  'has_flow',
  'workflow',
  'original_sha256',
  'flow_started_at',
  'expires_at',
  'flow_generation',
  'concluded_at',
] as const;

/** The document as a flow needs it, with its account's name and time zone; workflow is the flow's settings (jsonb). */
export type FlowDocument = Omit<Pick<Selectable<DocumentsTable>, (typeof DOCUMENT_COLUMNS)[number]>, 'workflow'> &
  Pick<Selectable<AccountsTable>, 'time_zone'> & { account_name: string; workflow: Record<string, unknown> | null };

const SIGNER_COLUMNS = [
  'id',
  'signer_id',
  'position',
  'authority',
  'data',
  'name',
  'email',
  'status',
  'token_sealed',
  'invited_at',
  'set_signer_id',
] as const;

export type FlowSigner = Pick<Selectable<SignersTable>, (typeof SIGNER_COLUMNS)[number]>;

/** The document with its account's name and time zone; lock=true locks the document row. */
export async function findFlowDocument(
  q: Q,
  where: { id: string } | { accountId: string; ticket: string },
  lock = false,
): Promise<FlowDocument> {
  const row = await q
    .selectFrom('documents as d')
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .select(DOCUMENT_COLUMNS.map((c) => `d.${c}` as const))
    .select(['a.name as account_name', 'a.time_zone'])
    .$if('id' in where, (qb) => qb.where('d.id', '=', (where as { id: string }).id))
    .$if(!('id' in where), (qb) => {
      const w = where as { accountId: string; ticket: string };
      return qb.where('d.account_id', '=', w.accountId).where('d.ticket', '=', w.ticket);
    })
    .$if(lock, (qb) => qb.forUpdate('d'))
    .$narrowType<{ workflow: FlowDocument['workflow'] }>()
    .executeTakeFirst();
  // Undefined when there is no such document, as before (its callers check); the type is the one they were written against.
  return row as FlowDocument;
}

export async function accountTimeZone(q: Q, accountId: string): Promise<string> {
  const r = await q.selectFrom('accounts').select('time_zone').where('id', '=', accountId).executeTakeFirst();
  return r?.time_zone ?? 'UTC';
}

export async function flowSigners(q: Q, documentId: string): Promise<FlowSigner[]> {
  return q
    .selectFrom('signers')
    .select(SIGNER_COLUMNS)
    .where('document_id', '=', documentId)
    .where('role', '=', 'signer')
    .orderBy('position')
    .execute();
}

export async function startDocumentFlowRow(
  trx: Transaction<Database>,
  d: { id: string; startedAt: Date; expiresAt: Date; workflow: unknown },
): Promise<number> {
  const r = await trx
    .updateTable('documents')
    .set((eb) => ({
      flow_started_at: eb.fn.coalesce('flow_started_at', eb.val(d.startedAt)),
      expires_at: d.expiresAt,
      workflow: JSON.stringify(d.workflow),
      has_flow: true,
      flow_generation: eb('flow_generation', '+', 1),
      updated_at: d.startedAt,
    }))
    .where('id', '=', d.id)
    .returning('flow_generation')
    .executeTakeFirstOrThrow();
  return r.flow_generation;
}

/** Changes the settings of a running flow without restarting it. */
export async function saveDocumentWorkflow(trx: Transaction<Database>, d: { id: string; workflow: unknown; expiresAt: Date; at: Date }) {
  await trx
    .updateTable('documents')
    .set({ workflow: JSON.stringify(d.workflow), expires_at: d.expiresAt, updated_at: d.at })
    .where('id', '=', d.id)
    .execute();
}

export async function setDocumentStatus(trx: Transaction<Database>, id: string, status: string, at: Date) {
  // Callers pass one of DocumentStatus; the column's CHECK refuses anything else.
  await trx
    .updateTable('documents')
    .set({ status: status as DocumentStatus, updated_at: at })
    .where('id', '=', id)
    .execute();
}

export async function markConcluded(trx: Transaction<Database>, id: string, at: Date): Promise<boolean> {
  const r = await trx
    .updateTable('documents')
    .set({ concluded_at: at })
    .where('id', '=', id)
    .where('concluded_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function markSignerInvited(trx: Transaction<Database>, signerRowId: string, at: Date, reminder: boolean) {
  if (reminder) {
    await trx
      .updateTable('signers')
      .set((eb) => ({ last_reminded_at: at, reminders_sent: eb('reminders_sent', '+', 1) }))
      .where('id', '=', signerRowId)
      .execute();
  } else {
    await trx
      .updateTable('signers')
      .set((eb) => ({
        invited_at: at,
        status: eb.case().when('status', '=', 'pending').then('invited').else(eb.ref('status')).end(),
      }))
      .where('id', '=', signerRowId)
      .execute();
  }
}

export async function insertDownloadLink(
  trx: Transaction<Database>,
  l: { tokenHash: Buffer; documentId: string; expiresAt: Date; at: Date },
) {
  await trx
    .insertInto('download_links')
    .values({ token_hash: l.tokenHash, document_id: l.documentId, expires_at: l.expiresAt, created_at: l.at })
    .execute();
}

export async function findDownloadLink(q: Q, tokenHash: Buffer) {
  return q
    .selectFrom('download_links as l')
    .innerJoin('documents as d', 'd.id', 'l.document_id')
    .select(['l.expires_at', 'd.name', 'd.status', 'd.original_sha256'])
    .where('l.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function signerRowOfSticker(q: Q, documentId: string, stickerId: string): Promise<string | undefined> {
  const r = await q
    .selectFrom('stickers')
    .select('signer_row_id')
    .where('document_id', '=', documentId)
    .where('sticker_id', '=', stickerId)
    .executeTakeFirst();
  return r?.signer_row_id;
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
  return trx
    .updateTable('signers')
    .set({
      authority: s.authority,
      data: s.data,
      name: s.name,
      email: s.email,
      token_hash: s.tokenHash,
      token_sealed: s.tokenSealed,
      otp_hash: null,
      otp_expires_at: null,
      verified_at: null,
      otp_sent_at: null,
      otp_attempts: 0,
    })
    .where('id', '=', s.id)
    .returning(SIGNER_COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * Whether an ordered flow still waits for someone before this signer: in a standalone document, a
 * signer earlier in sticker order who has not signed; in a closed set, a set signer earlier in the
 * set's order who has not signed all their documents.
 */
export async function waitsForEarlierSigner(q: Q, documentId: string, signerRowId: string): Promise<boolean> {
  // A CASE over two EXISTS and jsonb ->> casts: plainer in SQL than in the builder.
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
