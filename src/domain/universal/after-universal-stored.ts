// What follows each universal revision, in the transaction that stores it (the first rendition and
// every renewal). The one place for work triggered by a new universal rendition: the NOM-151 stamp
// of the universal rendition of a document created with `nom151` is to be queued here, so that it
// commits or vanishes with the revision it stamps.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { Database } from '../../store/schema.js';

export interface StoredUniversal {
  documentId: string;
  /** SHA-256 (hex) of the universal rendition just stored: what a stamp of it covers. */
  sha256: string;
  kind: 'initial' | 'renewal';
}

export async function afterUniversalStored(
  _trx: Transaction<Database>,
  _deps: Pick<Deps, 'config' | 'clock'>,
  _stored: StoredUniversal,
): Promise<void> {
  // Nothing yet: NOM-151 stamps of the universal rendition are not built in this version.
}
