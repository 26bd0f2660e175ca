// The exact bytes of a stored rendition, by its blob key (the SHA-256 of the bytes): what a stamp
// covers and what GET /api/document/{ticket}/stamp/{stampHash}/pdf returns. The bytes are checked
// against the key, so a stamp is never issued over, nor a download made of, a damaged blob.
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';

export async function renditionBytes(deps: Pick<Deps, 'blobs'>, blobSha256: string): Promise<Buffer> {
  const bytes = await deps.blobs.get(blobSha256);
  if (createHash('sha256').update(bytes).digest('hex') !== blobSha256) {
    throw new AppError('INTERNAL', 'a stored rendition does not match its hash', undefined, new Error(`blob ${blobSha256} is damaged`));
  }
  return bytes;
}
