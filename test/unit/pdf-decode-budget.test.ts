// The decompression budget: what the PDF library decodes is charged as it is produced, through
// every expanding filter, and a task stops at the budget; what it never decodes costs nothing.
import { deflateSync, inflateSync } from 'node:zlib';
import { PDF, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream } from '@libpdf/core';
import { describe, expect, it } from 'vitest';
import { DecodeLimitError, decodedLength, flateLength, lzwLength, runLengthLength, withDecodeBudget } from '../../src/pdf/decode-budget.js';
import { imagePagesPdf, lzwEncode, lzwRun, nestedFlateBomb, runLengthRun, scanImage } from '../helpers/compressible-pdfs.js';
import { compressedPdf, objStmPdf, zlibBomb } from '../helpers/hostile-pdfs.js';

const MiB = 1024 * 1024;

/** What the library itself decodes from `data` through `filter` (no budget active). */
function libraryDecode(filter: string, data: Buffer, params?: PdfDict): Uint8Array {
  return PdfStream.fromDict({ Filter: PdfName.of(filter), ...(params ? { DecodeParms: params } : {}) }, data).getDecodedData();
}

/** Loads the file and reads its pages and every object, as the jail's tasks do. */
async function loadAndRead(bytes: Uint8Array): Promise<number> {
  const pdf = await PDF.load(bytes, { lenient: false });
  return pdf.getPages().length;
}

describe('counting decoders before they run', () => {
  it('counts exactly what the library produces from LZW and RunLength data', () => {
    const text = Buffer.from('BT /F1 12 Tf 72 712 Td (A contract, a contract, a contract of sale) Tj ET\n'.repeat(200));
    for (const data of [lzwEncode(text), lzwRun(Buffer.from('1 0 2 34\n'), 40)]) {
      const decoded = libraryDecode('LZWDecode', data);
      expect(lzwLength(data, 1, Number.MAX_SAFE_INTEGER)).toBe(decoded.length);
    }
    expect(Buffer.from(libraryDecode('LZWDecode', lzwEncode(text))).equals(text)).toBe(true);
    const rl = runLengthRun(text, 50);
    expect(runLengthLength(rl, Number.MAX_SAFE_INTEGER)).toBe(libraryDecode('RunLengthDecode', rl).length);
    expect(libraryDecode('RunLengthDecode', rl).length).toBe(text.length + 50 * 128);
  });

  it('counts what Flate inflates to, a stream cut short included, keeping none of it', () => {
    const text = Buffer.from('0 0 m 595 842 l S\n'.repeat(5000));
    const z = deflateSync(text);
    expect(flateLength(z, Number.MAX_SAFE_INTEGER)).toBe(libraryDecode('FlateDecode', z).length);
    const cut = z.subarray(0, z.length - 20);
    // Cut short, the library keeps at most its last 64 KB window; the count, all that came out: never less.
    expect(flateLength(cut, Number.MAX_SAFE_INTEGER)).toBeGreaterThanOrEqual(libraryDecode('FlateDecode', cut).length);
    expect(flateLength(cut, Number.MAX_SAFE_INTEGER)).toBeGreaterThan(text.length - 64 * 1024);
    // 1 GiB counted against a 4 MiB limit: it stops just past the limit.
    expect(flateLength(zlibBomb(Buffer.from('x'), 1024), 4 * MiB)).toBeLessThanOrEqual(4 * MiB + 64 * 1024);
  });

  it('stops counting once past the limit, and bounds CCITT fax by its row width', () => {
    expect(lzwLength(lzwRun(Buffer.alloc(0), 1_000_000), 1, 10 * MiB)).toBeLessThan(10 * MiB + 4096);
    expect(runLengthLength(runLengthRun(Buffer.alloc(0), 1_000_000), MiB)).toBeLessThanOrEqual(MiB + 128);
    const wide = PdfDict.of({ Columns: PdfNumber.of(1_000_000), K: PdfNumber.of(-1) });
    // 8,000 rows at most (one bit each) of 125,000 bytes, and the two rows the decoder holds.
    expect(decodedLength('CCITTFaxDecode', Buffer.alloc(1000), wide, 0)).toBe(8000 * 125_000 + 2 * 1_000_000);
  });
});

describe('withDecodeBudget', () => {
  it('reads a sound compressed file well within a small budget', async () => {
    expect(await withDecodeBudget(MiB, () => loadAndRead(compressedPdf()))).toBe(1);
  });

  it('refuses object streams and cross-reference streams that inflate to 1 GiB, stopping at the budget', async () => {
    for (const bytes of [compressedPdf({ objStmTailMiB: 1024 }), compressedPdf({ xrefTailMiB: 1024 })]) {
      await expect(withDecodeBudget(256 * MiB, () => loadAndRead(bytes))).rejects.toBeInstanceOf(DecodeLimitError);
    }
  });

  it('refuses a Flate bomb inside a Flate stream, though its outer layer inflates to about 1 MB', async () => {
    const bytes = objStmPdf('[/FlateDecode /FlateDecode]', (d) => nestedFlateBomb(d, 1024));
    // The outer layer alone is small: a budget on what the file's Flate streams inflate to saw only that.
    expect(inflateSync(Buffer.from(bytes.subarray(bytes.indexOf('stream\n') + 7))).length).toBeLessThan(2 * MiB);
    await expect(withDecodeBudget(256 * MiB, () => loadAndRead(bytes))).rejects.toThrow(DecodeLimitError);
    // The same structure with a sound inner stream reads.
    const sound = objStmPdf('[/FlateDecode /FlateDecode]', (d) => deflateSync(deflateSync(d)));
    expect(await withDecodeBudget(MiB, () => loadAndRead(sound))).toBe(1);
  });

  it('refuses LZW and RunLength object streams that expand past the budget, before decoding them', async () => {
    // ~280,000 codes of the longest string: about 1 GiB from 420 KB.
    const lzw = objStmPdf('/LZWDecode', (d) => lzwRun(d, 280_000));
    await expect(withDecodeBudget(256 * MiB, () => loadAndRead(lzw))).rejects.toBeInstanceOf(DecodeLimitError);
    const rl = objStmPdf('/RunLengthDecode', (d) => runLengthRun(d, 256 * 1024));
    await expect(withDecodeBudget(16 * MiB, () => loadAndRead(rl))).rejects.toBeInstanceOf(DecodeLimitError);
    // LZW after another filter is counted on that filter's output.
    const chained = objStmPdf('[/FlateDecode /LZWDecode]', (d) => deflateSync(lzwRun(d, 280_000)));
    await expect(withDecodeBudget(256 * MiB, () => loadAndRead(chained))).rejects.toBeInstanceOf(DecodeLimitError);
    // Sound ones read, and decode to the objects.
    for (const [filter, encode] of [
      ['/LZWDecode', lzwEncode],
      ['/RunLengthDecode', (d: Buffer) => runLengthRun(d, 0)],
      ['[/FlateDecode /LZWDecode]', (d: Buffer) => deflateSync(lzwEncode(d))],
    ] as const) {
      expect(await withDecodeBudget(MiB, () => loadAndRead(objStmPdf(filter, encode)))).toBe(1);
    }
  });

  it('charges a blank scan only when it is decoded, and then by its size, not its ratio', async () => {
    const scan = scanImage();
    expect(scan.data.length).toBeLessThan(16 * 1024); // 8.7 MB packed about 1,000 times
    const bytes = imagePagesPdf(1, scan);
    const decodeImage = async () => {
      const pdf = await PDF.load(bytes, { lenient: false });
      const image = pdf.getObject(PdfRef.of(5)) as PdfStream; // the page's image (objects: catalog, pages, page, content, image)
      return image.getDecodedData().length;
    };
    expect(await withDecodeBudget(MiB, () => loadAndRead(bytes))).toBe(1);
    expect(await withDecodeBudget(16 * MiB, decodeImage)).toBe(2480 * 3508);
    await expect(withDecodeBudget(4 * MiB, decodeImage)).rejects.toBeInstanceOf(DecodeLimitError);
  });

  it('leaves decoding unmetered outside a task', () => {
    const big = zlibBomb(Buffer.from('x'), 8);
    expect(libraryDecode('FlateDecode', big).length).toBe(8 * MiB + 1);
  });
});
