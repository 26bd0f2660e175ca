// The blob part of `sello backup` / `sello restore`, on the BlobStore contract only, so with every
// backend. `copy`: the bytes of every blob the database snapshot names, under blobs/aa/bb/KEY,
// each checked against its key (its SHA-256) as it is written. `manifest`: only the list of keys
// and sizes, for a store that keeps its own copies (an S3 bucket with versioning or replication):
// restore then checks that every key is still in the store instead of writing bytes.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BlobNotFoundError, type BlobStore } from './blobs.js';

export type BlobMode = 'copy' | 'manifest';

export interface BlobPart {
  mode: BlobMode;
  /** Every key the snapshot's rows name, with its size. */
  keys: { key: string; size: number }[];
  bytes: number;
}

const pathIn = (dir: string, key: string) => join(dir, 'blobs', key.slice(0, 2), key.slice(2, 4), key);

/** Reads every key from the store (written out in `copy` mode); keys the store lacks are returned apart. */
export async function backupBlobs(
  blobs: BlobStore,
  keys: string[],
  dir: string,
  mode: BlobMode,
): Promise<BlobPart & { missing: string[] }> {
  const out: BlobPart & { missing: string[] } = { mode, keys: [], bytes: 0, missing: [] };
  for (const key of keys) {
    let bytes: Buffer;
    try {
      bytes = await blobs.get(key);
    } catch (err) {
      if (err instanceof BlobNotFoundError) {
        out.missing.push(key);
        continue;
      }
      throw err;
    }
    if (createHash('sha256').update(bytes).digest('hex') !== key) {
      throw new Error(`blob ${key} in the store is damaged: its bytes do not hash to its key`);
    }
    if (mode === 'copy') {
      await mkdir(join(dir, 'blobs', key.slice(0, 2), key.slice(2, 4)), { recursive: true, mode: 0o700 });
      await writeFile(pathIn(dir, key), bytes, { mode: 0o600 });
    }
    out.keys.push({ key, size: bytes.length });
    out.bytes += bytes.length;
  }
  return out;
}

/** Keys of the part the store does not have (in `manifest` mode, nothing restore can write back). */
export async function missingFromStore(blobs: BlobStore, part: BlobPart): Promise<string[]> {
  const missing: string[] = [];
  for (const { key } of part.keys) {
    if (!(await blobs.has(key))) {
      missing.push(key);
    }
  }
  return missing;
}

/** Checks every copied file against its key and size; the damaged or absent ones, by key. */
export async function damagedCopies(dir: string, part: BlobPart): Promise<string[]> {
  if (part.mode !== 'copy') {
    return [];
  }
  const bad: string[] = [];
  for (const { key, size } of part.keys) {
    const bytes = await readFile(pathIn(dir, key)).catch(() => undefined);
    if (!bytes || bytes.length !== size || createHash('sha256').update(bytes).digest('hex') !== key) {
      bad.push(key);
    }
  }
  return bad;
}

/** Writes the copied blobs into the store (already checked by damagedCopies); returns how many. */
export async function restoreBlobs(blobs: BlobStore, dir: string, part: BlobPart): Promise<number> {
  if (part.mode !== 'copy') {
    return 0;
  }
  for (const { key } of part.keys) {
    const stored = await blobs.put(await readFile(pathIn(dir, key)));
    if (stored !== key) {
      throw new Error(`blob ${key}: stored under ${stored}`);
    }
  }
  return part.keys.length;
}

/** True when `dir` does not exist or is empty. */
export async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return true;
    }
    throw err;
  }
}
