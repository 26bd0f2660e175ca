// Writes one entry of a document's history, inside the transaction of the change it records: the
// change and its entry commit together or not at all (DESIGN.md, ways of the house 4).
//
// Each entry carries the hash of the previous one (history-hash.ts), and the documents row keeps
// the hash and number of the last, so an altered, removed or truncated entry is detectable
// (verify-history.ts).
//
// Concurrency: two transactions appending to one document must never both read the same head,
// which would fork the chain or reuse a seq. The documents row is locked FOR NO KEY UPDATE while the
// head is read, so appends queue on it until the holder commits. The row lock rather than an
// advisory lock because the head lives on that row: the append must update it anyway, and one lock
// taken first cannot deadlock against the row update the way "advisory lock, then row" could against
// a use case that already updated the document (transitionDocument, recordRejection) and then
// appends. Use cases that locked the row already (openSession with lock) hold it: no extra wait.
// A use case that also updates other rows of the document (a signer) should lock the document
// first, as signing does (document, then signer): appending last, after updating a signer, takes
// the two locks in the opposite order and can deadlock against a signature of that signer.
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { insertHistoryEntry, lockHistoryHead, type NewHistoryEntry } from '../../store/history-repo.js';
import { entryHash, GENESIS_HASH } from './history-hash.js';
import { type HistoryAction, isHistoryAction } from './history-labels.js';

export interface HistoryEntryInput {
  documentId: string; // documents.id (bigint as string, as elsewhere in the code)
  at: Date;
  /** One of the actions history-labels.ts words in both languages. */
  action: HistoryAction;
  actor: string; // 'account' (API caller), 'signer:<signer_id>', 'public' (someone holding only the document_url), or 'system'
  ip?: string | null;
  details?: Record<string, unknown>;
}

const ACTOR = /^(account|system|public|signer:[A-Za-z0-9_-]{1,64})$/;

export async function appendHistory(trx: Transaction<Database>, entry: HistoryEntryInput): Promise<void> {
  checkEntry(entry);
  const head = await lockHistoryHead(trx, entry.documentId);
  if (!head) {
    throw new Error(`appendHistory: no document with id ${entry.documentId}`);
  }
  await insertHistoryEntry(trx, {
    documentId: entry.documentId,
    ...chained(entry, { ticket: head.ticket, seq: head.history_count + 1, prevHash: head.history_head }),
  });
}

/**
 * The first entry of a new document's chain, for the statement that inserts the document with it
 * (store/create-document-repo.ts): a document not yet written has no head to lock or read.
 */
export function firstHistoryEntry(ticket: string, entry: Omit<HistoryEntryInput, 'documentId'>): ChainedEntry {
  checkEntry(entry);
  return chained(entry, { ticket, seq: 1, prevHash: GENESIS_HASH });
}

export type ChainedEntry = Omit<NewHistoryEntry, 'documentId'>;

/** Programming errors, not client input: they fail the transaction loudly. */
function checkEntry(entry: Pick<HistoryEntryInput, 'action' | 'actor'>): void {
  if (!isHistoryAction(entry.action)) {
    throw new Error(`appendHistory: action ${JSON.stringify(entry.action)} has no words in history-labels.ts`);
  }
  if (!ACTOR.test(entry.actor)) {
    throw new Error(`appendHistory: actor ${JSON.stringify(entry.actor)} is not account, system, public or signer:<signer_id>`);
  }
}

/** The entry as stored: its place in the chain and its hash. */
function chained(entry: Omit<HistoryEntryInput, 'documentId'>, at: { ticket: string; seq: number; prevHash: string }): ChainedEntry {
  // Hash what jsonb will give back: undefined members dropped, dates as ISO strings.
  const details = JSON.parse(JSON.stringify(entry.details ?? {})) as unknown;
  const ip = entry.ip ?? null;
  const hash = entryHash({
    document: at.ticket,
    seq: at.seq,
    at: entry.at,
    action: entry.action,
    actor: entry.actor,
    ip,
    details,
    prev_hash: at.prevHash,
  });
  return { seq: at.seq, at: entry.at, action: entry.action, actor: entry.actor, ip, details, prevHash: at.prevHash, hash };
}
