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
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
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
