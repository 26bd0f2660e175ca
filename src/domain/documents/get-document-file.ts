// GET /api/document/{type}/{ticket}: a rendition of the document, Base64 inside a JSON envelope
// with its SHA-256, so the client can check what it stores.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findDocument } from '../../store/documents-repo.js';
import { universalState } from '../../store/universal-repo.js';

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
  const universal = type === 'universal' ? await universalState(deps.db, doc.id) : undefined;
  if (universal && !universal.universal_sha256) {
    // The long-term-validation rendition is built by a job after completion; until it is stored
    // the answer says how far it is (pending, or failed with the reason of the last attempt).
    throw new AppError('NOT_YET_AVAILABLE', universalNotYet(doc.status, universal.universal_status, universal.universal_error), {
      status: doc.status,
      universal_status: universal.universal_status,
      ...(universal.universal_error ? { reason: universal.universal_error } : {}),
    });
  }
  const hash = type === 'source' ? doc.source_sha256 : universal ? universal.universal_sha256! : doc.original_sha256;
  return { type, bytes: await deps.blobs.get(hash), hash, name: doc.name };
}

function universalNotYet(status: string, universal: string | null, error: string | null): string {
  if (universal === 'failed') {
    return `the universal rendition could not be built and is no longer retried (the operator must act): ${error ?? 'unknown reason'}`;
  }
  if (universal === 'pending' && error) {
    return `the universal rendition could not be built yet (it is retried): ${error}`;
  }
  if (universal === 'pending') {
    return 'the universal rendition is being built; try again shortly';
  }
  if (status === 'completed') {
    // Completed before universal renditions existed: the daily sweep queues its build.
    return 'the universal rendition of this document is not queued yet; it will be built after the next daily sweep';
  }
  return `the universal rendition exists once the document is completed (it is ${status})`;
}
