// A signer opened the document (GET /sign/api/{token}): the signer is marked as having viewed it,
// and the view goes into the document's history — the first one, then at most one per signer an
// hour, so a page that polls cannot flood the history.
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { lastHistoryAt, lockHistoryHead } from '../../store/history-repo.js';
import { markViewed } from '../../store/signing-repo.js';
import type { SigningSession } from './signing-session.js';

/** The least time between two 'viewed' entries of one signer. */
export const VIEW_ENTRY_INTERVAL_MS = 60 * 60_000;

export async function recordView(deps: Pick<Deps, 'db' | 'clock'>, s: SigningSession, ip?: string): Promise<void> {
  const at = deps.clock.now();
  const actor = `signer:${s.signer.signer_id}`;
  const firstView = s.signer.status === 'pending' || s.signer.status === 'invited';
  const due = (last: Date | undefined) => !last || at.getTime() - new Date(last).getTime() >= VIEW_ENTRY_INTERVAL_MS;
  // Most calls are polls within the hour: one read, no transaction, no lock.
  if (!firstView && !due(await lastHistoryAt(deps.db, s.document.id, 'viewed', actor))) {
    return;
  }
  await deps.db.transaction().execute(async (trx) => {
    // The document row first, then the signer's: the order signing and rejecting lock them in, so a
    // first view racing the same signer's signature cannot deadlock against it.
    await lockHistoryHead(trx, s.document.id);
    if (firstView) {
      await markViewed(trx, s.signer.id, at);
    }
    // Asked again holding the history's lock: two requests at the same instant write one entry.
    if (due(await lastHistoryAt(trx, s.document.id, 'viewed', actor))) {
      await appendHistory(trx, { documentId: s.document.id, at, action: 'viewed', actor, ip: ip ?? null });
    }
  });
}
