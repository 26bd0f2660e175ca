// Removes blobs no row names: bytes of a creation that failed after its put, template files
// replaced, renditions of purged documents, an evidence PDF made twice. Only blobs last written
// longer ago than SELLO_ORPHAN_BLOB_GRACE_HOURS are considered: a creation in flight puts its bytes
// (or refreshes their time) before its row commits, and is spared the extra work of writing them
// again. That grace period alone would not make the sweep safe (store/blob-fence.ts): the delete
// itself happens under the key's lock, after a last check of the references
// (delete-unreferenced-blob.ts). Works on the BlobStore contract only, so with every backend.
// Run daily by the orphan_blob_sweep job.
import type { Deps } from '../deps.js';
import type { BlobEntry } from '../../store/blobs.js';
import { referencedKeys } from '../../store/blob-references.js';
import { type DeleteHooks, deleteIfUnreferenced } from './delete-unreferenced-blob.js';

export interface OrphanSweep {
  /** Blobs in the store. */
  examined: number;
  /** Blobs deleted, and their bytes. */
  deleted: number;
  bytes: number;
}

/** Keys checked against the database in one query. */
const BATCH = 500;

export async function sweepOrphanBlobs(
  deps: Pick<Deps, 'db' | 'blobs' | 'clock' | 'config'>,
  hooks: DeleteHooks = {},
): Promise<OrphanSweep> {
  const cutoff = deps.clock.now().getTime() - deps.config.lifecycle.orphanGraceHours * 3_600_000;
  const out: OrphanSweep = { examined: 0, deleted: 0, bytes: 0 };
  let batch: BlobEntry[] = [];
  const flush = async () => {
    const referenced = await referencedKeys(
      deps.db,
      batch.map((e) => e.key),
    );
    for (const e of batch) {
      if (!referenced.has(e.key) && (await deleteIfUnreferenced(deps, e.key, hooks))) {
        out.deleted++;
        out.bytes += e.size;
      }
    }
    batch = [];
  };
  for await (const entry of deps.blobs.list()) {
    out.examined++;
    if (entry.writtenAt.getTime() > cutoff) {
      continue;
    }
    batch.push(entry);
    if (batch.length >= BATCH) {
      await flush();
    }
  }
  await flush();
  return out;
}
