// The built-in checks of a submitted identity review, run by the identity_checks job after the
// signer submits (OCR takes seconds: never in the signer's request). Everything runs in this
// process, in the image jail's worker threads; nothing is sent anywhere.
//   image_quality  each image's sharpness and glare against the thresholds (measured at capture)
//   mrz            the machine-readable zone read (OCR) on the front or the back, check digits verified
//   name           the zone's name against the signer's (name-match.ts)
//   expiry         the zone's expiry date against the service clock
//   face           the largest face on the document's front against the selfie's (face-match.ts)
// The results go to identity_reviews.automatic_checks and the history. An account whose identity
// decision is `automatic` has a review approved here when every check passed, the face included;
// otherwise, or when a check did not pass, the review waits for a person as before. On a server
// installed without the optional readers (identity-imaging/optional-readers.ts) the zone and the
// face say `not_checked` with why, so no review is approved by the checks there: a person decides.
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { ImageDecodeFailure, ImageJailBusyError, type ImageQuality, ImageTooComplexError } from '../../jail/image-jail.js';
import type { MrzOcrResult } from '../../identity-imaging/mrz-ocr.js';
import { ReaderNotInstalledError } from '../../identity-imaging/optional-readers.js';
import { type EvidenceKind, findReviewById, identityDecisionOf, saveAutomaticChecks, sealedEvidenceOf } from '../../store/identity-repo.js';
import { AUTOMATIC_PROVIDER } from './automatic-provider.js';
import { type FaceCheck, type FaceSide, judgeFaces } from './face-match.js';
import { judgeQuality } from './image-quality-gate.js';
import { compareNames } from './name-match.js';
import { applyDecision } from './reviews.js';

type Outcome = 'pass' | 'fail' | 'not_checked';

export interface AutomaticChecks {
  /** passed: every check passed, the face included. */
  status: 'passed' | 'failed';
  ran_at: string;
  checks: {
    image_quality: { result: Outcome; images: Partial<Record<EvidenceKind, Record<string, unknown>>> };
    mrz: {
      result: Outcome;
      side?: 'front' | 'back';
      format?: string;
      check_digits?: 'valid' | 'invalid';
      invalid_fields?: string[];
      corrected_characters?: number;
      document_code?: string | null;
      issuing_state?: string | null;
      problem?: string;
    };
    name: { result: Outcome; document_name?: string; signer_name?: string | null; missing?: string[] };
    expiry: { result: Outcome; expires_on?: string };
    face: FaceCheck;
  };
}

/** The zone's yymmdd expiry as a date: documents expire in this century. */
function expiryDate(yymmdd: string): string | undefined {
  const m = /^(\d\d)(\d\d)(\d\d)$/.exec(yymmdd);
  if (!m) {
    return undefined;
  }
  const iso = `20${m[1]}-${m[2]}-${m[3]}`;
  const d = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso ? undefined : iso;
}

async function readFace(deps: Pick<Deps, 'imageJail'>, bytes: Buffer | undefined): Promise<FaceSide> {
  if (!bytes) {
    return { problem: 'the image is missing' };
  }
  try {
    return await deps.imageJail.readFaces(bytes);
  } catch (err) {
    if (err instanceof ReaderNotInstalledError) {
      return { notInstalled: err.message };
    }
    if (err instanceof ImageDecodeFailure || err instanceof ImageTooComplexError) {
      return { problem: err.message };
    }
    if (err instanceof ImageJailBusyError) {
      throw err; // a full queue, or the service stopping: the job is retried
    }
    // The face worker could not start (its models or .wasm missing or unreadable), crashed, or
    // failed on this image. Retrying would fail the same way, and once the job's attempts ran out
    // every other check would be lost with it and the review show none: the face fails, a person
    // decides, and the log says why (the reason can name the server's files: not for the API).
    console.error(`identity checks: the face reader failed: ${err instanceof Error ? err.message : String(err)}`);
    return { problem: 'the face reader failed (the service log says why)' };
  }
}

async function readZone(deps: Pick<Deps, 'imageJail'>, bytes: Buffer): Promise<MrzOcrResult | { problem: string; notInstalled?: true }> {
  try {
    return await deps.imageJail.readMrz(bytes);
  } catch (err) {
    if (err instanceof ReaderNotInstalledError) {
      return { problem: err.message, notInstalled: true };
    }
    if (err instanceof ImageDecodeFailure || err instanceof ImageTooComplexError) {
      return { problem: err.message };
    }
    throw err; // busy or crashed: the job is retried
  }
}

type Checks = AutomaticChecks['checks'];
type ChecksDeps = Pick<Deps, 'db' | 'clock' | 'secrets' | 'imageJail'>;
type ZoneReading = NonNullable<MrzOcrResult['reading']>;

export async function runIdentityChecks(deps: ChecksDeps, o: { reviewId: string }): Promise<AutomaticChecks | undefined> {
  const review = await findReviewById(deps.db, o.reviewId);
  if (!review || review.automatic_checks || review.provider !== 'manual' || review.evidence_deleted_at) {
    return undefined;
  }
  const { images, qualityOk, bytesOf } = await checkImageQuality(deps, await sealedEvidenceOf(deps.db, review.id));
  const { mrz, reading } = await checkZone(deps, bytesOf);
  // Name and expiry are judged only on a zone whose check digits hold: an unverified reading may be misread.
  const trusted = reading?.valid ? reading : undefined;
  const name = checkName(review.signer_name, trusted);
  const expiry = checkExpiry(trusted, deps.clock.now());
  // The portrait is on the front of a card and of a passport page alike.
  const face = judgeFaces(await readFace(deps, bytesOf.get('front')), await readFace(deps, bytesOf.get('selfie')));

  const now = deps.clock.now();
  const allPassed = qualityOk && [mrz, name, expiry, face].every((c) => c.result === 'pass');
  const results: AutomaticChecks = {
    status: allPassed ? 'passed' : 'failed',
    ran_at: now.toISOString(),
    checks: { image_quality: { result: qualityOk ? 'pass' : 'fail', images }, mrz, name, expiry, face },
  };
  return recordChecks(deps, review.id, results, now);
}

/** Each image's measures taken at capture, judged now: a threshold changed since applies to them too. */
async function checkImageQuality(deps: ChecksDeps, evidence: Awaited<ReturnType<typeof sealedEvidenceOf>>) {
  const images: Checks['image_quality']['images'] = {};
  let qualityOk = evidence.length === 3;
  const bytesOf = new Map<EvidenceKind, Buffer>();
  for (const e of evidence) {
    const bytes = Buffer.from(deps.secrets.open(e.sealed), 'base64');
    bytesOf.set(e.kind, bytes);
    const stored = e.quality as ImageQuality | null;
    const q = judgeQuality(typeof stored?.sharpness === 'number' ? stored : await deps.imageJail.measure(bytes), e.kind);
    const ok = q.sharp === true && (e.kind === 'selfie' || q.glare_free === true);
    qualityOk &&= ok;
    images[e.kind] = { ...q, result: ok ? 'pass' : 'fail' };
  }
  return { images, qualityOk, bytesOf };
}

/** The zone is on the back of an identity card (TD1) and on the front of a passport page (TD3). */
async function checkZone(
  deps: Pick<Deps, 'imageJail'>,
  bytesOf: Map<EvidenceKind, Buffer>,
): Promise<{ mrz: Checks['mrz']; reading: ZoneReading | undefined }> {
  let mrz: Checks['mrz'] = { result: 'fail', problem: 'no machine-readable zone was read on the document' };
  let zone: (MrzOcrResult & { side: 'front' | 'back' }) | undefined;
  for (const side of ['back', 'front'] as const) {
    const bytes = bytesOf.get(side);
    if (!bytes) {
      continue;
    }
    const read = await readZone(deps, bytes);
    if ('problem' in read) {
      // Without the reader the zone was not read, so not failed: the review waits for a person.
      mrz = { result: read.notInstalled ? 'not_checked' : 'fail', problem: read.problem };
      continue;
    }
    if (read.reading && (!zone?.reading || (read.reading.valid && !zone.reading.valid))) {
      zone = { ...read, side };
    }
    if (zone?.reading?.valid) {
      break;
    }
  }
  const reading = zone?.reading ?? undefined;
  if (!zone || !reading) {
    return { mrz, reading: undefined };
  }
  return {
    mrz: {
      result: reading.valid ? 'pass' : 'fail',
      side: zone.side,
      format: reading.format,
      check_digits: reading.valid ? 'valid' : 'invalid',
      invalid_fields: reading.invalidFields,
      corrected_characters: reading.corrected,
      document_code: reading.documentCode,
      issuing_state: reading.issuingState,
    },
    reading,
  };
}

function checkName(signerName: string | null, trusted: ZoneReading | undefined): Checks['name'] {
  if (!trusted) {
    return { result: 'not_checked' };
  }
  const documentName = `${trusted.surnames ?? ''} ${trusted.givenNames ?? ''}`.trim();
  if (!signerName) {
    return { result: 'fail', document_name: documentName, signer_name: null, missing: [] };
  }
  const c = compareNames(signerName, {
    surnames: trusted.surnames ?? '',
    givenNames: trusted.givenNames ?? '',
    truncated: trusted.nameTruncated,
  });
  return { result: c.result === 'match' ? 'pass' : 'fail', document_name: documentName, signer_name: signerName, missing: c.missing };
}

function checkExpiry(trusted: ZoneReading | undefined, now: Date): Checks['expiry'] {
  if (!trusted) {
    return { result: 'not_checked' };
  }
  const expiresOn = trusted.expirationDate ? expiryDate(trusted.expirationDate) : undefined;
  if (!expiresOn) {
    return { result: 'fail' };
  }
  // Valid through the whole day printed, wherever it was issued: expired once that day is over
  // everywhere (the last to end it is UTC-12).
  const end = new Date(`${expiresOn}T23:59:59.999Z`).getTime() + 12 * 3_600_000;
  return { result: now.getTime() <= end ? 'pass' : 'fail', expires_on: expiresOn };
}

/**
 * The results on the review and in the history, once (a review checked meanwhile is left alone);
 * an account that decides automatically has a review whose checks all passed approved.
 */
async function recordChecks(deps: ChecksDeps, reviewId: string, results: AutomaticChecks, now: Date): Promise<AutomaticChecks | undefined> {
  return deps.db.transaction().execute(async (trx) => {
    const r = await findReviewById(trx, reviewId, true);
    if (!r || r.automatic_checks) {
      return undefined;
    }
    await saveAutomaticChecks(trx, r.id, results as unknown as Record<string, unknown>);
    const failed = Object.entries(results.checks)
      .filter(([, c]) => c.result !== 'pass')
      .map(([k]) => k);
    await appendHistory(trx, {
      documentId: r.document_id,
      at: now,
      action: 'identity_checked',
      actor: 'system',
      details: { review_id: r.id, signer_id: r.signer_id, status: results.status, ...(failed.length ? { not_passed: failed } : {}) },
    });
    if (r.status === 'pending' && results.status === 'passed' && (await identityDecisionOf(trx, r.account_id)) === 'automatic') {
      await applyDecision(trx, deps, r, { approved: true, reason: null, actor: 'system', provider: AUTOMATIC_PROVIDER });
    }
    return results;
  });
}
