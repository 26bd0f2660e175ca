// GET /api/documentset/{uuid}: the set with its documents and their signers.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findSet, setDocuments } from '../../store/documents-repo.js';

export async function getDocumentSet(deps: Pick<Deps, 'db'>, q: { accountId: string; uuid: string }) {
  const set = await findSet(deps.db, q.accountId, q.uuid);
  if (!set) {
    throw new AppError('DOCUMENT_SET_NOT_FOUND', `no document set ${q.uuid}`);
  }
  const docs = await setDocuments(deps.db, set.id);
  return {
    uuid: set.uuid,
    name: set.name,
    status: set.status,
    metadata: set.metadata ?? null,
    created_at: set.created_at.toISOString(),
    documents: docs.map((d) => ({
      document_ticket: d.ticket,
      name: d.name,
      status: d.status,
      created_at: d.created_at.toISOString(),
      signers: d.signers,
    })),
  };
}
