// The SHA-256 of a stored blob, read as a stream: a 50 MB PDF is hashed a chunk at a time, never
// held whole, so checking a store of thousands of blobs costs disk or network, not memory.
import { createHash } from 'node:crypto';
import type { BlobStore } from '../../store/blobs.js';

/** The hex SHA-256 of the bytes under a key; throws BlobNotFoundError when there are none. */
export async function blobDigest(blobs: Pick<BlobStore, 'stream'>, key: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of await blobs.stream(key)) {
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

/** Runs `work` on each item with at most `parallel` at once; resolves when all are done. */
export async function eachWithin<T>(
  items: AsyncIterable<T> | Iterable<T>,
  parallel: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const running = new Set<Promise<void>>();
  for await (const item of items) {
    const p: Promise<void> = work(item).finally(() => running.delete(p));
    running.add(p);
    if (running.size >= parallel) {
      await Promise.race(running);
    }
  }
  await Promise.all(running);
}
