// Job universal_build: the universal rendition of a completed document, from its completed
// original. Idempotent: a document that has one, or is not completed, is left alone; the store
// step claims the row (store-universal.ts). A failure is recorded (status and history) and thrown
// again, so the job runner retries it with backoff.
import type { Deps } from '../deps.js';
import { satOcspResponsesOf } from '../../store/sat-repo.js';
import { universalState } from '../../store/universal-repo.js';
import { makeUniversal } from './make-universal.js';
import { recordUniversalFailure, storeUniversalRevision } from './store-universal.js';

export async function buildUniversal(
  deps: Deps,
  o: { documentId: string; attempt: number; maxAttempts: number },
): Promise<'built' | 'skipped'> {
  const s = await universalState(deps.db, o.documentId);
  const completed = s?.status === 'completed' || (s?.status === 'deleted' && s.status_before_delete === 'completed');
  if (!s || !completed || s.universal_sha256) {
    return 'skipped';
  }
  try {
    const original = await deps.blobs.get(s.original_sha256);
    const made = await makeUniversal(deps, {
      pdf: original,
      scope: 'initial',
      signersCa: [
        { trustedDer: deps.config.sat.trustedDer, ocspUrl: deps.config.sat.ocspUrl },
        { trustedDer: deps.config.cert.trustedDer },
        { trustedDer: deps.config.csc.trustedDer },
      ],
      storedOcspDer: await satOcspResponsesOf(deps.db, o.documentId),
    });
    return (await storeUniversalRevision(deps, {
      documentId: o.documentId,
      made,
      kind: 'initial',
      previousSha256: null,
      sourceSha256: s.original_sha256,
    }))
      ? 'built'
      : 'skipped';
  } catch (err) {
    await recordUniversalFailure(deps, { ...o, reason: (err as Error).message, renewal: false, from: { original: s.original_sha256 } });
    throw err;
  }
}
