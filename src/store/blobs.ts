// Content-addressed blob storage for PDFs: the key is the SHA-256 (hex) of the bytes, so a blob is
// immutable and storing the same document twice costs nothing. The filesystem implementation makes
// a blob durable (data and directory entry fsynced) before put() resolves, because a document row
// may only commit once its bytes survive a crash. The S3 implementation (blobs-s3.ts) fills the
// same interface; blob-store.ts picks one from the configuration.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, opendir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

export interface BlobStore {
  /** Stores the bytes durably and returns their SHA-256 hex key. */
  put(bytes: Uint8Array): Promise<string>;
  /**
   * The bytes under a key; throws BlobNotFoundError when absent. `shared`: read into shared memory,
   * for a file only the PDF jail's workers read, which then reach it without a copy
   * (jail/shared-bytes.ts; WebCrypto refuses shared memory, so not for bytes signed or hashed here).
   */
  get(key: string, opts?: { shared?: boolean }): Promise<Buffer>;
  /**
   * The bytes under a key as a stream, for a reader that needs no more than a chunk at a time
   * (hashing, copying); throws BlobNotFoundError when absent.
   */
  stream(key: string): Promise<Readable>;
  has(key: string): Promise<boolean>;
  /**
   * Every blob in the store, in no particular order, with the time it was last written. A put of
   * bytes already stored counts as a write (it refreshes the time), so a sweep that spares blobs
   * written within a grace period never removes one a creation in flight has just named.
   */
  list(): AsyncIterable<BlobEntry>;
  /** Removes a blob; one already absent is not an error. Only purges and the orphan sweep call it. */
  delete(key: string): Promise<void>;
}

/** One stored blob as list() reports it. */
export interface BlobEntry {
  key: string;
  size: number;
  writtenAt: Date;
}

export class BlobNotFoundError extends Error {}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function createFsBlobStore(root: string): BlobStore {
  const pathOf = (key: string) => {
    if (!/^[0-9a-f]{64}$/.test(key)) {
      throw new Error('invalid blob key');
    }
    return join(root, key.slice(0, 2), key.slice(2, 4), key);
  };
  // Directories known to exist: each file-system call is a trip to libuv's threads, and a put
  // already makes nine; one that vanished (removed by hand) is made again on ENOENT.
  const made = new Set<string>();
  const openInDirectory = async (dir: string, file: string) => {
    if (!made.has(dir)) {
      await mkdir(dir, { recursive: true });
      made.add(dir);
    }
    try {
      return await open(file, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw err;
      }
      await mkdir(dir, { recursive: true });
      return open(file, 'wx', 0o600);
    }
  };
  return {
    async put(bytes) {
      const key = sha256Hex(bytes);
      const final = pathOf(key);
      // Already stored: refresh its time instead of writing it again. The orphan sweep judges a
      // blob by when it was last written, and a row about to name these bytes must not lose them
      // to a sweep of an older, unreferenced copy. Absent (never stored, or swept): written below.
      const now = new Date();
      if (
        await utimes(final, now, now).then(
          () => true,
          () => false,
        )
      ) {
        return key;
      }
      const dir = join(root, key.slice(0, 2), key.slice(2, 4));
      const tmp = join(dir, `.${key}.${randomBytes(6).toString('hex')}.tmp`);
      const fh = await openInDirectory(dir, tmp);
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      try {
        await rename(tmp, final);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      // The rename is durable only once the directory entry is on disk.
      const dh = await open(dir, 'r');
      try {
        await dh.sync();
      } finally {
        await dh.close();
      }
      return key;
    },
    async get(key, opts) {
      try {
        return opts?.shared ? await readShared(pathOf(key)) : await readFile(pathOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new BlobNotFoundError(`blob ${key} not found`);
        }
        throw err;
      }
    },
    async stream(key) {
      // Opened before it is returned, so that an absent blob is an error here and not in the reader.
      const fh = await open(pathOf(key), 'r').catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'ENOENT' ? new BlobNotFoundError(`blob ${key} not found`) : err;
      });
      return fh.createReadStream(); // closes the file when it ends or is destroyed
    },
    has: (key) => exists(pathOf(key)),
    list: () => listFiles(root),
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}

/** Walks the two levels of shard directories; temporary files of puts in flight are skipped. */
async function* listFiles(root: string): AsyncIterable<BlobEntry> {
  for (const first of await shardNames(root)) {
    for (const second of await shardNames(join(root, first))) {
      const dir = join(root, first, second);
      for await (const entry of await opendir(dir)) {
        if (!entry.isFile() || !/^[0-9a-f]{64}$/.test(entry.name)) {
          continue;
        }
        const info = await stat(join(dir, entry.name)).catch(() => undefined);
        if (info) {
          yield { key: entry.name, size: info.size, writtenAt: info.mtime };
        }
      }
    }
  }
}

async function shardNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of await opendir(dir)) {
      if (entry.isDirectory() && /^[0-9a-f]{2}$/.test(entry.name)) {
        names.push(entry.name);
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw err;
    }
  }
  return names;
}

/** The whole file in a SharedArrayBuffer, read in place. */
async function readShared(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const bytes = Buffer.from(new SharedArrayBuffer(size));
    for (let at = 0; at < size; ) {
      const { bytesRead } = await fh.read(bytes, at, size - at, at);
      if (bytesRead === 0) {
        throw new Error(`blob ${path}: ended after ${at} of ${size} bytes`);
      }
      at += bytesRead;
    }
    return bytes;
  } finally {
    await fh.close();
  }
}

async function exists(path: string) {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
