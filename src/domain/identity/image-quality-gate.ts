// The quality check at capture: each image is decoded and measured in the image jail; a photo of
// the identity document that is too blurred or has a reflection is refused at once (422
// IMAGE_QUALITY, details.problem), because the signer is there, holding the card, and can take it
// again in seconds, while a reviewer days later can only reject. The selfie is measured, not
// refused: the thresholds were measured on documents, whose printed edges a face does not have;
// its figures go to the review, where a blurred selfie keeps the automatic decision from applying.
import { BLUR_MIN, GLARE_MAX } from '../../imaging/image-quality.js';
import { ImageDecodeFailure, ImageJailBusyError, type ImageQuality, ImageTooComplexError, type ImageJail } from '../../jail/image-jail.js';
import type { EvidenceKind } from '../../store/identity-repo.js';
import { AppError, invalid } from '../errors.js';

export type QualityProblem = 'blurry' | 'glare';

/** The measures of an image with each check's verdict against its threshold. */
export interface QualityVerdict extends ImageQuality {
  sharp: boolean;
  glare_free: boolean;
}

export function judgeQuality(q: ImageQuality): QualityVerdict {
  return { ...q, sharp: q.sharpness >= BLUR_MIN, glare_free: q.glare <= GLARE_MAX };
}

export async function measureEvidence(jail: ImageJail, bytes: Buffer): Promise<QualityVerdict> {
  try {
    return judgeQuality(await jail.measure(bytes));
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
