// GET /download/{token}: the signed PDF behind a conclusion email's download link (sent instead of
// an attachment over the size limit). The token is the credential: random, stored hashed, valid
// 30 days, and useless once the document is deleted.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { hashToken } from '../ids.js';
import { findDownloadLink } from '../../store/workflow-repo.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function openDownloadLink(deps: Pick<Deps, 'db' | 'blobs' | 'clock'>, token: string): Promise<{ name: string; pdf: Buffer }> {
  const link = TOKEN.test(token) ? await findDownloadLink(deps.db, hashToken(token)) : undefined;
  if (!link || link.status === 'deleted') {
    throw new AppError('DOCUMENT_NOT_FOUND', 'this download link is not valid');
  }
  if (link.expires_at.getTime() <= deps.clock.now().getTime()) {
    throw new AppError('INVALID_STATE', 'this download link has expired; ask the sender for the document');
  }
  return { name: link.name, pdf: await deps.blobs.get(link.original_sha256) };
}
