// The filesystem blob store: content-addressed, and a directory removed behind its back (the store
// remembers the directories it made, to spare a call per write) is made again.
import { mkdtemp, readFile, rm, utimes } from 'node:fs/promises';
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

describe('listing and removing blobs', () => {
  it('lists each stored blob with its size and refreshes its time when the same bytes are stored again', async () => {
    root = await mkdtemp(join(tmpdir(), 'sello-blobs-'));
    const blobs = createFsBlobStore(join(root, 'blobs'));
    const a = await blobs.put(Buffer.from('first'));
    const b = await blobs.put(Buffer.from('second blob'));
    const old = new Date(0);
    await utimes(join(root, 'blobs', a.slice(0, 2), a.slice(2, 4), a), old, old);
    const listed = new Map<string, { size: number; writtenAt: Date }>();
    for await (const entry of blobs.list()) {
      listed.set(entry.key, entry);
    }
    expect([...listed.keys()].sort()).toEqual([a, b].sort());
    expect(listed.get(a)?.size).toBe(5);
    expect(listed.get(a)?.writtenAt.getTime()).toBe(0);
    expect(await blobs.put(Buffer.from('first'))).toBe(a);
    for await (const entry of blobs.list()) {
      if (entry.key === a) {
        expect(entry.writtenAt.getTime()).toBeGreaterThan(0);
      }
    }
    await blobs.delete(a);
    await blobs.delete(a);
    expect(await blobs.has(a)).toBe(false);
    expect(await blobs.has(b)).toBe(true);
  });

  it('lists nothing for a store never written to', async () => {
    root = await mkdtemp(join(tmpdir(), 'sello-blobs-'));
    const blobs = createFsBlobStore(join(root, 'never'));
    const keys: string[] = [];
    for await (const entry of blobs.list()) {
      keys.push(entry.key);
    }
    expect(keys).toEqual([]);
  });
});
