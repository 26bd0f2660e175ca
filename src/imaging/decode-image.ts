// Decodes an evidence image (JPEG or PNG) to the two planes the identity checks use: luminance, and
// the smallest of the three channels (a pixel is clipped white only when all three are). Pure
// JavaScript decoders (jpeg-js, pngjs), because the bytes are a stranger's photograph: it is read
// in the image jail (jail/image-jail.ts), a worker thread with time and memory limits, and the size
// is bounded from the header before a pixel is decoded. WebP is refused: no pure-JavaScript WebP
// decoder on npm is kept up (the maintained ones are WebAssembly builds of libwebp for browsers).
import { inflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { imageInfo } from '../domain/identity/image-info.js';

export interface Planes {
  width: number;
  height: number;
  /** Rec. 601 luma, 0–255, row after row. */
  gray: Uint8Array;
  /** min(R, G, B) of each pixel. */
  minChannel: Uint8Array;
}

export type DecodeProblem = 'unsupported' | 'unreadable' | 'too_large';

/** The image cannot be decoded; `problem` says why, the message says it to the signer. */
export class ImageDecodeError extends Error {
  override name = 'ImageDecodeError';
  constructor(
    readonly problem: DecodeProblem,
    message: string,
  ) {
    super(message);
  }
}

/** Largest image decoded, in pixels: a 48 MP phone photo; beyond it the image is refused before decoding. */
export const MAX_PIXELS = 48_000_000;

export function decodeImage(bytes: Uint8Array): Planes {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const info = imageInfo(b);
  if (!info) {
    throw new ImageDecodeError('unreadable', 'not a JPEG, PNG or WebP image');
  }
  if (info.contentType === 'image/webp') {
    throw new ImageDecodeError('unsupported', 'WebP images cannot be checked by this service: send a JPEG or PNG photograph');
  }
  if (info.width * info.height > MAX_PIXELS || info.width === 0 || info.height === 0) {
    throw new ImageDecodeError('too_large', `the image is ${info.width} × ${info.height} px: at most ${MAX_PIXELS / 1e6} megapixels`);
  }
  let rgba: Uint8Array;
  let width: number;
  let height: number;
  let orientation = 1;
  try {
    if (info.contentType === 'image/png') {
      boundInterlacedPng(b, info.width, info.height);
      const png = PNG.sync.read(b);
      ({ width, height } = png);
      rgba = png.data;
    } else {
      const img = jpeg.decode(b, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: MAX_PIXELS / 1e6,
        maxMemoryUsageInMB: Math.ceil((MAX_PIXELS * 4 * 2) / 1e6),
      });
      ({ width, height } = img);
      rgba = img.data;
      orientation = exifOrientation(b);
    }
  } catch (err) {
    throw new ImageDecodeError('unreadable', `the image cannot be decoded (${(err as Error).message})`);
  }
  if (width !== info.width || height !== info.height) {
    throw new ImageDecodeError('unreadable', 'the image is not the size its header says');
  }
  const n = width * height;
  const gray = new Uint8Array(n);
  const minChannel = new Uint8Array(n);
  for (let i = 0, p = 0; i < n; i++, p += 4) {
    const r = rgba[p];
    const g = rgba[p + 1];
    const bl = rgba[p + 2];
    gray[i] = (r * 299 + g * 587 + bl * 114 + 500) / 1000;
    minChannel[i] = r < g ? (r < bl ? r : bl) : g < bl ? g : bl;
  }
  return orient({ width, height, gray, minChannel }, orientation);
}

/**
 * pngjs bounds what a plain PNG inflates to by its size, but not an interlaced one (it inflates
 * without a limit): its data is inflated here first, with the limit its size allows.
 */
function boundInterlacedPng(b: Buffer, width: number, height: number) {
  if (b[28] !== 1) {
    return;
  }
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= b.length; ) {
    const len = b.readUInt32BE(at);
    if (b.toString('latin1', at + 4, at + 8) === 'IDAT') {
      idat.push(b.subarray(at + 8, at + 8 + len));
    }
    at += 12 + len;
  }
  // Adam7 adds at most one filter byte per row of each of its seven passes; 8 bytes a pixel at most (16-bit RGBA).
  const bound = width * height * 8 + height * 7 + 64;
  inflateSync(Buffer.concat(idat), { maxOutputLength: bound });
}

/** The EXIF orientation of a JPEG (1 when absent): phones store the photo as the sensor saw it. */
export function exifOrientation(b: Buffer): number {
  let at = 2;
  while (at + 4 < b.length && b[at] === 0xff) {
    const marker = b[at + 1];
    const len = b.readUInt16BE(at + 2);
    if (marker === 0xe1 && b.toString('latin1', at + 4, at + 10) === 'Exif\0\0') {
      const tiff = at + 10;
      const le = b.toString('latin1', tiff, tiff + 2) === 'II';
      const u16 = (o: number) => (o + 2 <= b.length ? (le ? b.readUInt16LE(o) : b.readUInt16BE(o)) : 0);
      const u32 = (o: number) => (o + 4 <= b.length ? (le ? b.readUInt32LE(o) : b.readUInt32BE(o)) : 0);
      const ifd = tiff + u32(tiff + 4);
      const entries = u16(ifd);
      for (let i = 0; i < entries && i < 512; i++) {
        const e = ifd + 2 + i * 12;
        if (u16(e) === 0x0112) {
          const v = u16(e + 8);
          return v >= 1 && v <= 8 ? v : 1;
        }
      }
      return 1;
    }
    if (marker === 0xda) {
      return 1;
    }
    at += 2 + len;
  }
  return 1;
}

/** The planes turned upright by the EXIF orientation (mirrored orientations are turned, not mirrored). */
function orient(p: Planes, orientation: number): Planes {
  const turns =
    orientation === 6 || orientation === 5
      ? 1
      : orientation === 3 || orientation === 4
        ? 2
        : orientation === 8 || orientation === 7
          ? 3
          : 0;
  let out = p;
  for (let t = 0; t < turns; t++) {
    out = rotateClockwise(out);
  }
  return out;
}

export function rotateClockwise(p: Planes): Planes {
  const { width: w, height: h } = p;
  const turn = (src: Uint8Array) => {
    const dst = new Uint8Array(src.length);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        dst[x * h + (h - 1 - y)] = src[y * w + x];
      }
    }
    return dst;
  };
  return { width: h, height: w, gray: turn(p.gray), minChannel: turn(p.minChannel) };
}
