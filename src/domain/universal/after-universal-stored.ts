// What follows each universal revision, in the transaction that stores it (the first rendition and
// every renewal). The one place for work triggered by a new universal rendition: the NOM-151 stamp
// of the universal rendition of a document created with `nom151` is queued here, so that it
// commits or vanishes with the revision it stamps. Only the first rendition is stamped: a renewal
// keeps those bytes as its prefix (the stamp stays valid for them, and GET .../stamp/{hash}/pdf
// still serves them); its own proof is the fresh document time stamp it adds.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { Database } from '../../store/schema.js';
import { addNom151StampJob } from '../../jobs/payloads/nom151-stamp.js';
import { stampableDocument } from '../../store/stamps-repo.js';

export interface StoredUniversal {
  documentId: string;
  /** SHA-256 (hex) of the universal rendition just stored: what a stamp of it covers. */
  sha256: string;
  kind: 'initial' | 'renewal';
}

export async function afterUniversalStored(
  trx: Transaction<Database>,
  _deps: Pick<Deps, 'config' | 'clock'>,
  stored: StoredUniversal,
): Promise<void> {
  if (stored.kind !== 'initial') {
    return;
  }
  const doc = await stampableDocument(trx, stored.documentId);
  if (doc?.nom151) {
    await addNom151StampJob(trx, { documentId: stored.documentId, rendition: 'universal' });
  }
}
