// POST /sign/api/{token}/reject: the signer declines, with a reason of at most 300 characters
// counted as the person sees them (grapheme clusters: an emoji or an accented letter is one).
// The document becomes rejected and stops for everyone; document_rejected carries who and why.
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { emitEvent } from '../events/emit-event.js';
import { appendHistory } from '../history/append-history.js';
import { REJECTION_REASON_MAX, eventSigner } from '../events/event-types.js';
import { recordRejection } from '../../store/signing-repo.js';
import { stopFlowAfterRejection } from '../workflows/advance-flow.js';
import { requireProof } from './one-time-code.js';
import { openSession, requireSignable, requireTurn } from './signing-session.js';
import type { RejectBody, RejectResult } from '../../schemas/signing.js';
import { retryTransientConflict } from '../../store/transient-conflict.js';
import { declineEndorsement } from '../endorsements/decline-endorsement.js';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Generous for 300 characters of any script or emoji, far below what an abuse would store. */
export const REJECTION_REASON_MAX_BYTES = 4096;

/**
 * The reason as stored: trimmed, not blank, at most 300 characters as people count them (grapheme
 * clusters, which JSON Schema's maxLength does not count) and 4096 bytes.
 */
export function readRejectionReason(given: string): string {
  const reason = given.trim();
  if (!reason) {
    throw invalid('reason', 'required: why the document is rejected');
  }
  // Characters bound what a person may write; bytes bound what is stored: one "character" can be a
  // base letter with 100,000 combining marks.
  const bytes = Buffer.byteLength(reason, 'utf8');
  if (bytes > REJECTION_REASON_MAX_BYTES) {
    throw invalid(
      'reason',
      `at most ${REJECTION_REASON_MAX} characters and ${REJECTION_REASON_MAX_BYTES} bytes of UTF-8 (got ${bytes} bytes)`,
    );
  }
  const length = [...graphemes.segment(reason)].length;
  if (length > REJECTION_REASON_MAX) {
    throw invalid('reason', `at most ${REJECTION_REASON_MAX} characters (got ${length})`);
  }
  return reason;
}

/** POST /sign/api/{token}/reject: the body's reason read, then the document rejected. */
export async function rejectDocument(deps: Deps, opts: { token: string; body: RejectBody; ip?: string }): Promise<RejectResult> {
  return rejectWith(deps, { token: opts.token, reason: readRejectionReason(opts.body.reason), ip: opts.ip });
}

/**
 * Rejects with a reason already read (a set rejects through its first open document). Run again
 * when PostgreSQL rolled the transaction back for a concurrent one (transient-conflict.ts).
 */
export async function rejectWith(deps: Deps, opts: { token: string; reason: string; ip?: string }): Promise<RejectResult> {
  return retryTransientConflict(() => rejectOnce(deps, opts));
}

async function rejectOnce(deps: Deps, opts: { token: string; reason: string; ip?: string }): Promise<RejectResult> {
  return deps.db.transaction().execute(async (trx) => {
    const s = await openSession(trx, opts.token, true);
    requireSignable(s);
    await requireTurn(trx, s);
    // Rejecting needs the same proof of identity as signing, except for a SAT signer: the e.firma
    // proves a signature, and declining signs nothing, so their personal link is the proof, as for
    // EMAIL_LINK (docs/api.md, "Rejecting").
    if (s.signer.authority !== 'SAT') {
      await requireProof(deps, trx, s);
    }
    const now = deps.clock.now();
    if (s.signer.role === 'endorser') {
      // An endorser who refuses leaves the document completed and the chain as it was.
      return declineEndorsement(trx, deps, s, { reason: opts.reason, at: now, ip: opts.ip ?? null });
    }
    await recordRejection(trx, { documentId: s.document.id, signerRowId: s.signer.id, reason: opts.reason, at: now, ip: opts.ip ?? null });
    await appendHistory(trx, {
      documentId: s.document.id,
      at: now,
      action: 'rejected',
      actor: `signer:${s.signer.signer_id}`,
      ip: opts.ip ?? null,
      details: { reason: opts.reason },
    });
    await emitEvent(trx, deps, {
      accountId: s.document.account_id,
      documentId: s.document.id,
      kind: 'document_rejected',
      meta: {
        signer: eventSigner(s.signer),
        reason: opts.reason,
      },
      dedupeKey: `rejected:${s.signer.signer_id}`,
    });
    // The flow ends for everyone: reminders and the expiration go; a set stops its other documents.
    await stopFlowAfterRejection(trx, deps, { documentId: s.document.id });
    return { status: 'rejected' as const, rejected_at: now.toISOString(), document_status: 'rejected' };
  });
}
