// The gate every signature passes (sign-document.ts, the SAT e.firma steps): a signer asked to
// verify their identity signs only once a reviewer approved it.
import { AppError } from '../errors.js';
import type { SigningSession } from '../signing/signing-session.js';

export function requireIdentityVerified(s: SigningSession): void {
  requireIdentityStatusVerified(s.signer.identity_status);
}

/** The same gate on a signer row's identity_status (a set signer's rows, sign-set.ts). */
export function requireIdentityStatusVerified(status: SigningSession['signer']['identity_status']): void {
  if (status === 'verification_pending') {
    throw new AppError(
      'IDENTITY_VERIFICATION_REQUIRED',
      'your identity must be verified before you sign: send the front and back of your identity document and a selfie, then wait for the review',
    );
  }
  if (status === 'verification_failed') {
    throw new AppError('IDENTITY_VERIFICATION_FAILED', 'your identity could not be verified, so you cannot sign this document');
  }
}
