// A PDF encrypted with an owner password only (an empty user password: every reader opens it) is
// created as its decrypted copy (decisions.md, Errors): the copy becomes the document's source,
// and the history records what came in.
import { AppError } from '../errors.js';
import { sha256Hex } from '../../store/blobs.js';
import type { PdfInfo } from '../../pdf/inspect-pdf.js';
import type { PdfSource } from './resolve-pdf-origin.js';

/** The details of the history entry `decrypted`. */
export interface DecryptedDetails {
  protection: 'owner_password';
  /** What protected the original, e.g. "AES-128". */
  encryption: string;
  /** SHA-256 of the file as it was sent. */
  original_sha256: string;
}

/** Makes `source` the decrypted copy `info` carries, if any; answers what the history says of it. */
export function adoptDecryptedCopy(source: PdfSource, info: PdfInfo, maxBytes: number): DecryptedDetails | undefined {
  if (!info.decrypted) {
    return undefined;
  }
  // Written again in the clear, without the original's object streams, the copy can be twice the size.
  if (info.decrypted.bytes.length > maxBytes) {
    throw new AppError(
      'DOCUMENT_TOO_LARGE',
      `${source.origin}: the PDF is encrypted with an owner password only, and its decrypted copy (${info.decrypted.bytes.length} bytes) is larger than the limit of ${Math.round(maxBytes / 1048576)} MB`,
      { field: source.origin },
    );
  }
  const details: DecryptedDetails = {
    protection: 'owner_password',
    encryption: info.decrypted.encryption,
    original_sha256: sha256Hex(source.bytes),
  };
  source.bytes = Buffer.from(info.decrypted.bytes);
  return details;
}
