// The filesystem blob store: content-addressed, and a directory removed behind its back (the store
// remembers the directories it made, to spare a call per write) is made again.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsBlobStore, sha256Hex } from '../../src/store/blobs.js';

let root: string | undefined;
afterEach(async () => {
  if (root) {
    await rm(root, { recursive: true, force: true });
  }
});

describe('the filesystem blob store', () => {
  it('stores under the SHA-256, once, and again after its directory was removed', async () => {
    root = await mkdtemp(join(tmpdir(), 'sello-blobs-'));
    const blobs = createFsBlobStore(join(root, 'blobs'));
    const bytes = Buffer.from('%PDF-1.7 a document');
    const key = await blobs.put(bytes);
    expect(key).toBe(sha256Hex(bytes));
    expect(await blobs.put(bytes)).toBe(key);
    await rm(join(root, 'blobs'), { recursive: true });
    expect(await blobs.has(key)).toBe(false);
    expect(await blobs.put(bytes)).toBe(key);
    expect(await readFile(join(root, 'blobs', key.slice(0, 2), key.slice(2, 4), key))).toEqual(bytes);
    expect((await blobs.get(key)).equals(bytes)).toBe(true);
  });
});
