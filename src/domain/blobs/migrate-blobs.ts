// `sello blobs migrate`: copies the data directory's blobs to the bucket, each streamed (never held
// whole), and reads every copy back to check that its bytes hash to its key. A blob whose bytes in
// the directory no longer match its key is reported and not copied: a damaged blob must not look
// sound in its new home. One already in the bucket intact is left as it is, so a migration cut
// short can simply be run again.
import type { BlobStore } from '../../store/blobs.js';
import type { S3BlobStore } from '../../store/blobs-s3.js';
import { blobDigest, eachWithin } from './blob-digest.js';

export interface BlobMigration {
  /** Blobs copied and read back intact, and their bytes. */
  copied: number;
  bytes: number;
  /** Blobs already in the bucket with the right bytes. */
  present: number;
  /** Blobs whose bytes in the source hash to something else (`actual`): not copied. */
  corrupt: { key: string; actual: string }[];
  /** Blobs that could not be copied, or whose copy did not read back intact. */
  failed: { key: string; reason: string }[];
}

const PARALLEL = 4;

export async function migrateBlobs(o: { from: BlobStore; to: S3BlobStore }): Promise<BlobMigration> {
  const out: BlobMigration = { copied: 0, bytes: 0, present: 0, corrupt: [], failed: [] };
  await eachWithin(o.from.list(), PARALLEL, async ({ key, size }) => {
    try {
      const source = await blobDigest(o.from, key);
      if (source !== key) {
        out.corrupt.push({ key, actual: source });
        return;
      }
      if ((await o.to.has(key)) && (await blobDigest(o.to, key)) === key) {
        out.present++;
        return;
      }
      await o.to.putStream(key, await o.from.stream(key));
      const copy = await blobDigest(o.to, key);
      if (copy !== key) {
        out.failed.push({ key, reason: `the copy in the bucket hashes to ${copy}` });
        return;
      }
      out.copied++;
      out.bytes += size;
    } catch (err) {
      out.failed.push({ key, reason: (err as Error).message });
    }
  });
  const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  out.corrupt.sort(byKey);
  out.failed.sort(byKey);
  return out;
}
