// POST /sign/api/{token}/identity/{kind} and /identity/submit: a signer asked to verify their
// identity sends the front and back of their identity document and a selfie, one image at a time
// (JPEG or PNG; replaced when sent again), then submits them for review. Each image is measured
// as it arrives (image-quality-gate.ts: a blurred or glaring document photo is refused). The images
// are sealed under the master key before they are stored, and never logged. Submitting creates the
// review (reviews.ts), takes a `verifications` piece, and queues the built-in checks (run-checks.ts).
// A signer of a document set verifies once for all their documents of the set (identitySubjectOf):
// whichever of their links they use (the set's or a document's), the images and the review are the
// same, and the decision applies to each of those documents.
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { AppError, invalid } from '../errors.js';
import { decodeBase64 } from '../base64.js';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { consumePiece } from '../packages/consume-piece.js';
import { lockDocuments } from '../../store/set-flow-repo.js';
import { openSession, requireSignable, type SigningSession } from '../signing/signing-session.js';
import {
  type EvidenceKind,
  type IdentitySubject,
  attachDraftEvidence,
  coveredRowsOf,
  draftEvidenceOf,
  identitySubjectOf,
  identityRetriesOf,
  insertReview,
  lastRejectionReasonOf,
  pendingReviewOf,
  rejectionsOf,
  setIdentityStatus,
  upsertEvidence,
} from '../../store/identity-repo.js';
import type { Database } from '../../store/schema.js';
import { addIdentityChecksJob } from '../../jobs/payloads/identity-checks.js';
import { imageInfo } from '../../identity-imaging/image-info.js';
import { measureEvidence, refuseUnusable } from './image-quality-gate.js';

export const EVIDENCE_KINDS: readonly EvidenceKind[] = ['front', 'back', 'selfie'];
/** Smallest side of a usable image: below it a document's text or a face cannot be made out. */
export const MIN_SIDE_PX = 480;

export interface IdentityState {
  required: boolean;
  status: 'verification_pending' | 'verified' | 'verification_failed' | null;
  captured: EvidenceKind[];
  submitted: boolean;
  provider: string | null;
  /** After a rejection: its reason, and whether the account allows another attempt. */
  reason: string | null;
  retry: boolean;
  /** How many documents the verification is for (a set signer's: each of theirs asking for it); 0 when not required. */
  documents: number;
}

/** Whether a rejected signer may try again: the account allows more attempts than were rejected. */
async function mayRetry(q: Kysely<Database>, s: SigningSession, subject: IdentitySubject): Promise<boolean> {
  return (await rejectionsOf(q, subject.rowId)) <= (await identityRetriesOf(q, s.document.account_id));
}

/**
 * The signer behind the token, locked, who may send evidence now: verification pending with
 * nothing submitted, or rejected with an attempt left. With whose verification it is (a set
 * signer's for a document of a set).
 */
export async function openVerifying(trx: Transaction<Database>, token: string) {
  await lockSubjectDocuments(trx, token);
  const s = await openSession(trx, token, true);
  requireSignable(s);
  const subject = await identitySubjectOf(trx, s.signer.id);
  const status = s.signer.identity_status;
  const retrying = status === 'verification_failed' && (await mayRetry(trx, s, subject));
  if (status !== 'verification_pending' && !retrying) {
    throw new AppError(
      'INVALID_STATE',
      status === null
        ? 'no identity verification is asked of this signer'
        : `the identity verification of this signer is decided already (${status})`,
    );
  }
  if (await pendingReviewOf(trx, subject.rowId)) {
    throw new AppError('INVALID_STATE', 'the evidence was submitted for review already; wait for the decision');
  }
  return Object.assign(s, { subject });
}

/**
 * A set signer's verification changes their rows on each of their documents of the set: those
 * documents are locked first, in document order (as closing a set and a decision lock them), then
 * their signer rows are changed; whichever of the person's links a request came through, a second
 * one waits here and then finds the first one's review. One document's signer: its document alone.
 */
async function lockSubjectDocuments(trx: Transaction<Database>, token: string): Promise<void> {
  const s = await openSession(trx, token);
  const covered = await coveredRowsOf(trx, await identitySubjectOf(trx, s.signer.id));
  await lockDocuments(trx, [...new Set([s.signer.document_id, ...covered.map((c) => c.document_id)])]);
}

export async function captureEvidence(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'config' | 'imageJail'>,
  o: { token: string; kind: string; image: string },
): Promise<IdentityState> {
  // The kind is a path segment: judged here, where it is named `kind` (a params schema would say `params.kind`).
  if (!(EVIDENCE_KINDS as readonly string[]).includes(o.kind)) {
    throw invalid('kind', `expected one of ${EVIDENCE_KINDS.join(', ')}`);
  }
  const max = deps.config.identity.maxImageBytes;
  const bytes = decodeBase64(o.image, { field: 'image', maxBytes: max });
  const info = imageInfo(bytes);
  if (!info) {
    throw invalid('image', 'not a JPEG, PNG or WebP image');
  }
  if (info.contentType === 'image/webp') {
    // No maintained pure-JavaScript WebP decoder exists to check it with (identity-imaging/decode-image.ts).
    throw invalid('image', 'WebP images cannot be checked by this service: send a JPEG or PNG photo');
  }
  if (Math.min(info.width, info.height) < MIN_SIDE_PX) {
    throw invalid('image', `too small to read (${info.width} × ${info.height} px): at least ${MIN_SIDE_PX} px on the shorter side`);
  }
  // The link and the signer's state first: a stranger's image is decoded only for a signer who may send it.
  await deps.db.transaction().execute((trx) => openVerifying(trx, o.token));
  const quality = await measureEvidence(deps.imageJail, bytes, o.kind as EvidenceKind);
  refuseUnusable(o.kind as EvidenceKind, quality);
  return deps.db.transaction().execute(async (trx) => {
    const s = await openVerifying(trx, o.token);
    await upsertEvidence(trx, {
      signerRowId: s.subject.rowId,
      kind: o.kind as EvidenceKind,
      content_type: info.contentType,
      width: info.width,
      height: info.height,
      size_bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      sealed: deps.secrets.seal(bytes.toString('base64')),
      created_at: deps.clock.now(),
      quality: { ...quality },
    });
    return identityState(trx, s, deps.config.identity.provider?.name ?? null);
  });
}

export async function submitEvidence(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  o: { token: string; ip?: string },
): Promise<IdentityState> {
  return deps.db.transaction().execute(async (trx) => {
    const s = await openVerifying(trx, o.token);
    const { subject } = s;
    const evidence = await draftEvidenceOf(trx, subject.rowId);
    const missing = EVIDENCE_KINDS.filter((k) => !evidence.some((e) => e.kind === k));
    if (missing.length > 0) {
      throw new AppError('INVALID_STATE', `send every image first; missing: ${missing.join(', ')}`, { missing });
    }
    const now = deps.clock.now();
    // What the service checked of each image; the rest is the reviewer's to judge.
    const checks = {
      images: Object.fromEntries(
        evidence.map((e) => [
          e.kind,
          {
            content_type: e.content_type,
            width: e.width,
            height: e.height,
            size_bytes: e.size_bytes,
            sha256: e.sha256,
            quality: e.quality,
          },
        ]),
      ),
    };
    const reviewId = await insertReview(trx, {
      accountId: s.document.account_id,
      documentId: subject.documentId,
      signerRowId: subject.rowId,
      setSignerId: subject.setSignerId,
      checks,
      at: now,
    });
    await attachDraftEvidence(trx, subject.rowId, reviewId);
    await addIdentityChecksJob(trx, { reviewId });
    const covered = await coveredRowsOf(trx, subject);
    // A new attempt after a rejection the account allows: pending again until this review is decided.
    await setIdentityStatus(
      trx,
      covered.map((c) => c.id),
      'verification_pending',
    );
    s.signer.identity_status = 'verification_pending';
    // Billed when submitted, once for a set signer's documents: a 402 here rolls the review back
    // and the signer can submit later.
    await consumePiece(trx, {
      accountId: s.document.account_id,
      kind: 'verifications',
      channel: 'manual',
      documentId: subject.documentId,
      at: now,
    });
    await recordSubmitted(trx, covered, {
      at: now,
      ip: o.ip ?? null,
      details: { review_id: reviewId, images: evidence.map((e) => ({ kind: e.kind, sha256: e.sha256 })) },
    });
    return identityState(trx, s, deps.config.identity.provider?.name ?? null);
  });
}

/**
 * `identity_submitted` in the history of each document the submission covers (a set signer's: each
 * of their documents of the set), in the name of that document's signer.
 */
export async function recordSubmitted(
  trx: Transaction<Database>,
  covered: { document_id: string; signer_id: string }[],
  e: { at: Date; ip: string | null; details: Record<string, unknown> },
): Promise<void> {
  for (const c of covered) {
    await appendHistory(trx, {
      documentId: c.document_id,
      at: e.at,
      action: 'identity_submitted',
      actor: `signer:${c.signer_id}`,
      ip: e.ip,
      details: e.details,
    });
  }
}

export async function identityState(q: Kysely<Database>, s: SigningSession, provider: string | null): Promise<IdentityState> {
  const status = s.signer.identity_status;
  if (status === null) {
    return { required: false, status: null, captured: [], submitted: false, provider: null, reason: null, retry: false, documents: 0 };
  }
  const subject = await identitySubjectOf(q, s.signer.id);
  const drafts = await draftEvidenceOf(q, subject.rowId);
  const failed = status === 'verification_failed';
  const retry = failed && (await mayRetry(q, s, subject));
  return {
    required: true,
    status,
    captured: drafts.map((e) => e.kind),
    submitted: (status !== 'verification_pending' && !retry) || (await pendingReviewOf(q, subject.rowId)) !== undefined,
    provider,
    reason: failed ? await lastRejectionReasonOf(q, subject.rowId) : null,
    retry,
    // A set signer's page, opened through the set link or a document's own, speaks of all of them.
    documents: (await coveredRowsOf(q, subject)).length,
  };
}
