// The one error the building of a CMS signature throws. pdf/ reports it as its own PdfSignError,
// with the same problem and message, so a caller sees one kind of refusal whichever step made it.

/** Why a CMS signature could not be made. */
export type CmsSignProblem =
  /** The time-stamp token is not one DER element (the time-stamp authority's reply is checked before). */
  | 'TIMESTAMP_INVALID'
  /** The signing time is before a certificate of the signer's chain becomes valid: the clock is behind. */
  | 'CLOCK_BEHIND'
  /** A signature value made outside (the signer's own key) does not verify with their certificate. */
  | 'SIGNATURE_MISMATCH'
  /** Anything else: bad key or certificate, untrusted signer chain, a signature that does not verify. */
  | 'SIGNING_FAILED';

export class CmsSignError extends Error {
  constructor(
    readonly problem: CmsSignProblem,
    message: string,
  ) {
    super(message);
    this.name = 'CmsSignError';
  }
}

/** Throws CmsSignError('SIGNING_FAILED', message). */
export const signingFailed = (message: string): never => {
  throw new CmsSignError('SIGNING_FAILED', message);
};
