// The drawn signature (a PNG from the signer page's pad) as an image XObject (PDF 32000-1 §8.9.5).
//
// Why not @libpdf/core's embedPng: it inflates, unfilters and deflates again in pako, JavaScript
// zlib, which took 15–19 ms of a 60 ms signature for an 800×280 RGBA image from the pad; this
// takes about 3 ms (docs/performance.md, scenario F). Here the zlib work is node:zlib's (native):
// - 8-bit grey or RGB without transparency: the IDAT data is already a zlib stream of PNG-filtered
//   rows, which is what /FlateDecode with /DecodeParms /Predictor 15 describes (§7.4.4.4, Table 8),
//   so it goes into the PDF as it is, after one inflate to check that it is complete and sound;
// - 8-bit grey or RGB with an alpha channel (what the pad sends): inflate, undo the row filters
//   (PNG §9), split colour and alpha, deflate each; the alpha becomes the image's /SMask (§11.6.5.3).
// Anything else (palettes, 16-bit, fewer than 8 bits, interlacing, tRNS) is rare from a browser's
// canvas and still goes through embedPng.
//
// An image is refused if it is malformed, or when its pixels would need more than MAX_PIXELS:
// the PNG is at most 1 MiB, but zlib's ratio would let it claim gigabytes.
import { deflateSync, inflateSync } from 'node:zlib';
import { PdfDict, PdfName, PdfNumber, PdfStream, type PDF, type PdfRef } from '@libpdf/core';

/** What the appearance needs to draw the image. */
export interface EmbeddedImage {
  ref: PdfRef;
  width: number;
  height: number;
}

/**
 * 4096 × 4096 pixels: far above what the pad sends (the strokes at twice their on-screen size,
 * cropped to the ink, about a megapixel on a wide screen), and 64 MiB of RGBA at most.
 */
export const MAX_PIXELS = 4096 * 4096;

/**
 * zlib level 1: a signature image is mostly one colour and transparency, which level 1 already
 * packs to a few kilobytes, five times faster than the default level (0.6 against 3.4 ms here).
 */
const FAST = { level: 1 };

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

/** The chunks this needs, with lengths checked against the file (CRCs are not: zlib checks the data). */
function readChunks(png: Uint8Array): { header: PngHeader; idat: Buffer[]; other: Set<string> } {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(SIGNATURE)) {
    throw new Error('not a PNG');
  }
  let header: PngHeader | undefined;
  const idat: Buffer[] = [];
  const other = new Set<string>();
  let at = 8;
  for (;;) {
    if (at + 12 > bytes.length) {
      throw new Error('the file ends before IEND');
    }
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (length > bytes.length - at - 12) {
      throw new Error(`the ${type} chunk runs past the end of the file`);
    }
    const data = bytes.subarray(at + 8, at + 8 + length);
    at += 12 + length;
    if (type === 'IHDR') {
      if (length !== 13 || header) {
        throw new Error('bad IHDR');
      }
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bitDepth: data[8], colorType: data[9], interlace: data[12] };
      if (data[10] !== 0 || data[11] !== 0) {
        throw new Error('unknown compression or filter method');
      }
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    } else {
      other.add(type);
    }
  }
  if (!header || header.width === 0 || header.height === 0) {
    throw new Error('missing or empty IHDR');
  }
  if (idat.length === 0) {
    throw new Error('no image data');
  }
  return { header, idat, other };
}

/**
 * Undoes the row filters (PNG §9.2) of `height` rows of 1 + stride bytes: the pixel rows, without
 * filter bytes. The loops are split where "left" or "above" does not exist, rather than testing
 * for it at every byte: this runs over every byte of the image.
 */
function unfilter(raw: Uint8Array, height: number, stride: number, bpp: number): Uint8Array {
  const out = new Uint8Array(height * stride);
  const zero = new Uint8Array(stride); // the row "above" the first one
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const cur = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = out.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? out.subarray((y - 1) * stride, y * stride) : zero;
    switch (filter) {
      case 0:
        row.set(cur);
        break;
      case 1:
        row.set(cur.subarray(0, bpp));
        for (let i = bpp; i < stride; i++) {
          row[i] = (cur[i] + row[i - bpp]) & 0xff;
        }
        break;
      case 2:
        for (let i = 0; i < stride; i++) {
          row[i] = (cur[i] + prev[i]) & 0xff;
        }
        break;
      case 3:
        for (let i = 0; i < bpp; i++) {
          row[i] = (cur[i] + (prev[i] >> 1)) & 0xff;
        }
        for (let i = bpp; i < stride; i++) {
          row[i] = (cur[i] + ((row[i - bpp] + prev[i]) >> 1)) & 0xff;
        }
        break;
      case 4:
        // With no pixel to the left, Paeth(0, above, 0) is "above".
        for (let i = 0; i < bpp; i++) {
          row[i] = (cur[i] + prev[i]) & 0xff;
        }
        for (let i = bpp; i < stride; i++) {
          const a = row[i - bpp];
          const b = prev[i];
          const c = prev[i - bpp];
          const pa = Math.abs(b - c);
          const pb = Math.abs(a - c);
          const pc = Math.abs(a + b - 2 * c);
          row[i] = (cur[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
        }
        break;
      default:
        throw new Error(`unknown row filter ${filter}`);
    }
  }
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Grey+alpha or RGB+alpha pixels → the colour samples and the alpha samples, each packed. RGBA is
 * read a pixel (32 bits) at a time, and the fully transparent black pixels that make up most of a
 * drawn signature are skipped: both outputs start as zeros.
 */
function splitAlpha(pixels: Uint8Array, count: number, colors: number): { color: Buffer; alpha: Buffer } {
  const color = Buffer.alloc(count * colors);
  const alpha = Buffer.alloc(count);
  if (colors === 3 && LITTLE_ENDIAN && pixels.byteOffset % 4 === 0) {
    const words = new Uint32Array(pixels.buffer, pixels.byteOffset, count);
    for (let p = 0; p < count; p++) {
      const v = words[p]; // little-endian: R in the low byte, A in the high one
      if (v !== 0) {
        const c = p * 3;
        color[c] = v & 0xff;
        color[c + 1] = (v >>> 8) & 0xff;
        color[c + 2] = (v >>> 16) & 0xff;
        alpha[p] = v >>> 24;
      }
    }
  } else {
    for (let p = 0; p < count; p++) {
      for (let k = 0; k < colors; k++) {
        color[p * colors + k] = pixels[p * (colors + 1) + k];
      }
      alpha[p] = pixels[p * (colors + 1) + colors];
    }
  }
  return { color, alpha };
}

function imageStream(dict: Record<string, PdfName | PdfNumber | PdfDict | PdfRef>, data: Uint8Array): PdfStream {
  return PdfStream.fromDict({ Type: PdfName.of('XObject'), Subtype: PdfName.of('Image'), ...dict }, data);
}

/**
 * Embeds a PNG as an image XObject (with an /SMask when it has an alpha channel). Throws on a
 * malformed or oversized PNG; the caller turns that into a refusal of the signature.
 */
export function embedSignaturePng(pdf: PDF, png: Uint8Array): EmbeddedImage {
  const { header, idat, other } = readChunks(png);
  const { width, height, bitDepth, colorType, interlace } = header;
  if (width * height > MAX_PIXELS) {
    throw new Error(`${width}×${height} pixels is more than a signature image may have`);
  }
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number | undefined>)[colorType];
  if (!channels || bitDepth !== 8 || interlace !== 0 || other.has('tRNS')) {
    const image = pdf.embedPng(png); // the rare shapes: see the file comment
    return { ref: image.ref, width: image.width, height: image.height };
  }
  const stride = width * channels;
  const expected = height * (stride + 1);
  const zdata = idat.length === 1 ? idat[0] : Buffer.concat(idat);
  // maxOutputLength: a stream that inflates to more than the header announces is refused before
  // it can take more memory than the image needs.
  const raw = inflateSync(zdata, { maxOutputLength: expected + 1 });
  if (raw.length !== expected) {
    throw new Error('the image data does not match the image size');
  }
  const common = {
    Width: PdfNumber.of(width),
    Height: PdfNumber.of(height),
    BitsPerComponent: PdfNumber.of(8),
    Filter: PdfName.of('FlateDecode'),
  };
  const colorSpace = PdfName.of(colorType === 0 || colorType === 4 ? 'DeviceGray' : 'DeviceRGB');

  if (colorType === 0 || colorType === 2) {
    for (let y = 0; y < height; y++) {
      if (raw[y * (stride + 1)] > 4) {
        throw new Error(`unknown row filter ${raw[y * (stride + 1)]}`);
      }
    }
    // Predictor 15: PNG filters, chosen per row by the row's first byte (§7.4.4.4).
    const decodeParms = PdfDict.of({
      Predictor: PdfNumber.of(15),
      Colors: PdfNumber.of(channels),
      BitsPerComponent: PdfNumber.of(8),
      Columns: PdfNumber.of(width),
    });
    const ref = pdf.register(imageStream({ ...common, ColorSpace: colorSpace, DecodeParms: decodeParms }, zdata));
    return { ref, width, height };
  }

  const { color, alpha } = splitAlpha(unfilter(raw, height, stride, channels), width * height, channels - 1);
  const smask = pdf.register(imageStream({ ...common, ColorSpace: PdfName.of('DeviceGray') }, deflateSync(alpha, FAST)));
  const ref = pdf.register(imageStream({ ...common, ColorSpace: colorSpace, SMask: smask }, deflateSync(color, FAST)));
  return { ref, width, height };
}
