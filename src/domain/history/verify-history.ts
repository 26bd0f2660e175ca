// Checks a document's history chain: every entry's hash recomputed from its contents, every link to
// the entry before, seq running 1, 2, 3… without gaps, and the last entry being the head the
// documents row records (so removing the newest entries is caught too). Used by
// GET /api/v1/document/{id}/history/json and by `sello history verify TICKET`.
//
// What it proves: no entry was changed, removed, inserted or reordered by someone who did not also
// recompute every later hash and the head. Someone able to rewrite the whole chain and the head
// leaves it consistent; a head kept outside the database (a copy of an earlier answer) catches that.
import { AppError } from '../errors.js';
import type { Db } from '../../store/db.js';
import { readHistory, type HistoryHead, type StoredHistoryEntry } from '../../store/history-repo.js';
import { GENESIS_HASH, entryHash } from './history-hash.js';

export interface ChainCheck {
  valid: boolean;
  /** Entries found. */
  entries: number;
  /** The first seq at which the stored chain departs from a valid one; null when valid. */
  first_broken_seq: number | null;
  /** Why, for people; null when valid. */
  problem: string | null;
}

/** Pure: the check of entries (ordered by seq) against the head their document records. */
export function checkChain(doc: HistoryHead, entries: StoredHistoryEntry[]): ChainCheck {
  const broken = (seq: number, problem: string): ChainCheck => ({ valid: false, entries: entries.length, first_broken_seq: seq, problem });
  let prev = GENESIS_HASH;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const expected = i + 1;
    if (e.seq !== expected) {
      return broken(expected, `entry ${expected} is missing (the next entry found is ${e.seq})`);
    }
    if (e.prev_hash !== prev) {
      return broken(e.seq, e.seq === 1 ? 'entry 1 does not start the chain' : `entry ${e.seq} does not link to entry ${e.seq - 1}`);
    }
    const hash = entryHash({
      document: doc.ticket,
      seq: e.seq,
      at: new Date(e.at),
      action: e.action,
      actor: e.actor,
      ip: e.ip,
      details: e.details,
      prev_hash: e.prev_hash,
    });
    if (hash !== e.hash) {
      return broken(e.seq, `entry ${e.seq} was altered: its contents do not match its hash`);
    }
    prev = e.hash;
  }
  const recorded = doc.history_count;
  if (entries.length < recorded) {
    const first = entries.length + 1;
    return broken(
      first,
      `${first === recorded ? `entry ${first} is` : `entries ${first} to ${recorded} are`} missing (the document records ${recorded})`,
    );
  }
  if (entries.length > recorded) {
    return broken(recorded + 1, `entry ${recorded + 1} is not part of the chain the document records (${recorded} entries)`);
  }
  if (prev !== doc.history_head) {
    return broken(Math.max(1, entries.length), `the last entry is not the head the document records`);
  }
  return { valid: true, entries: entries.length, first_broken_seq: null, problem: null };
}

/** `sello history verify TICKET`: the check of any document's chain, by ticket. */
export async function verifyHistory(deps: { db: Db }, opts: { ticket: string }): Promise<ChainCheck & { document_ticket: string }> {
  const found = await readHistory(deps.db, opts.ticket);
  if (!found) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${opts.ticket}`);
  }
  return { document_ticket: found.document.ticket, ...checkChain(found.document, found.entries) };
}
