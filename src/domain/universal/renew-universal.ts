// Job universal_renew: the archive time-stamp renewal (EN 319 142-1 §5.4, B-LTA "augmented"):
// before the certificate of the last document time stamp ends, fresh validation data for that
// time stamp's chain and a new document time stamp over the whole rendition are appended, then the
// data of the new time stamp's chain. The earlier universal bytes stay an exact prefix. Idempotent:
// it acts only when the renewal is due by the service's clock, and stores only over the rendition
// it started from.
import type { Deps } from '../deps.js';
import { addUniversalRenewJob } from '../../jobs/payloads/universal-renew.js';
import { universalState } from '../../store/universal-repo.js';
import { makeUniversal } from './make-universal.js';
import { recordUniversalFailure, storeUniversalRevision } from './store-universal.js';

export async function renewUniversal(
  deps: Deps,
  o: { documentId: string; attempt: number; maxAttempts: number },
): Promise<'renewed' | 'not_due' | 'skipped'> {
  const s = await universalState(deps.db, o.documentId);
  if (!s?.universal_sha256 || !s.universal_renew_at) {
    return 'skipped';
  }
  if (s.universal_renew_at.getTime() > deps.clock.now().getTime()) {
    // Ran early (the database's clock ahead of the service's): wait for the due time again.
    const renewAt = s.universal_renew_at;
    await deps.db.transaction().execute((trx) => addUniversalRenewJob(trx, { documentId: o.documentId }, renewAt));
    return 'not_due';
  }
  try {
    const current = await deps.blobs.get(s.universal_sha256);
    const made = await makeUniversal(deps, { pdf: current, scope: 'renewal' });
    const stored = await storeUniversalRevision(deps, {
      documentId: o.documentId,
      made,
      kind: 'renewal',
      previousSha256: s.universal_sha256,
    });
    return stored ? 'renewed' : 'skipped';
  } catch (err) {
    await recordUniversalFailure(deps, { ...o, reason: (err as Error).message, renewal: true, from: { universal: s.universal_sha256 } });
    throw err;
  }
}
