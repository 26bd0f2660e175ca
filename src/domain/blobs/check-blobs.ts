// `sello blobs check`: every row that names a blob, against the store the service uses (data
// directory or bucket): a blob absent, or whose bytes no longer hash to its key, is listed with the
// rows that name it. Each blob is read once however many rows name it.
import type { Db } from '../../store/db.js';
import { blobReferences, type BlobReference } from '../../store/blob-references-repo.js';
import { BlobNotFoundError, type BlobStore } from '../../store/blobs.js';
import { blobDigest, eachWithin } from './blob-digest.js';

/** A blob some rows name that the store does not hold intact. */
export interface BlobProblem {
  key: string;
  /** missing: no such blob; corrupt: its bytes hash to `actual`; invalid key: not a SHA-256 at all. */
  problem: 'missing' | 'corrupt' | 'invalid key';
  actual?: string;
  rows: Omit<BlobReference, 'key'>[];
}

export interface BlobCheck {
  /** Distinct blobs read. */
  blobs: number;
  /** Rows (references) that name them. */
  references: number;
  /** In key order. */
  problems: BlobProblem[];
}

/** Blobs read at once: enough to keep a bucket's round trips overlapping, few enough for a disk. */
const PARALLEL = 4;

export async function checkBlobs(deps: { db: Db; blobs: BlobStore }): Promise<BlobCheck> {
  const refs = await blobReferences(deps.db);
  const byKey = new Map<string, Omit<BlobReference, 'key'>[]>();
  for (const { key, ...where } of refs) {
    const rows = byKey.get(key) ?? [];
    rows.push(where);
    byKey.set(key, rows);
  }
  const problems: BlobProblem[] = [];
  await eachWithin(byKey, PARALLEL, async ([key, rows]) => {
    if (!/^[0-9a-f]{64}$/.test(key)) {
      problems.push({ key, problem: 'invalid key', rows });
      return;
    }
    try {
      const actual = await blobDigest(deps.blobs, key);
      if (actual !== key) {
        problems.push({ key, problem: 'corrupt', actual, rows });
      }
    } catch (err) {
      if (!(err instanceof BlobNotFoundError)) {
        throw err;
      }
      problems.push({ key, problem: 'missing', rows });
    }
  });
  problems.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { blobs: byKey.size, references: refs.length, problems };
}
