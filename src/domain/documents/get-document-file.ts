// GET /api/document/{type}/{ticket}: a rendition of the document, Base64 inside a JSON envelope
// with its SHA-256, so the client can check what it stores.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findDocument } from '../../store/documents-repo.js';

import { FILE_TYPES } from '../../schemas/documents.js';

export { FILE_TYPES };
export type FileType = (typeof FILE_TYPES)[number];

export async function getDocumentFile(
  deps: Pick<Deps, 'db' | 'blobs'>,
  q: { accountId: string; ticket: string; type: string },
): Promise<{ type: FileType; bytes: Buffer; hash: string; name: string }> {
  if (!(FILE_TYPES as readonly string[]).includes(q.type)) {
    throw new AppError('INVALID_INPUT', `type: expected one of ${FILE_TYPES.join(', ')}`, { field: 'type' });
  }
  const type = q.type as FileType;
  const doc = await findDocument(deps.db, q.accountId, q.ticket);
  if (!doc) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${q.ticket}`);
  }
  if (doc.status === 'deleted') {
    throw new AppError('DOCUMENT_DELETED', `document ${q.ticket} is deleted; restore it to download it`);
  }
  if (type === 'universal') {
    // The long-term-validation rendition is produced once every signer has signed.
    throw new AppError('NOT_YET_AVAILABLE', 'the universal rendition exists once the document is completed', {
      status: doc.status,
    });
  }
  const hash = type === 'source' ? doc.source_sha256 : doc.original_sha256;
  return { type, bytes: await deps.blobs.get(hash), hash, name: doc.name };
}
