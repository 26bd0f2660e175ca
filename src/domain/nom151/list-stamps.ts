// GET /api/document/{ticket}/stamps: every NOM-151 stamp of a document: which rendition, the
// authority and its kind, the time, the token and the hash of the exact bytes it covers.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { findDocument } from '../../store/documents-repo.js';
import { documentStamps } from '../../store/stamps-repo.js';
import type { StampList } from '../../schemas/stamps.js';
import { PROVIDER_DESCRIPTION } from './stamp-provider.js';

export async function listStamps(deps: Pick<Deps, 'db'>, q: { accountId: string; ticket: string }): Promise<StampList> {
  const doc = await findDocument(deps.db, q.accountId, q.ticket);
  if (!doc) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${q.ticket}`);
  }
  const rows = await documentStamps(deps.db, doc.id);
  return {
    stamps: rows.map((r) => ({
      rendition: r.subject === 'universal' ? 'universal' : 'original',
      stamp: r.token.toString('base64'),
      tsa: r.tsa_name,
      provider: r.provider,
      provider_description: PROVIDER_DESCRIPTION[r.provider],
      gen_time: r.gen_time.toISOString(),
      serial: r.serial,
      hash: r.covered_sha256,
    })),
  };
}
