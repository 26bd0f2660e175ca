// A NOM-151 stamp applied to a PDF as a document time stamp: a /DocTimeStamp revision appended to
// the file (pdf/document-timestamp.ts), so earlier signatures stay valid. The file is read and the
// revision prepared in the PDF jail; the token is fetched and checked here, then written into the
// reserved bytes, which parses nothing.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { pdfJailError, readPdf } from '../documents/read-pdf.js';
import { DocumentTimestampError, embedDocumentTimestamp, type PreparedTimestamp } from '../../pdf/document-timestamp.js';
import { type IssuedStamp, stampProvider } from './stamp-provider.js';

export async function applyPdfStamp(deps: Deps, bytes: Buffer): Promise<{ pdf: Buffer; issued: IssuedStamp }> {
  // Read strictly first (every object, the page limit): a malformed file is a 422 before anything else.
  await readPdf(deps.pdfJail, bytes, deps.config.limits.pages);
  let prepared: PreparedTimestamp;
  try {
    prepared = await deps.pdfJail.prepareDocumentTimestamp(bytes);
  } catch (err) {
    throw timestampError(pdfJailError(err));
  }
  const issued = await stampProvider(deps).stamp(prepared.imprint);
  try {
    return { pdf: embedDocumentTimestamp(bytes, prepared, issued.token), issued };
  } catch (err) {
    throw timestampError(err);
  }
}

function timestampError(err: unknown): unknown {
  if (!(err instanceof DocumentTimestampError)) {
    return err;
  }
  switch (err.problem) {
    case 'UNREADABLE':
      return new AppError('PDF_INVALID', err.message);
    case 'ENCRYPTED':
      return new AppError('PDF_ENCRYPTED', err.message);
    case 'NOT_INCREMENTAL':
      return new AppError('PDF_NOT_SIGNABLE', `the PDF cannot take a time stamp without being rewritten: ${err.message}`);
    case 'TOKEN_TOO_LARGE':
      return new AppError('STAMP_REFUSED', `the provider's token is too large to embed: ${err.message}`);
    default:
      return new AppError('INTERNAL', 'the time stamp could not be embedded', undefined, err);
  }
}
