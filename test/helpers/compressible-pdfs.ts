// PDFs whose streams compress extremely well, built in code: the honest ones (scans of blank pages,
// flat-colour images, repetitive content streams) that a ratio limit refused, and bombs through
// the filters a ratio never looked at (LZW, RunLength, Flate inside Flate).
import { deflateSync } from 'node:zlib';
import { classicPdf, zlibBomb } from './hostile-pdfs.js';

/** A stream object's text: its dictionary entries, then the data. */
export function streamObject(dict: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]);
}

/**
 * A 300-dpi grayscale scan of an A4 page (2480 × 3508, 8.7 MB) that is white but for `inkRows`
 * rows of varied grey (lines of text, roughly): with none it compresses about 1,000 times.
 */
export function scanImage(inkRows = 0): { width: number; height: number; data: Buffer } {
  const width = 2480;
  const height = 3508;
  const pixels = Buffer.alloc(width * height, 0xff);
  let s = 12345;
  for (let r = 0; r < inkRows; r++) {
    const row = 200 + ((r * 7) % (height - 400));
    for (let x = 0; x < width; x++) {
      s = (s * 1103515245 + 12345) >>> 0;
      pixels[row * width + x] = s >>> 24;
    }
  }
  return { width, height, data: deflateSync(pixels, { level: 9 }) };
}

/** Pages of A4, each drawing a full-page Flate image (the same compressed bytes, one object per page). */
export function imagePagesPdf(pages: number, image: { width: number; height: number; data: Buffer; colorSpace?: string }): Buffer {
  const objects: (string | Buffer)[] = ['<< /Type /Catalog /Pages 2 0 R >>', ''];
  const kids: string[] = [];
  const draw = Buffer.from('q 595.28 0 0 841.89 0 0 cm /Im0 Do Q\n');
  for (let p = 0; p < pages; p++) {
    const pageNum = objects.length + 1;
    kids.push(`${pageNum} 0 R`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] /Resources << /XObject << /Im0 ${pageNum + 2} 0 R >> >> /Contents ${pageNum + 1} 0 R >>`,
      streamObject('', draw),
      streamObject(
        `/Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /ColorSpace /${image.colorSpace ?? 'DeviceGray'} /BitsPerComponent 8 /Filter /FlateDecode`,
        image.data,
      ),
    );
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} >>`;
  return classicPdf(objects);
}

/** One page of a flat colour: a 3000 × 3000 RGB image of one colour (27 MB inflated, about 26 KB packed). */
export function flatColourPdf(): Buffer {
  const side = 3000;
  const rgb = Buffer.alloc(side * side * 3);
  for (let i = 0; i < rgb.length; i += 3) {
    rgb[i] = 0x1f;
    rgb[i + 1] = 0x6f;
    rgb[i + 2] = 0xb4;
  }
  return imagePagesPdf(1, { width: side, height: side, data: deflateSync(rgb, { level: 9 }), colorSpace: 'DeviceRGB' });
}

/** One page whose content stream is 8 MB of the same hatching drawn again and again (Flate, about 600 times). */
export function repetitiveContentPdf(): Buffer {
  const unit = Buffer.from('0.9 g 10 10 m 585 830 l S\n');
  const content = Buffer.alloc(8 * 1024 * 1024);
  for (let at = 0; at < content.length; at += unit.length) {
    unit.copy(content, at);
  }
  return classicPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] /Contents 4 0 R >>',
    streamObject('/Filter /FlateDecode', deflateSync(content, { level: 9 })),
  ]);
}

/** Writes LZW codes (§7.4.4, EarlyChange 1) with the code width the decoder expects at each point. */
class LzwWriter {
  private bits: number[] = [];
  private width = 9;
  private next = 258;
  private hasPrev = false;

  code(c: number): void {
    for (let i = this.width - 1; i >= 0; i--) {
      this.bits.push((c >> i) & 1);
    }
    if (c === 256) {
      this.width = 9;
      this.next = 258;
      this.hasPrev = false;
      return;
    }
    if (this.hasPrev && this.next < 4096) {
      this.next++;
      this.width = this.next >= 2048 ? 12 : this.next >= 1024 ? 11 : this.next >= 512 ? 10 : 9;
    }
    this.hasPrev = true;
  }

  bytes(): Buffer {
    const out = Buffer.alloc(Math.ceil(this.bits.length / 8));
    this.bits.forEach((b, i) => {
      out[i >> 3] |= b << (7 - (i & 7));
    });
    return out;
  }
}

/** LZW-encodes `data` (a plain greedy encoder), ended by EOD. */
export function lzwEncode(data: Buffer): Buffer {
  const w = new LzwWriter();
  let table = new Map<string, number>();
  const reset = () => {
    table = new Map();
    for (let i = 0; i < 256; i++) {
      table.set(String.fromCharCode(i), i);
    }
  };
  reset();
  w.code(256);
  let cur = '';
  for (const byte of data) {
    const ch = String.fromCharCode(byte);
    if (table.has(cur + ch)) {
      cur += ch;
      continue;
    }
    w.code(table.get(cur)!);
    if (table.size + 2 < 4096) {
      table.set(cur + ch, table.size + 2);
    }
    cur = ch;
  }
  if (cur) {
    w.code(table.get(cur)!);
  }
  w.code(257);
  return w.bytes();
}

/**
 * `prefix` as literal codes, then a clear and a run of spaces: codes 258..4095 each one byte longer
 * than the last, then `fullCodes` times the longest (3,839 bytes from 12 bits): about 2,500 times.
 */
export function lzwRun(prefix: Buffer, fullCodes: number): Buffer {
  const w = new LzwWriter();
  w.code(256);
  for (const byte of prefix) {
    w.code(byte);
  }
  w.code(256);
  w.code(0x20);
  for (let c = 258; c < 4096; c++) {
    w.code(c);
  }
  for (let i = 0; i < fullCodes; i++) {
    w.code(4095);
  }
  w.code(257);
  return w.bytes();
}

/** RunLength data (§7.4.5): `prefix` as literal runs, then `repeats` runs of 128 spaces (64 times). */
export function runLengthRun(prefix: Buffer, repeats: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < prefix.length; i += 128) {
    const chunk = prefix.subarray(i, i + 128);
    parts.push(Buffer.from([chunk.length - 1]), chunk);
  }
  const run = Buffer.from([129, 0x20]);
  parts.push(Buffer.concat(Array.from({ length: repeats }, () => run)), Buffer.from([128]));
  return Buffer.concat(parts);
}

/** Flate inside Flate: the inner stream inflates to `prefix` then `tailMiB` MiB of spaces, the outer to the inner. */
export function nestedFlateBomb(prefix: Buffer, tailMiB: number): Buffer {
  return deflateSync(zlibBomb(prefix, tailMiB), { level: 9 });
}
