// SQL for the document history: the chain's head on the documents row, the entries, and reading
// them back in order.
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DocumentHistoryTable, DocumentsTable } from './schema.js';

type Q = Db | Transaction<Database>;

export type HistoryHead = Pick<Selectable<DocumentsTable>, 'ticket' | 'history_head' | 'history_count'>;

/**
 * The chain's head, with the documents row locked FOR NO KEY UPDATE until the transaction ends.
 * That mode conflicts with itself, FOR UPDATE and plain UPDATEs of the row, so appends to one
 * document queue here; it does not conflict with FOR KEY SHARE, so rows that reference the
 * document (signers, mail, notifications) can still be inserted meanwhile.
 */
export async function lockHistoryHead(trx: Transaction<Database>, documentId: string): Promise<HistoryHead | undefined> {
  return trx
    .selectFrom('documents')
    .select(['ticket', 'history_head', 'history_count'])
    .where('id', '=', documentId)
    .forNoKeyUpdate()
    .executeTakeFirst();
}

export interface NewHistoryEntry {
  documentId: string;
  seq: number;
  at: Date;
  action: string;
  actor: string;
  ip: string | null;
  details: unknown;
  prevHash: string;
  hash: string;
}

/** Inserts the entry and moves the document's head to it; the head must be locked (lockHistoryHead). */
export async function insertHistoryEntry(trx: Transaction<Database>, e: NewHistoryEntry): Promise<void> {
  // One statement for the entry and the head it becomes (a data-modifying WITH, which the builder says less plainly).
  await sql`with head as (
              update documents set history_head = ${e.hash}, history_count = ${e.seq} where id = ${e.documentId}
            )
            insert into document_history (document_id, seq, at, action, actor, ip, details, prev_hash, hash)
            values (${e.documentId}, ${e.seq}, ${e.at}, ${e.action}, ${e.actor}, ${e.ip}, ${JSON.stringify(e.details)}::jsonb,
                    ${e.prevHash}, ${e.hash})`.execute(trx);
}

export type HistoryDocument = HistoryHead & Pick<Selectable<DocumentsTable>, 'id'>;

/** The document of a ticket, within an account when one is given (the CLI checks any document). */
export async function findHistoryDocument(q: Q, ticket: string, accountId?: string): Promise<HistoryDocument | undefined> {
  return q
    .selectFrom('documents')
    .select(['id', 'ticket', 'history_head', 'history_count'])
    .where('ticket', '=', ticket)
    .$if(accountId !== undefined, (qb) => qb.where('account_id', '=', accountId!))
    .executeTakeFirst();
}

const ENTRY_COLUMNS = ['seq', 'at', 'action', 'actor', 'ip', 'details', 'prev_hash', 'hash'] as const;

export type StoredHistoryEntry = Pick<Selectable<DocumentHistoryTable>, (typeof ENTRY_COLUMNS)[number]>;

/**
 * A document (by ticket, within an account when one is given: the CLI checks any document) with
 * every entry of its history in chain order, read from one snapshot: an append committing between
 * the two reads would otherwise show a head that disagrees with the entries read.
 */
export async function readHistory(
  db: Db,
  ticket: string,
  accountId?: string,
): Promise<{ document: HistoryDocument; entries: StoredHistoryEntry[] } | undefined> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      const document = await findHistoryDocument(trx, ticket, accountId);
      if (!document) {
        return undefined;
      }
      const entries = await trx
        .selectFrom('document_history')
        .select(ENTRY_COLUMNS)
        .where('document_id', '=', document.id)
        .orderBy('seq')
        .execute();
      return { document, entries };
    });
}

/** When `actor` last did `action` on the document, if ever. */
export async function lastHistoryAt(q: Q, documentId: string, action: string, actor: string): Promise<Date | undefined> {
  const r = await q
    .selectFrom('document_history')
    .select((eb) => eb.fn.max('at').as('at'))
    .where('document_id', '=', documentId)
    .where('action', '=', action)
    .where('actor', '=', actor)
    .executeTakeFirst();
  return r?.at ?? undefined;
}
