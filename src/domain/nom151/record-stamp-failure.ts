// A failed attempt of a document's NOM-151 stamp job (provider down, its answer refused, no stamps
// piece left): the reason is kept for the document's state (`nom151_stamps` in the listing), and
// the history gets `nom151_stamp_failed` when the reason is new (not once per retry of the same
// failure) and when the job's last attempt failed (`final`: the stamp waits for the operator).
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { lockDocumentRow, recordStampFailure } from '../../store/archival-state-repo.js';
import type { Rendition } from './stamp-document.js';

export async function recordDocumentStampFailure(
  deps: Pick<Deps, 'db' | 'clock'>,
  o: { documentId: string; rendition: Rendition; reason: string; attempt: number; maxAttempts: number },
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    if (!(await lockDocumentRow(trx, o.documentId))) {
      return;
    }
    const at = deps.clock.now();
    const final = o.attempt >= o.maxAttempts;
    const before = await recordStampFailure(trx, {
      documentId: o.documentId,
      subject: o.rendition,
      reason: o.reason,
      attempt: o.attempt,
      maxAttempts: o.maxAttempts,
      at,
    });
    if (before !== o.reason || final) {
      await appendHistory(trx, {
        documentId: o.documentId,
        at,
        action: 'nom151_stamp_failed',
        actor: 'system',
        details: {
          rendition: o.rendition,
          reason: o.reason,
          attempt: o.attempt,
          max_attempts: o.maxAttempts,
          ...(final ? { final: true } : {}),
        },
      });
    }
  });
}
