// Decodes an evidence image (JPEG or PNG) to the two planes the identity checks use: luminance, and
// the smallest of the three channels (a pixel is clipped white only when all three are). Pure
// JavaScript decoders (jpeg-js, pngjs), because the bytes are a stranger's photograph: it is read
// in the image jail (jail/image-jail.ts), a worker thread with time and memory limits, and the size
// is bounded from the header before a pixel is decoded. WebP is refused: no pure-JavaScript WebP
// decoder on npm is kept up (the maintained ones are WebAssembly builds of libwebp for browsers).
import { inflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { imageInfo } from './image-info.js';

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
  const { width, height, rgba, orientation } = decodeRgba(bytes);
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

/** An image in colour, three bytes (R, G, B) a pixel, row after row. */
export interface RgbImage {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/**
 * The image in colour (the face model needs it), upright, brought down to `maxSide` px on its
 * longer side (area average) when it is larger: the model's memory grows with the pixels it is given.
 */
export function decodeRgb(bytes: Uint8Array, maxSide: number): RgbImage & { scale: number } {
  const { width, height, rgba, orientation } = decodeRgba(bytes);
  const scale = Math.min(1, maxSide / Math.max(width, height));
  let img = shrinkRgb(rgba, width, height, Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)));
  for (let t = 0; t < quarterTurns(orientation); t++) {
    img = rotateRgbClockwise(img);
  }
  // Pixels of the photograph as given per pixel of this image.
  return { ...img, scale: Math.max(width, height) / Math.max(img.width, img.height) };
}

/** RGBA to RGB, averaging each output pixel's box of source pixels (a plain copy at the same size). */
function shrinkRgb(rgba: Uint8Array, w: number, h: number, ow: number, oh: number): RgbImage {
  const sums = new Float64Array(ow * 3);
  const counts = new Float64Array(ow);
  const rgb = new Uint8Array(ow * oh * 3);
  const colOf = new Int32Array(w);
  for (let x = 0; x < w; x++) {
    colOf[x] = Math.min(ow - 1, Math.floor((x * ow) / w));
  }
  let sy = 0;
  for (let y = 0; y < oh; y++) {
    const yEnd = Math.max(sy + 1, Math.round(((y + 1) * h) / oh));
    sums.fill(0);
    counts.fill(0);
    for (; sy < yEnd && sy < h; sy++) {
      for (let x = 0, p = sy * w * 4; x < w; x++, p += 4) {
        const c = colOf[x];
        sums[c * 3] += rgba[p];
        sums[c * 3 + 1] += rgba[p + 1];
        sums[c * 3 + 2] += rgba[p + 2];
        counts[c]++;
      }
    }
    for (let x = 0; x < ow; x++) {
      const n = counts[x] || 1;
      const o = (y * ow + x) * 3;
      rgb[o] = sums[x * 3] / n + 0.5;
      rgb[o + 1] = sums[x * 3 + 1] / n + 0.5;
      rgb[o + 2] = sums[x * 3 + 2] / n + 0.5;
    }
  }
  return { width: ow, height: oh, rgb };
}

function rotateRgbClockwise(p: RgbImage): RgbImage {
  const { width: w, height: h, rgb } = p;
  const dst = new Uint8Array(rgb.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = (y * w + x) * 3;
      const d = (x * h + (h - 1 - y)) * 3;
      dst[d] = rgb[s];
      dst[d + 1] = rgb[s + 1];
      dst[d + 2] = rgb[s + 2];
    }
  }
  return { width: h, height: w, rgb: dst };
}

/** Decodes to RGBA as stored, with the EXIF orientation still to apply. */
function decodeRgba(bytes: Uint8Array): { width: number; height: number; rgba: Uint8Array; orientation: number } {
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
  return { width, height, rgba, orientation };
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
  let out = p;
  for (let t = 0; t < quarterTurns(orientation); t++) {
    out = rotateClockwise(out);
  }
  return out;
}

/** Clockwise quarter turns that bring an image of this EXIF orientation upright. */
function quarterTurns(orientation: number): number {
  return orientation === 6 || orientation === 5
    ? 1
    : orientation === 3 || orientation === 4
      ? 2
      : orientation === 8 || orientation === 7
        ? 3
        : 0;
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
