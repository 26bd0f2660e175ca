// GET /api/v1/document/{documentId}/history/json: a document's history, oldest first, each entry
// with its place in the hash chain, and the chain's check (verify-history.ts). A deleted document
// keeps its history and still answers; another account's document is a 404 like an unknown one.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { readHistory } from '../../store/history-repo.js';
import { checkChain } from './verify-history.js';
import type { DocumentHistory, HistoryEntry } from '../../schemas/report.js';

export type { DocumentHistory, HistoryEntry };

export async function getHistory(deps: Pick<Deps, 'db'>, opts: { accountId: string; ticket: string }): Promise<DocumentHistory> {
  const found = await readHistory(deps.db, opts.ticket, opts.accountId);
  if (!found) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${opts.ticket}`);
  }
  const { document: doc, entries } = found;
  const check = checkChain(doc, entries);
  return {
    document_ticket: doc.ticket,
    entries: entries.map((e) => ({
      seq: e.seq,
      at: new Date(e.at).toISOString(),
      action: e.action,
      actor: e.actor,
      ip: e.ip,
      details: e.details as Record<string, unknown>,
      prev_hash: e.prev_hash,
      hash: e.hash,
    })),
    chain: { valid: check.valid, entries: check.entries, first_broken_seq: check.first_broken_seq },
  };
}
