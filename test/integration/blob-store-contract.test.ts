// The blob store's contract, one test body run against each backend: the data directory and an
// S3 bucket on a real S3-compatible server on loopback (test/helpers/s3-server.ts). Both must
// store by SHA-256, return the same bytes (in shared memory on request), stream them, list them
// with the time they were last written (a second put of the same bytes refreshing it), and delete.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openBlobStore, type OpenedBlobStore } from '../../src/store/blob-store.js';
import { BlobNotFoundError, type BlobEntry, type BlobStore } from '../../src/store/blobs.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';

interface Backend {
  name: string;
  blobs: BlobStore;
  /** Sets a stored blob's last-written time, as if it had been written then. */
  age(key: string, at: Date): Promise<void>;
}

let dataDir: string;
let s3: TestS3Server;
const opened: OpenedBlobStore[] = [];
const backends: Record<'fs' | 's3', Backend> = {} as Record<'fs' | 's3', Backend>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sello-blob-contract-'));
  s3 = await startS3Server();
  // Through the configuration, as the service opens them; 5 MB parts (the least S3 allows).
  const fs = await openBlobStore(loadConfig({ SELLO_DATA_DIR: dataDir }));
  const bucket = await openBlobStore(loadConfig({ SELLO_DATA_DIR: dataDir, ...s3.env, SELLO_S3_PART_MB: '5', SELLO_S3_PREFIX: 'blobs/' }));
  opened.push(fs, bucket);
  backends.fs = {
    name: 'filesystem',
    blobs: fs.blobs,
    age: (key, at) => utimes(join(dataDir, 'blobs', key.slice(0, 2), key.slice(2, 4), key), at, at),
  };
  backends.s3 = { name: 'S3', blobs: bucket.blobs, age: (key, at) => utimes(s3.objectFile(`blobs/${key}`), at, at) };
});
afterAll(async () => {
  for (const o of opened) {
    o.close();
  }
  await s3?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function listed(blobs: BlobStore): Promise<Map<string, BlobEntry>> {
  const out = new Map<string, BlobEntry>();
  for await (const e of blobs.list()) {
    out.set(e.key, e);
  }
  return out;
}

async function streamed(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of stream) {
    parts.push(p as Buffer);
  }
  return Buffer.concat(parts);
}

describe.each(['fs', 's3'] as const)('the blob store contract: %s', (which) => {
  const b = () => backends[which];

  it('stores under the SHA-256 and returns the same bytes, plain, shared and streamed', async () => {
    const { blobs } = b();
    const bytes = Buffer.from(`%PDF-1.7 ${which} contract ${randomBytes(8).toString('hex')}`);
    const key = await blobs.put(bytes);
    expect(key).toBe(sha256(bytes));
    expect(await blobs.has(key)).toBe(true);
    const plain = await blobs.get(key);
    expect(plain.equals(bytes)).toBe(true);
    expect(plain.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    const shared = await blobs.get(key, { shared: true });
    expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(shared.equals(bytes)).toBe(true);
    expect((await streamed(await blobs.stream(key))).equals(bytes)).toBe(true);
    // A Uint8Array that is not a Buffer, and no bytes at all, are blobs too.
    const view = new Uint8Array([1, 2, 3]);
    expect(await blobs.put(view)).toBe(sha256(view));
    const empty = await blobs.put(new Uint8Array(0));
    expect((await blobs.get(empty)).length).toBe(0);
    expect((await blobs.get(empty, { shared: true })).length).toBe(0);
  });

  it('says an absent blob is absent', async () => {
    const { blobs } = b();
    const absent = sha256(Buffer.from(`never stored ${which}`));
    expect(await blobs.has(absent)).toBe(false);
    await expect(blobs.get(absent)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(blobs.get(absent, { shared: true })).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(blobs.stream(absent)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(blobs.get('not-a-key')).rejects.toThrow(/invalid blob key/);
  });

  it('lists blobs with size and time, a second put refreshes the time, and a delete removes one', async () => {
    const { blobs, age } = b();
    const first = await blobs.put(Buffer.from(`first ${which}`));
    const second = await blobs.put(Buffer.from(`second blob ${which}`));
    await age(first, new Date(0));
    let all = await listed(blobs);
    expect(all.get(first)).toMatchObject({ size: `first ${which}`.length });
    expect(all.get(first)?.writtenAt.getTime()).toBe(0);
    expect(all.get(second)?.size).toBe(`second blob ${which}`.length);
    expect(all.get(second)?.writtenAt.getTime()).toBeGreaterThan(0);

    expect(await blobs.put(Buffer.from(`first ${which}`))).toBe(first);
    all = await listed(blobs);
    expect(all.get(first)?.writtenAt.getTime()).toBeGreaterThan(0);

    await blobs.delete(first);
    await blobs.delete(first);
    expect(await blobs.has(first)).toBe(false);
    expect(await blobs.has(second)).toBe(true);
    all = await listed(blobs);
    expect(all.has(first)).toBe(false);
    expect(all.has(second)).toBe(true);
  });

  it('stores and returns a 12 MB blob intact', async () => {
    const { blobs } = b();
    const big = randomBytes(12 * 1024 * 1024);
    const key = await blobs.put(big);
    expect(key).toBe(sha256(big));
    expect(sha256(await blobs.get(key))).toBe(key);
    expect(sha256(await blobs.get(key, { shared: true }))).toBe(key);
    expect(sha256(await streamed(await blobs.stream(key)))).toBe(key);
    expect((await listed(blobs)).get(key)?.size).toBe(big.length);
  });
});

describe('the S3 store', () => {
  it('uploads a 12 MB blob in three parts of 5 MB and keeps it under the prefix', async () => {
    const big = randomBytes(12 * 1024 * 1024);
    const from = s3.requests.length;
    const key = await backends.s3.blobs.put(big);
    const path = `/${s3.bucket}/blobs/${key}`;
    const seen = s3.requests.slice(from).filter((r) => r.includes(path));
    expect(seen[0]).toMatch(new RegExp(`^POST ${path}\\?uploads=?$`));
    expect(
      seen
        .filter((r) => r.startsWith('PUT '))
        .map((r) => new URL(r.slice(4), 'http://x').searchParams.get('partNumber'))
        .sort(),
    ).toEqual(['1', '2', '3']);
    expect(seen[seen.length - 1]).toMatch(new RegExp(`^POST ${path}\\?uploadId=`));
    expect((await stat(s3.objectFile(`blobs/${key}`))).size).toBe(big.length);
    // No checksum headers nor aws-chunked bodies (blobs-s3.ts says why): servers that predate them
    // refuse them, or store the encoding's framing as the blob.
    const headers = s3.requestHeaders.slice(from).filter((_, i) => s3.requests[from + i].includes(path));
    expect(headers.length).toBe(seen.length);
    for (const h of headers) {
      expect(Object.keys(h).filter((n) => n.startsWith('x-amz-checksum') || n === 'x-amz-sdk-checksum-algorithm')).toEqual([]);
      expect(h['content-encoding'] ?? '').not.toMatch(/aws-chunked/);
    }
    expect(sha256(await backends.s3.blobs.get(key))).toBe(sha256(big));
  });
});
