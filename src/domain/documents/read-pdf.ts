// Reads an uploaded PDF for the use cases, turning the PDF library's findings into API errors.
import { AppError } from '../errors.js';
import { PdfInputError, inspectPdf, type PdfInfo } from '../../pdf/inspect-pdf.js';

export async function readPdf(bytes: Uint8Array, maxPages: number): Promise<PdfInfo> {
  try {
    return await inspectPdf(bytes, { maxPages });
  } catch (err) {
    if (err instanceof PdfInputError) {
      const code = err.problem === 'ENCRYPTED' ? 'PDF_ENCRYPTED' : err.problem === 'TOO_MANY_PAGES' ? 'PDF_TOO_MANY_PAGES' : 'PDF_INVALID';
      throw new AppError(code, err.message);
    }
    throw err;
  }
}
