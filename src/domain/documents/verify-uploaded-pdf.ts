// POST /api/report: the signature report of a PDF the client sends, checked by the same verifier
// as a stored document's report (checkFileSignatures). Nothing is stored: the file is read in the
// PDF jail and forgotten. No signer of the account made these signatures as far as the service
// knows, so `box` is -1 and `ipAddress` empty; a certificate the service issued is still
// recognized, and its status comes from the service's register.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { checkFileSignatures, type SignatureReport } from './signature-report.js';

export async function verifyUploadedPdf(deps: Deps, q: { bytes: Uint8Array }): Promise<SignatureReport> {
  if (q.bytes.length > deps.config.limits.documentBytes) {
    throw new AppError('DOCUMENT_TOO_LARGE', `the file is ${q.bytes.length} bytes; the limit is ${deps.config.limits.documentBytes}`);
  }
  return (await checkFileSignatures(deps, q.bytes, [])).report;
}
