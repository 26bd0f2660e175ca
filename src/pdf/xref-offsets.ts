// Cross-reference offsets that miss their section by a little, read as readers read them (PDF 32000-1
// §7.5.5 startxref, §7.5.6 /Prev, §7.5.8.4 /XRefStm). Some writers (files of the EU DSS test set
// among them) point a revision's startxref and the next trailer's /Prev at the line ending just
// before "xref". qpdf skips whitespace there ("extraneous whitespace seen before xref"); poppler,
// PDFBox and Acrobat look for the section near the offset. The PDF library gives up on that section
// and with it on every revision before it, so the file reads as if its first pages were missing.
//
// The fix is made on a copy used only for parsing: each pointer that misses is rewritten, digit for
// digit, to the offset where its section starts. The copy has the same length and the same objects
// at the same offsets, so what the library reads of it is what a reader shows of the file, and a
// revision the library appends to it is byte for byte a revision appended to the file. The file's
// own bytes, which the signatures cover, are never changed: hashes are taken over them, not the copy.
// Pure: bytes in, bytes out.
import { latin1Of } from './pdf-revisions.js';

/** How far from the stated offset a section is looked for (qpdf: whitespace only; PDFBox: anywhere). */
const NEAR = 32;
/** Whitespace skipped before a section, at most (qpdf skips any run; a longer one is no writer's slip). */
const MAX_WHITESPACE = 4096;
/** A cross-reference stream's dictionary found by searching is read this far for its /Type /XRef. */
const MAX_STREAM_DICT = 4096;
/**
 * startxref markers looked at, at most: a file with more is left as it is, and the verifier refuses
 * it for its revisions anyway (100 at most); the bound keeps a hostile file's cost linear.
 */
const MAX_POINTERS = 1000;

interface Pointer {
  /** Offset of the pointer's digits in the file. */
  at: number;
  digits: string;
}

const isWhite = (c: string | undefined) => c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '\f' || c === '\0';
const TABLE = /xref[ \t\r\n\f\0]/y;
const STREAM = /\d+[ \t\r\n\f\0]+\d+[ \t\r\n\f\0]+obj\b/y;

/** Sorted offsets of a keyword, to find the next one after a place without scanning the file again. */
class Keyword {
  private readonly at: number[] = [];
  constructor(text: string, word: string) {
    for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + word.length)) {
      this.at.push(i);
    }
  }

  /** The first occurrence at or after `from`, or -1. */
  next(from: number): number {
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at[mid] < from) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < this.at.length ? this.at[lo] : -1;
  }
}

interface Scan {
  text: string;
  trailer: Keyword;
  startxref: Keyword;
  stream: Keyword;
}

/**
 * Whether a cross-reference section (a table, or a stream object) starts at `at`, as the library
 * tells them apart. A place found by searching must also start a token ("startxref" holds an
 * "xref", "12 0 obj" a "2 0 obj") and, for a stream, be one of /Type /XRef.
 */
function sectionAt(scan: Scan, at: number, searching = false): 'table' | 'stream' | null {
  const { text } = scan;
  if (at < 0 || at >= text.length || (searching && at > 0 && !isWhite(text[at - 1]) && text[at - 1] !== '>')) {
    return null;
  }
  TABLE.lastIndex = at;
  if (TABLE.test(text)) {
    return 'table';
  }
  STREAM.lastIndex = at;
  if (!STREAM.test(text)) {
    return null;
  }
  if (!searching) {
    return 'stream';
  }
  const dictEnd = scan.stream.next(at);
  return dictEnd > 0 && dictEnd - at <= MAX_STREAM_DICT && /\/Type\s*\/XRef\b/.test(text.slice(at, dictEnd)) ? 'stream' : null;
}

/**
 * Where the section `offset` means starts: the offset itself when a section starts there, else past
 * whitespace (qpdf), else the nearest section start within NEAR bytes. Only before `before`: a
 * section precedes the startxref or trailer that points at it. Null when nothing is found.
 */
function sectionNear(scan: Scan, offset: number, before: number): number | null {
  if (sectionAt(scan, offset)) {
    return offset;
  }
  const limit = Math.min(before, offset + MAX_WHITESPACE);
  let p = offset;
  while (p < limit && isWhite(scan.text[p])) {
    p++;
  }
  if (p > offset && p < before && sectionAt(scan, p, true)) {
    return p;
  }
  for (let d = 1; d <= NEAR; d++) {
    for (const c of [offset - d, offset + d]) {
      if (c >= 0 && c < before && sectionAt(scan, c, true)) {
        return c;
      }
    }
  }
  return null;
}

/** The /Prev and /XRefStm pointers of the section at `at`: its trailer, or its stream's dictionary. */
function pointersOf(scan: Scan, at: number, kind: 'table' | 'stream'): Pointer[] {
  let from: number;
  let to: number;
  if (kind === 'table') {
    from = scan.trailer.next(at);
    to = from < 0 ? -1 : scan.startxref.next(from);
  } else {
    from = at;
    to = scan.stream.next(at);
  }
  if (from < 0 || to < 0) {
    return [];
  }
  const dict = scan.text.slice(from, to);
  const out: Pointer[] = [];
  for (const key of ['Prev', 'XRefStm']) {
    const m = new RegExp(`/${key}[ \\t\\r\\n\\f\\0]+(\\d+)`).exec(dict);
    if (m) {
      out.push({ at: from + m.index + m[0].length - m[1].length, digits: m[1] });
    }
  }
  return out;
}

/**
 * The bytes to parse `bytes` from: `bytes` itself when every startxref, /Prev and /XRefStm hits its
 * section, else a copy in which those that miss (by whitespace, or by at most NEAR bytes) point at
 * it. A pointer whose right value has more digits than the wrong one is left as it is: nothing can
 * be shifted to make room, and the library then reads the file as it did.
 */
export function readableBytes(bytes: Uint8Array, text = latin1Of(bytes)): Uint8Array {
  const scan: Scan = {
    text,
    trailer: new Keyword(text, 'trailer'),
    startxref: new Keyword(text, 'startxref'),
    stream: new Keyword(text, 'stream'),
  };
  const fixes: { at: number; digits: string }[] = [];
  const queue: Pointer[] = [];
  // Every revision's startxref, so that each revision read on its own (a prefix of the file) reads too.
  const marker = /startxref[ \t\r\n\f\0]+(\d+)/g;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    queue.push({ at: m.index + m[0].length - m[1].length, digits: m[1] });
    if (queue.length > MAX_POINTERS) {
      return bytes;
    }
  }
  const seenPointers = new Set<number>();
  const seenSections = new Set<number>();
  for (let ptr = queue.shift(); ptr; ptr = queue.shift()) {
    const offset = Number(ptr.digits);
    // startxref 0 marks the first-page trailer of a linearized file (Annex F.3.4), not a section.
    if (seenPointers.has(ptr.at) || offset === 0 || !Number.isSafeInteger(offset)) {
      continue;
    }
    seenPointers.add(ptr.at);
    const start = sectionNear(scan, offset, ptr.at);
    if (start === null) {
      continue;
    }
    if (start !== offset) {
      const digits = String(start);
      if (digits.length <= ptr.digits.length) {
        // Leading zeros keep the length: a PDF integer is "one or more decimal digits" (§7.3.3).
        fixes.push({ at: ptr.at, digits: digits.padStart(ptr.digits.length, '0') });
      }
    }
    if (!seenSections.has(start)) {
      seenSections.add(start);
      queue.push(...pointersOf(scan, start, sectionAt(scan, start) as 'table' | 'stream'));
    }
  }
  if (fixes.length === 0) {
    return bytes;
  }
  const copy = Uint8Array.from(bytes);
  for (const fix of fixes) {
    copy.set(Buffer.from(fix.digits, 'latin1'), fix.at);
  }
  return copy;
}
