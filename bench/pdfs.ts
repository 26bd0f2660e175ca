// The PDFs the benchmark uploads. The blob store is content-addressed: uploading the same bytes
// twice skips the write and its fsyncs, which would flatter the figures. So each request gets a
// unique document: a template carries a fixed-length placeholder in its /Title (an uncompressed
// Info string), and every request overwrites it with fresh hex of the same length. The PDF stays
// valid (same byte offsets, same cross-reference table).
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { PDF } from '@libpdf/core';

export const A4 = { width: 595.28, height: 841.89 };
const PLACEHOLDER = 'X'.repeat(32);

export interface PdfTemplate {
  bytes: Buffer;
  /** Offset of the 32-byte placeholder inside bytes. */
  offset: number;
}

/** A one-page A4 document with a line of text, like a typical contract page. */
export async function onePagePdf(): Promise<PdfTemplate> {
  const pdf = PDF.create();
  const page = pdf.addPage(A4);
  page.drawText('Sello benchmark: one-page document', { x: 50, y: A4.height - 80, size: 18 });
  return template(pdf);
}

/**
 * A one-page document of about `bytes` bytes: an A4 page covered by an image of random pixels (a
 * "scan"). Random pixels do not compress, so the file really is that large on the wire and on disk.
 */
export async function largePdf(bytes: number): Promise<PdfTemplate> {
  const side = Math.ceil(Math.sqrt(bytes / 3));
  const pdf = PDF.create();
  const page = pdf.addPage(A4);
  page.drawImage(pdf.embedPng(randomPng(side, side)), { x: 0, y: 0, width: A4.width, height: A4.height });
  return template(pdf);
}

/**
 * A contract of `pages` A4 pages and about `bytes` bytes in all, its size made of real page
 * content: every page has its own paragraphs of text (a content stream) and its own embedded image
 * (a scanned annex, random pixels so that it does not compress). A parser has to walk the whole
 * page tree and cross-reference table, as with a real long document, not skip one big stream.
 */
export async function manyPagesPdf(pages: number, bytes: number): Promise<Buffer> {
  const side = Math.max(8, Math.round(Math.sqrt(bytes / pages / 3)));
  const pdf = PDF.create();
  const line = 'The parties agree to the terms set out in this clause and in the annexes that follow it.';
  for (let p = 0; p < pages; p++) {
    const page = pdf.addPage(A4);
    // One drawText per block: the library writes a content stream per call, and a word processor
    // writes one or two per page, not one per line.
    page.drawText(`Clause ${p + 1}`, { x: 50, y: A4.height - 60, size: 14 });
    const text = Array.from({ length: 30 }, (_, l) => `${p + 1}.${l + 1} ${line}`).join('\n');
    page.drawText(text, { x: 50, y: A4.height - 90, size: 9, lineHeight: 14, maxWidth: A4.width - 100 });
    page.drawImage(pdf.embedPng(randomPng(side, side)), { x: 50, y: 60, width: 300, height: 300 });
  }
  return Buffer.from(await pdf.save());
}

/**
 * A drawn signature as the signer page sends it (DrawPad.tsx: the strokes at twice their size,
 * cropped to the ink): an RGBA PNG, transparent but for a stroke of ink.
 */
export function drawnSignaturePng(width = 800, height = 280): Buffer {
  const row = width * 4 + 1;
  const raw = Buffer.alloc(row * height); // filter bytes 0, every pixel transparent
  for (let x = 0; x < width; x++) {
    const curve = height / 2 + (height / 3) * Math.sin((x / width) * 3 * Math.PI) * Math.cos((x / width) * 5);
    for (let y = Math.max(0, Math.round(curve) - 3); y <= Math.min(height - 1, Math.round(curve) + 3); y++) {
      raw.set([20, 30, 120, 255], y * row + 1 + x * 4);
    }
  }
  return png(width, height, 6, raw);
}

/** A copy of the template with a fresh random placeholder: a distinct, valid PDF. */
export function uniqueCopy(t: PdfTemplate): Buffer {
  const copy = Buffer.from(t.bytes);
  copy.write(randomBytes(16).toString('hex'), t.offset, 'latin1');
  return copy;
}

async function template(pdf: PDF): Promise<PdfTemplate> {
  pdf.setTitle(`bench-${PLACEHOLDER}`);
  const bytes = Buffer.from(await pdf.save());
  const offset = bytes.indexOf(`(bench-${PLACEHOLDER})`, 0, 'latin1');
  if (offset < 0) {
    throw new Error('placeholder not found in the saved PDF (is /Title still an uncompressed string?)');
  }
  return { bytes, offset: offset + '(bench-'.length };
}

/** An RGB PNG of random pixels, encoded by hand (the PDF library embeds PNG, not raw pixels). */
function randomPng(width: number, height: number): Buffer {
  const row = width * 3 + 1; // filter byte 0 + pixels
  const raw = randomBytes(row * height);
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0;
  }
  return png(width, height, 2, raw);
}

/** A PNG of 8-bit samples: colour type 2 (RGB) or 6 (RGBA), `raw` the filtered scanlines. */
function png(width: number, height: number, colourType: 2 | 6, raw: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = colourType;
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0);
  return Buffer.concat([head, data, crc]);
}
