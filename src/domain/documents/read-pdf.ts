// Reads a PDF for the use cases, in the PDF jail (jail/pdf-jail.ts), turning what the reader
// finds into API errors.
import { AppError } from '../errors.js';
import { PdfJailBusyError, PdfTooComplexError, type PdfJail } from '../../jail/pdf-jail.js';
import { type EncryptedPolicy, PdfInputError, type PdfInfo } from '../../pdf/inspect-pdf.js';
import { PdfReadError } from '../../pdf/read-signatures.js';

/** `encrypted`: what to do with a file encrypted with an owner password only (pdf/inspect-pdf.ts); refused unless said. */
export async function readPdf(jail: PdfJail, bytes: Uint8Array, maxPages: number, encrypted: EncryptedPolicy = 'refuse'): Promise<PdfInfo> {
  try {
    return await jail.inspect(bytes, maxPages, encrypted);
  } catch (err) {
    throw pdfJailError(err);
  }
}

/** The error a client sees for a failure of the PDF jail; anything else unchanged. */
export function pdfJailError(err: unknown): unknown {
  if (err instanceof PdfInputError) {
    const code = err.problem === 'ENCRYPTED' ? 'PDF_ENCRYPTED' : err.problem === 'TOO_MANY_PAGES' ? 'PDF_TOO_MANY_PAGES' : 'PDF_INVALID';
    return new AppError(code, err.message);
  }
  if (err instanceof PdfTooComplexError) {
    return new AppError('PDF_TOO_COMPLEX', err.message);
  }
  if (err instanceof PdfReadError) {
    return new AppError('PDF_INVALID', err.message);
  }
  if (err instanceof PdfJailBusyError) {
    return new AppError('SERVICE_UNAVAILABLE', err.message);
  }
  return err;
}
