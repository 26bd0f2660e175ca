// Deletes a blob only if no row names it, under the key's exclusive lock (store/blob-fence.ts says
// why the lock and not only a time check): the one way the orphan sweep and the purge remove bytes.
import type { Deps } from '../deps.js';
import { lockBlobForDelete } from '../../store/blob-fence.js';
import { referencedKeys } from '../../store/blob-references.js';

export interface DeleteHooks {
  /** Runs while the key's lock is held and its absence of references confirmed, just before the delete. */
  beforeDelete?: (key: string) => Promise<void>;
}

/** True when the blob was deleted (or was already absent); false when a row names it. */
export async function deleteIfUnreferenced(deps: Pick<Deps, 'db' | 'blobs'>, key: string, hooks: DeleteHooks = {}): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    await lockBlobForDelete(trx, key);
    if ((await referencedKeys(trx, [key])).size > 0) {
      return false;
    }
    await hooks.beforeDelete?.(key);
    await deps.blobs.delete(key);
    return true;
  });
}
