// The `face` identity check: the largest face on the document's front (the card's portrait, or the
// passport page's) against the largest face on the selfie, by the Euclidean distance of their
// descriptors (identity-imaging/face-descriptor.ts). Under FACE_THRESHOLD: the same person. The threshold and
// the error rates it gives were measured with bench/face-accuracy.ts (docs/api.md, "Face comparison").
// The descriptors are compared here and dropped: only the distance and the boxes are recorded.
import { descriptorDistance, type FaceReading, type FoundFace } from '../../identity-imaging/face-descriptor.js';

/** Largest distance still taken as the same person: below the package's usual 0.6, for fewer false accepts. */
export const FACE_THRESHOLD = 0.5;

export interface FaceCheck {
  result: 'pass' | 'fail' | 'not_checked';
  /** Distance of the two largest faces' descriptors, 3 decimals; absent when a side has no face. */
  distance?: number;
  threshold: number;
  /** Faces found on the document's front and on the selfie, largest first (box in the image's pixels, score). */
  front_faces: FoundFace[];
  selfie_faces: FoundFace[];
  problem?: string;
}

/** A reading, why there is none (the image could not be decoded or took too long), or that this server has no face reader. */
export type FaceSide = FaceReading | { problem: string } | { notInstalled: string };

export function judgeFaces(front: FaceSide, selfie: FaceSide): FaceCheck {
  const base = {
    threshold: FACE_THRESHOLD,
    front_faces: 'faces' in front ? front.faces : [],
    selfie_faces: 'faces' in selfie ? selfie.faces : [],
  };
  // Not a failure of the photographs: the comparison did not run, and a person decides.
  if ('notInstalled' in front) {
    return { result: 'not_checked', ...base, problem: front.notInstalled };
  }
  if ('problem' in front) {
    return { result: 'fail', ...base, problem: `document front: ${front.problem}` };
  }
  if ('notInstalled' in selfie) {
    return { result: 'not_checked', ...base, problem: selfie.notInstalled };
  }
  if ('problem' in selfie) {
    return { result: 'fail', ...base, problem: `selfie: ${selfie.problem}` };
  }
  // No face on a side: the check ran and did not find the match it needs, so it fails (a person
  // decides), with the side named.
  if (!front.descriptor) {
    return { result: 'fail', ...base, problem: 'no face was found on the document front' };
  }
  if (!selfie.descriptor) {
    return { result: 'fail', ...base, problem: 'no face was found on the selfie' };
  }
  const distance = Math.round(descriptorDistance(front.descriptor, selfie.descriptor) * 1000) / 1000;
  return { result: distance < FACE_THRESHOLD ? 'pass' : 'fail', distance, ...base };
}
