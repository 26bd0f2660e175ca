// The one error signPdf throws. Kept apart from sign-pdf.ts so the helpers it uses can throw it
// without importing the orchestrator (no import cycle).
import { CmsSignError } from '../pki/cms/sign-error.js';

/** Why a signature could not be added. */
export type PdfSignProblem =
  /** The file cannot take an incremental revision (e.g. it only opened by brute-force recovery, or a
   *  certification signature forbids changes): signing would break what is already signed. 422. */
  | 'NOT_INCREMENTAL'
  /** The time-stamp authority's reply failed a check (status, imprint, nonce, signature, chain). */
  | 'TIMESTAMP_INVALID'
  /** The signing time is before a certificate of the signer's chain becomes valid: the clock is behind. */
  | 'CLOCK_BEHIND'
  /** A signature box is off its page, empty, too small or on a page that does not exist. */
  | 'BOX_INVALID'
  /** A signature value made outside (the signer's own key) does not verify with their certificate. */
  | 'SIGNATURE_MISMATCH'
  /** Anything else: bad key or certificate, untrusted signer chain, unreadable image, a bug. */
  | 'SIGNING_FAILED';

/** Thrown by signPdf; nothing is returned when it is thrown. */
export class PdfSignError extends Error {
  constructor(
    readonly problem: PdfSignProblem,
    message: string,
  ) {
    super(message);
    this.name = 'PdfSignError';
  }
}

/**
 * Runs a step of pki/cms, its refusal (CmsSignError) reported as signPdf reports its own: the same
 * problem and message.
 */
export async function cmsStep<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw err instanceof CmsSignError ? new PdfSignError(err.problem, err.message) : err;
  }
}
