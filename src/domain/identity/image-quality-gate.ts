// The quality check at capture: each image is decoded and measured in the image jail; a photo of
// the identity document that is too blurred or has a reflection is refused at once (422
// IMAGE_QUALITY, details.problem), because the signer is there, holding the card, and can take it
// again in seconds, while a reviewer days later can only reject. The selfie is measured, not
// refused, and judged by its own threshold (SELFIE_BLUR_MIN): a face has none of a card's printed
// edges, and the document threshold failed sharp selfies. Its figures go to the review, where a
// blurred selfie keeps the automatic decision from applying.
import { BLUR_MIN, GLARE_MAX, SELFIE_BLUR_MIN } from '../../identity-imaging/image-quality.js';
import { ImageDecodeFailure, ImageJailBusyError, type ImageQuality, ImageTooComplexError, type ImageJail } from '../../jail/image-jail.js';
import type { EvidenceKind } from '../../store/identity-repo.js';
import { AppError, invalid } from '../errors.js';

export type QualityProblem = 'blurry' | 'glare';

/** The measures of an image with each check's verdict against its threshold. */
export interface QualityVerdict extends ImageQuality {
  sharp: boolean;
  glare_free: boolean;
}

/** The sharpness an image of this kind must reach: a selfie's is its own. */
export const sharpnessMinimum = (kind: EvidenceKind) => (kind === 'selfie' ? SELFIE_BLUR_MIN : BLUR_MIN);

/** The verdicts of an image's measures; a stored verdict is judged again, so a new threshold applies to it. */
export function judgeQuality(q: ImageQuality, kind: EvidenceKind): QualityVerdict {
  return { ...q, sharp: q.sharpness >= sharpnessMinimum(kind), glare_free: q.glare <= GLARE_MAX };
}

export async function measureEvidence(jail: ImageJail, bytes: Buffer, kind: EvidenceKind): Promise<QualityVerdict> {
  try {
    return judgeQuality(await jail.measure(bytes), kind);
  } catch (err) {
    if (err instanceof ImageDecodeFailure) {
      throw invalid('image', err.message);
    }
    if (err instanceof ImageTooComplexError) {
      throw new AppError('IMAGE_TOO_COMPLEX', err.message, { field: 'image' });
    }
    if (err instanceof ImageJailBusyError) {
      throw new AppError('SERVICE_UNAVAILABLE', err.message);
    }
    throw err;
  }
}

/** Refuses a document photo that failed a check, saying what to do about it. */
export function refuseUnusable(kind: EvidenceKind, v: QualityVerdict): void {
  if (kind === 'selfie') {
    return;
  }
  if (!v.sharp) {
    throw new AppError(
      'IMAGE_QUALITY',
      'image: the photo is blurred and its text cannot be read; hold the card still, let the camera focus, and take it again',
      { field: 'image', problem: 'blurry' satisfies QualityProblem, sharpness: v.sharpness, minimum: BLUR_MIN },
    );
  }
  if (!v.glare_free) {
    throw new AppError(
      'IMAGE_QUALITY',
      'image: a reflection hides part of the card; tilt it or move away from the light, and take it again',
      { field: 'image', problem: 'glare' satisfies QualityProblem, glare: v.glare, maximum: GLARE_MAX },
    );
  }
}
