import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkFlateStreams, InflateLimitError } from '../../src/pdf/flate-budget.js';
import { compressedPdf, onePagePdf, zlibBomb } from '../helpers/hostile-pdfs.js';
import { inflateSync } from 'node:zlib';

const limits = { maxTotalBytes: 64 * 1024 * 1024, maxRatio: 200 };

describe('checkFlateStreams', () => {
  it('counts what the streams of a sound file inflate to', async () => {
    const r = await checkFlateStreams(compressedPdf(), limits);
    expect(r.streams).toBe(2);
    expect(r.inflatedBytes).toBeGreaterThan(50);
    expect((await checkFlateStreams(onePagePdf(), limits)).streams).toBe(0);
  });

  it('builds bombs that really inflate to what they claim', () => {
    const prefix = Buffer.from('1 0 ');
    expect(inflateSync(zlibBomb(prefix, 4)).length).toBe(prefix.length + 4 * 1024 * 1024);
  });

  it('refuses an object stream or a cross-reference stream that inflates to 1 GiB, stopping early', async () => {
    for (const bytes of [compressedPdf({ objStmTailMiB: 1024 }), compressedPdf({ xrefTailMiB: 1024 })]) {
      const t0 = Date.now();
      await expect(checkFlateStreams(bytes, limits)).rejects.toBeInstanceOf(InflateLimitError);
      expect(Date.now() - t0).toBeLessThan(2000);
    }
  });

  it('refuses past the total even when every ratio is modest', async () => {
    // Random-looking data barely compresses: 3 streams of 1 MiB each against a 2 MiB budget.
    const noise = Buffer.from(Array.from({ length: 1024 * 1024 }, (_, i) => (i * 2654435761) >>> 24));
    const stream = (data: Buffer) =>
      Buffer.concat([Buffer.from('<< /Filter /FlateDecode >>\nstream\n'), deflateSync(data), Buffer.from('\nendstream\n')]);
    const file = Buffer.concat([Buffer.from('%PDF-1.7\n'), stream(noise), stream(noise), stream(noise)]);
    await expect(checkFlateStreams(file, { maxTotalBytes: 2 * 1024 * 1024, maxRatio: 200 })).rejects.toThrow(/more than 2 MB/);
    expect((await checkFlateStreams(file, { maxTotalBytes: 4 * 1024 * 1024, maxRatio: 200 })).inflatedBytes).toBe(3 * 1024 * 1024);
  });
});
