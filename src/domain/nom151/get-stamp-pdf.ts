// GET /api/document/{ticket}/stamp/{stampHash}/pdf: the exact bytes a stamp of the document
// covers (their SHA-256 is the stamp's imprint and {stampHash}), with the stamp, so that anyone
// can check the token against the file (openssl ts -verify -data).
import type { Deps } from '../deps.js';
import { AppError, invalid } from '../errors.js';
import { findDocument } from '../../store/documents-repo.js';
import { documentStamps } from '../../store/stamps-repo.js';
import { PROVIDER_DESCRIPTION } from './stamp-provider.js';
import { renditionBytes } from './rendition-bytes.js';
import type { StampedRevision } from '../../schemas/stamps.js';

export async function getStampPdf(
  deps: Pick<Deps, 'db' | 'blobs'>,
  q: { accountId: string; ticket: string; stampHash: string },
): Promise<StampedRevision> {
  if (!/^[0-9a-fA-F]{64}$/.test(q.stampHash)) {
    throw invalid('stampHash', 'expected the SHA-256 of the stamped bytes, 64 hex digits');
  }
  const doc = await findDocument(deps.db, q.accountId, q.ticket);
  if (!doc) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${q.ticket}`);
  }
  if (doc.status === 'deleted') {
    throw new AppError('DOCUMENT_DELETED', `document ${q.ticket} is deleted; restore it to download it`);
  }
  const hash = q.stampHash.toLowerCase();
  const stamp = (await documentStamps(deps.db, doc.id)).find((s) => s.covered_sha256 === hash);
  if (!stamp) {
    throw new AppError('DOCUMENT_NOT_FOUND', `document ${q.ticket} has no stamp over ${hash}`, { field: 'stampHash' });
  }
  const bytes = await renditionBytes(deps, hash);
  return {
    pdf: bytes.toString('base64'),
    hash,
    name: doc.name,
    rendition: stamp.subject === 'universal' ? 'universal' : 'original',
    stamp: stamp.token.toString('base64'),
    tsa: stamp.tsa_name,
    provider: stamp.provider,
    provider_description: PROVIDER_DESCRIPTION[stamp.provider],
    gen_time: stamp.gen_time.toISOString(),
    serial: stamp.serial,
  };
}
