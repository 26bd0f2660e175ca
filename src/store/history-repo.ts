// SQL for the document history: the chain's head on the documents row, the entries, and reading
// them back in order.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

type Q = Db | Transaction<Database>;

export interface HistoryHead {
  ticket: string;
  history_head: string;
  history_count: number;
}

/**
 * The chain's head, with the documents row locked FOR NO KEY UPDATE until the transaction ends.
 * That mode conflicts with itself, FOR UPDATE and plain UPDATEs of the row, so appends to one
 * document queue here; it does not conflict with FOR KEY SHARE, so rows that reference the
 * document (signers, mail, notifications) can still be inserted meanwhile.
 */
export async function lockHistoryHead(trx: Transaction<Database>, documentId: string): Promise<HistoryHead | undefined> {
  const r = await sql<HistoryHead>`select ticket, history_head, history_count from documents
                                   where id = ${documentId} for no key update`.execute(trx);
  return r.rows[0];
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
  await sql`with head as (
              update documents set history_head = ${e.hash}, history_count = ${e.seq} where id = ${e.documentId}
            )
            insert into document_history (document_id, seq, at, action, actor, ip, details, prev_hash, hash)
            values (${e.documentId}, ${e.seq}, ${e.at}, ${e.action}, ${e.actor}, ${e.ip}, ${JSON.stringify(e.details)}::jsonb,
                    ${e.prevHash}, ${e.hash})`.execute(trx);
}

export interface HistoryDocument extends HistoryHead {
  id: string;
}

/** The document of a ticket, within an account when one is given (the CLI checks any document). */
export async function findHistoryDocument(q: Q, ticket: string, accountId?: string): Promise<HistoryDocument | undefined> {
  const r = await sql<HistoryDocument>`select id::text as id, ticket, history_head, history_count from documents
                                       where ticket = ${ticket}
                                       ${accountId === undefined ? sql`` : sql`and account_id = ${accountId}`}`.execute(q);
  return r.rows[0];
}

export interface StoredHistoryEntry {
  seq: number;
  at: Date;
  action: string;
  actor: string;
  ip: string | null;
  details: unknown;
  prev_hash: string;
  hash: string;
}

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
      const r = await sql<StoredHistoryEntry>`select seq, at, action, actor, ip, details, prev_hash, hash from document_history
                                              where document_id = ${document.id} order by seq`.execute(trx);
      return { document, entries: r.rows };
    });
}

/** When `actor` last did `action` on the document, if ever. */
export async function lastHistoryAt(q: Q, documentId: string, action: string, actor: string): Promise<Date | undefined> {
  const r = await sql<{ at: Date | null }>`select max(at) as at from document_history
                                           where document_id = ${documentId} and action = ${action} and actor = ${actor}`.execute(q);
  return r.rows[0]?.at ?? undefined;
}
