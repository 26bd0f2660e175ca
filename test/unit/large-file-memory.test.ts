// The ways a large file is kept from being copied: read or decoded into shared memory for the PDF
// jail, handed to the jail without a copy, and a download written as a stream of Base64 slices.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { base64JsonStream } from '../../src/http/base64-json-stream.js';
import { PdfJail } from '../../src/jail/pdf-jail.js';
import { sharedBytes } from '../../src/jail/shared-bytes.js';
import { createFsBlobStore } from '../../src/store/blobs.js';
import { imagePagesPdf } from '../helpers/compressible-pdfs.js';
import { makePdf } from '../helpers/pdfs.js';

const dir = mkdtempSync(join(tmpdir(), 'sello-large-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function text(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) {
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts);
}

describe('sharedBytes', () => {
  it('hands over shared memory as it is and copies anything else into shared memory once', () => {
    const plain = Buffer.from('%PDF-1.7 plain');
    const copy = sharedBytes(plain);
    expect(copy.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(copy).equals(plain)).toBe(true);
    plain[0] = 0;
    expect(copy[0]).toBe(0x25); // a copy: the caller's later writes do not reach it
    expect(sharedBytes(copy)).toBe(copy);
  });
});

describe('the blob store', () => {
  it('reads a blob into shared memory on request, the same bytes as a plain read', async () => {
    const blobs = createFsBlobStore(dir);
    const bytes = Buffer.alloc(300_000 + 7, 1);
    bytes.write('%PDF-1.7', 0, 'latin1');
    const key = await blobs.put(bytes);
    const shared = await blobs.get(key, { shared: true });
    expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(shared.equals(bytes)).toBe(true);
    expect((await blobs.get(key)).buffer).not.toBeInstanceOf(SharedArrayBuffer);
  });
});

describe('the PDF jail', () => {
  it('reads a file in shared memory as it reads a plain one, and leaves the caller its bytes', async () => {
    const jail = new PdfJail({ workers: 1, queue: 4, timeoutMs: 60_000, memoryMb: 256, inflate: { maxTotalBytes: 64 * 1024 * 1024 } });
    try {
      const pdf = await makePdf([
        { width: 595.28, height: 841.89 },
        { width: 612, height: 792 },
      ]);
      const shared = sharedBytes(pdf);
      const [a, b] = [await jail.inspect(pdf, 10), await jail.inspect(shared, 10)];
      expect(b).toEqual(a);
      expect(a.pageCount).toBe(2);
      expect(Buffer.from(shared).equals(pdf)).toBe(true);
      expect(pdf.byteLength).toBeGreaterThan(0); // not transferred away
    } finally {
      await jail.close();
    }
  });

  it('ends the worker that read a file over 8 MiB, and keeps the one that read a small file', async () => {
    const jail = new PdfJail({ workers: 1, queue: 4, timeoutMs: 60_000, memoryMb: 256, inflate: { maxTotalBytes: 64 * 1024 * 1024 } });
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    try {
      const small = await makePdf();
      // A page with a 9 MiB image the reader never inflates: a large file, cheap to read.
      const large = imagePagesPdf(1, { width: 3000, height: 3000, data: randomBytes(9 * 1024 * 1024) });
      expect(large.length).toBeGreaterThan(8 * 1024 * 1024);
      await jail.inspect(small, 10);
      expect(terminate).not.toHaveBeenCalled();
      expect((await jail.inspect(large, 10)).pageCount).toBe(1);
      expect(terminate).toHaveBeenCalledTimes(1);
      expect((await jail.inspect(small, 10)).pageCount).toBe(1); // on a fresh worker
      expect(terminate).toHaveBeenCalledTimes(1);
    } finally {
      terminate.mockRestore();
      await jail.close();
    }
  });
});

describe('base64JsonStream', () => {
  it('writes what JSON.stringify writes, fields first, for files of every length around a slice, with its exact length', async () => {
    const slice = 3 * 64 * 1024;
    for (const n of [0, 1, 2, 3, 4, slice - 1, slice, slice + 1, 2 * slice + 2]) {
      const file = Buffer.alloc(n);
      for (let i = 0; i < n; i++) {
        file[i] = (i * 7919) % 256;
      }
      const fields = { hash: 'ab12', name: 'Contrato "final" ñ \u2028.pdf' };
      const { stream, length } = base64JsonStream(fields, 'original', file);
      const out = await text(stream);
      expect(out.toString('utf8'), `n=${n}`).toBe(JSON.stringify({ ...fields, original: file.toString('base64') }));
      expect(out.length, `n=${n}`).toBe(length);
    }
  });
  it('reads a file given as a view into a larger buffer from its own offset', async () => {
    const whole = Buffer.from('xxxhelloyyy');
    const { stream } = base64JsonStream({}, 'source', whole.subarray(3, 8));
    expect(JSON.parse((await text(stream)).toString('utf8'))).toEqual({ source: Buffer.from('hello').toString('base64') });
  });
});
