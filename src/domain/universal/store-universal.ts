// Stores a universal revision and what goes with it, in one transaction (DESIGN, house rule 4): the
// blob and the documents row, the record of the revision, the history entry, the universal_signed
// event (the first time only), the renewal job, and the hook for NOM-151 stamps. The row is locked
// and must still hold the rendition the work started from, so two runs of the same job (a retry
// racing a slow first attempt) store one revision, and the other's work is dropped unstored.
import type { Deps } from '../deps.js';
import { emitEvent } from '../events/emit-event.js';
import { appendHistory } from '../history/append-history.js';
import { addUniversalRenewJob } from '../../jobs/payloads/universal-renew.js';
import { markUniversalFailed, recordUniversalRenewalError, storeUniversal, universalState } from '../../store/universal-repo.js';
import { afterUniversalStored } from './after-universal-stored.js';
import { UNIVERSAL_LEVEL, type MadeUniversal } from './make-universal.js';
import { putHeldBlob } from '../../store/blob-fence.js';

const DAY = 86_400_000;

/** The authority's name as the token's TSA certificate gives it: its CN, else the whole subject. */
function tsaName(subject: string): string {
  return /(?:^|, )CN=([^,]+)/.exec(subject)?.[1] ?? subject;
}

export async function storeUniversalRevision(
  deps: Pick<Deps, 'db' | 'blobs' | 'clock' | 'config'>,
  o: {
    documentId: string;
    made: MadeUniversal;
    kind: 'initial' | 'renewal';
    previousSha256: string | null;
    /** A first rendition: the original it was made from, which must still be the document's (an endorsement adds a revision). */
    sourceSha256?: string;
  },
): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const s = await universalState(trx, o.documentId, true);
    if (!s || s.universal_sha256 !== o.previousSha256 || (o.sourceSha256 !== undefined && s.original_sha256 !== o.sourceSha256)) {
      return false;
    }
    const now = deps.clock.now();
    const sha256 = await putHeldBlob(trx, deps.blobs, o.made.pdf);
    const time = o.made.token.genTime;
    const tsa = tsaName(o.made.token.tsaSubject);
    // Due the configured margin before the time stamp's certificate ends; never sooner than a day
    // from now, so a TSA certificate already inside the margin cannot make renewals follow each
    // other without pause.
    const renewAt = new Date(Math.max(o.made.tsaNotAfter.getTime() - deps.config.ltaRenewMarginDays * DAY, now.getTime() + DAY));
    const revision = await storeUniversal(trx, {
      documentId: o.documentId,
      kind: o.kind,
      sha256,
      at: now,
      timestampTime: time,
      tsa,
      tsaNotAfter: o.made.tsaNotAfter,
      renewAt,
    });
    await appendHistory(trx, {
      documentId: o.documentId,
      at: now,
      action: o.kind === 'initial' ? 'universal_signed' : 'universal_renewed',
      actor: 'system',
      details: {
        sha256,
        level: UNIVERSAL_LEVEL,
        revision,
        timestamp_time: time.toISOString(),
        tsa,
        tsa_not_after: o.made.tsaNotAfter.toISOString(),
        renew_at: renewAt.toISOString(),
        // Revocation data of signers' own CAs (the SAT's) that could not be embedded.
        ...(o.made.gaps.length > 0 ? { validation_gaps: o.made.gaps } : {}),
      },
    });
    if (o.kind === 'initial') {
      await emitEvent(trx, deps, {
        accountId: s.account_id,
        documentId: o.documentId,
        kind: 'universal_signed',
        meta: { level: UNIVERSAL_LEVEL, timestamp: { time: time.toISOString(), tsa } },
        dedupeKey: `universal:${s.ticket}`,
      });
    }
    await addUniversalRenewJob(trx, { documentId: o.documentId }, renewAt);
    await afterUniversalStored(trx, deps, { documentId: o.documentId, sha256, kind: o.kind });
    return true;
  });
}

/**
 * Records why an attempt failed: the document's universal state says so (`failed` once the job has
 * no attempt left, `pending` with the reason while it is retried), and the history gets an entry
 * when the reason is new (not one per retry of the same failure) and when the last attempt failed
 * (`final`). A failed renewal leaves the rendition ready: the one already served stays valid.
 */
export async function recordUniversalFailure(
  deps: Pick<Deps, 'db' | 'clock'>,
  o: {
    documentId: string;
    reason: string;
    attempt: number;
    maxAttempts: number;
    renewal: boolean;
    /** What the attempt worked from: the original (a first rendition) or the rendition renewed. */
    from: { original?: string; universal?: string };
  },
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const s = await universalState(trx, o.documentId, true);
    if (!s) {
      return;
    }
    // An attempt on bytes the document no longer has (an endorsement came meanwhile and a new
    // rendition is owed) says nothing about the rendition now owed: it is not recorded.
    if (
      (o.from.original !== undefined && o.from.original !== s.original_sha256) ||
      (o.from.universal !== undefined && o.from.universal !== s.universal_sha256)
    ) {
      return;
    }
    const repeated = s.universal_error === o.reason;
    const final = o.attempt >= o.maxAttempts;
    if (o.renewal) {
      await recordUniversalRenewalError(trx, o.documentId, o.reason);
    } else {
      await markUniversalFailed(trx, o.documentId, o.reason, final);
    }
    if (!repeated || final) {
      await appendHistory(trx, {
        documentId: o.documentId,
        at: deps.clock.now(),
        action: o.renewal ? 'universal_renewal_failed' : 'universal_failed',
        actor: 'system',
        details: { reason: o.reason, attempt: o.attempt, max_attempts: o.maxAttempts, ...(final ? { final: true } : {}) },
      });
    }
  });
}
