// Bounds on a zip archive (a docx) before it is opened. A zip bomb is a small archive that
// inflates to gigabytes: JSZip trusts the sizes an archive declares and inflates a whole entry
// before noticing a mismatch, so the archive is checked here first, from its central directory:
// a bounded number of entries and declared size, and for the entries that will be inflated, an
// inflate capped at the declared size (zlib's maxOutputLength), which a lying entry cannot pass.
import { inflateRawSync } from 'node:zlib';

export interface ZipBounds {
  maxEntries: number;
  /** Sum of the declared uncompressed sizes. */
  maxTotalBytes: number;
  /** Entries that will be inflated in this process: their real size is checked, not just declared. */
  inflated: (name: string) => boolean;
}

export class ZipBoundsError extends Error {}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export function checkZipBounds(bytes: Uint8Array, bounds: ZipBounds): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEocd(buf);
  const entries = buf.readUInt16LE(eocd + 10);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (entries === 0xffff || cdOffset === 0xffffffff) {
    throw new ZipBoundsError('ZIP64 archives are not accepted');
  }
  if (entries > bounds.maxEntries) {
    throw new ZipBoundsError(`the archive has ${entries} entries; at most ${bounds.maxEntries} are accepted`);
  }
  let p = cdOffset;
  let total = 0;
  for (let i = 0; i < entries; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== CENTRAL) {
      throw new ZipBoundsError('the archive directory is damaged');
    }
    const method = buf.readUInt16LE(p + 10);
    const compressed = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const localOffset = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    if (size === 0xffffffff || compressed === 0xffffffff || localOffset === 0xffffffff) {
      throw new ZipBoundsError('ZIP64 archives are not accepted');
    }
    total += size;
    if (total > bounds.maxTotalBytes) {
      throw new ZipBoundsError(`the archive expands to more than ${Math.round(bounds.maxTotalBytes / 1048576)} MB`);
    }
    if (bounds.inflated(name)) {
      checkRealSize(buf, { name, method, compressed, size, localOffset });
    }
    p += 46 + nameLen + extraLen + commentLen;
  }
}

function checkRealSize(buf: Buffer, e: { name: string; method: number; compressed: number; size: number; localOffset: number }) {
  const h = e.localOffset;
  if (h + 30 > buf.length || buf.readUInt32LE(h) !== LOCAL) {
    throw new ZipBoundsError(`entry ${e.name}: damaged`);
  }
  const start = h + 30 + buf.readUInt16LE(h + 26) + buf.readUInt16LE(h + 28);
  const data = buf.subarray(start, start + e.compressed);
  if (e.method === 0) {
    if (e.compressed !== e.size) {
      throw new ZipBoundsError(`entry ${e.name}: sizes disagree`);
    }
    return;
  }
  if (e.method !== 8) {
    throw new ZipBoundsError(`entry ${e.name}: compression method ${e.method} is not accepted`);
  }
  let out: Buffer;
  try {
    // One byte over the declared size is enough to prove the declaration false.
    out = inflateRawSync(data, { maxOutputLength: e.size + 1 });
  } catch {
    throw new ZipBoundsError(`entry ${e.name}: inflates to more than it declares, or is damaged`);
  }
  if (out.length !== e.size) {
    throw new ZipBoundsError(`entry ${e.name}: inflates to ${out.length} bytes, not the ${e.size} it declares`);
  }
}

function findEocd(buf: Buffer): number {
  // The end record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      return i;
    }
  }
  throw new ZipBoundsError('not a zip archive');
}
