// GET /api/documentset/{uuid}: the set with its documents and their signers, the set's own signers
// (preloaded while OPEN; everyone, in flow order, once closed) and, once closed, the flow's dates.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findSet, setDocuments } from '../../store/documents-repo.js';
import { findFlowSet } from '../../store/set-flow-repo.js';
import { listSetSigners } from '../../store/set-signers-repo.js';
import type { DocumentSet } from '../../schemas/sets.js';
import { archivalStates } from '../documents/archival-state.js';

export async function getDocumentSet(deps: Pick<Deps, 'db'>, q: { accountId: string; uuid: string }): Promise<DocumentSet> {
  const row = await findSet(deps.db, q.accountId, q.uuid);
  if (!row) {
    throw new AppError('DOCUMENT_SET_NOT_FOUND', `no document set ${q.uuid}`);
  }
  const [set, docs, signers] = await Promise.all([
    findFlowSet(deps.db, { id: row.id }).then((s) => s!),
    setDocuments(deps.db, row.id),
    listSetSigners(deps.db, row.id),
  ]);
  const archival = await archivalStates(
    deps,
    docs.map((d) => d.id),
  );
  return {
    uuid: set.uuid,
    name: set.name,
    status: set.status,
    metadata: row.metadata ?? null,
    created_at: row.created_at.toISOString(),
    closed_at: set.closed_at?.toISOString() ?? null,
    expires_at: set.status === 'OPEN' ? null : (set.expires_at?.toISOString() ?? null),
    workflow: set.workflow,
    signers: signers.map((s) => ({
      signer_id: s.signer_id,
      authority: s.authority,
      data: s.data,
      name: s.name,
      email: s.email,
      status: s.status,
      position: s.position,
    })),
    documents: docs.map((d) => ({
      document_ticket: d.ticket,
      name: d.name,
      status: d.status,
      created_at: d.created_at.toISOString(),
      signers: d.signers,
      ...archival.get(d.id)!,
    })),
  };
}
