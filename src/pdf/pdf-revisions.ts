// Revisions of a PDF file and the bytes a signature's /ByteRange covers (PDF 32000-1 §7.5.6
// incremental updates, §12.8.1 signature dictionaries). Pure: bytes in, facts out.

/**
 * Where each revision of the file ends (the offset just past its "%%EOF" and end-of-line).
 *
 * A revision is counted at every "startxref <offset> %%EOF" whose offset is not 0: the 0 marks the
 * first-page trailer of a linearized file (Annex F.3.4), which ends no revision of its own. The
 * startxref keyword is required too so that a stray "%%EOF" inside a stream is not counted.
 */
export function revisionEnds(bytes: Uint8Array, text = latin1Of(bytes)): number[] {
  const ends: number[] = [];
  const marker = /startxref[\s]+(\d+)[\s]*%%EOF(\r\n|\r|\n)?/g;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    if (Number(m[1]) !== 0) {
      ends.push(m.index + m[0].length);
    }
  }
  if (ends.length === 0) {
    ends.push(bytes.length); // no usable trailer: the file is one revision however it ends
  }
  return ends;
}

/**
 * The file as text, one character per byte, for the scans that search it with expressions. Each is
 * as large as the file (50 MB for a 50 MB file) and lives until the next garbage collection: a
 * reader that scans a file several times makes it once and hands it on.
 */
export function latin1Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** 1-based revision that closes at or after `end`; the last revision when `end` is beyond them all. */
export function revisionOf(ends: number[], end: number): number {
  const i = ends.findIndex((e) => e >= end);
  return i < 0 ? ends.length : i + 1;
}

export interface ByteRangeCheck {
  /**
   * The signed bytes, as the parts of the file the ranges name, in order: views into `bytes`, not a
   * copy (a 50 MB file would be held twice per signature; digests are taken part by part). Null
   * when the ranges are not usable (out of bounds, odd count).
   */
  signed: Uint8Array[] | null;
  /** Offset just past the last signed byte. */
  end: number;
  /**
   * §12.8.1: [0 a b c] where a..b is exactly this signature's /Contents hex string, < > included,
   * and b + c is the end of the file: every byte but the signature itself is signed.
   */
  coversDocument: boolean;
}

const isHex = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

export function checkByteRange(bytes: Uint8Array, range: number[]): ByteRangeCheck {
  const ok =
    range.length >= 2 &&
    range.length % 2 === 0 &&
    range.every((v) => Number.isSafeInteger(v) && v >= 0) &&
    range.every((v, i) => i % 2 === 0 || range[i - 1] + v <= bytes.length);
  if (!ok) {
    return { signed: null, end: 0, coversDocument: false };
  }
  const parts: Uint8Array[] = [];
  let end = 0;
  for (let i = 0; i < range.length; i += 2) {
    parts.push(bytes.subarray(range[i], range[i] + range[i + 1]));
    end = Math.max(end, range[i] + range[i + 1]);
  }
  let covers = false;
  if (range.length === 4 && range[0] === 0 && range[2] + range[3] === bytes.length && range[2] > range[1] + 1) {
    // The gap must hold nothing but the hex string: otherwise unsigned bytes could change the meaning.
    const gap = bytes.subarray(range[1], range[2]);
    covers = gap[0] === 0x3c && gap[gap.length - 1] === 0x3e && gap.subarray(1, -1).every(isHex);
  }
  return { signed: parts, end, coversDocument: covers };
}

/** §7.9.4 date "D:YYYYMMDDHHmmSSOHH'mm'", every part after the year optional; null when unreadable. */
export function parsePdfDate(text: string | null | undefined): Date | null {
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(?:(\d{2})'?(\d{2})?'?)?)?/.exec(text?.trim() ?? '');
  if (!m) {
    return null;
  }
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', sign, oh = '00', om = '00'] = m;
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  // No offset given: §7.9.4 says the time is unknown relative to UT; read as UT, the usual choice.
  const offset = sign === '+' || sign === '-' ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  const date = new Date(utc - offset);
  return Number.isNaN(date.getTime()) ? null : date;
}
