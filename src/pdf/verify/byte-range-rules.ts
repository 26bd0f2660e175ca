// The structure a signature's /ByteRange and /Contents must have for the signed bytes to be the
// document the signer saw (PDF 32000-1 §12.8.1, ETSI EN 319 142-1 §5.1). Each rule here blocks a
// published attack: a /ByteRange that does not start at 0 or leaves room between its parts lets
// unsigned bytes change the meaning of signed ones (signature wrapping, Mladenov et al. 2019); a
// /Contents that is empty, zeroed or not DER is the universal signature forgery that made some
// validators skip the check; a range that ends before its revision ends lets bytes be slipped in.
// A CMS in BER (indefinite lengths, as Java's PKCS#7 and other signing products write it) is a
// signature like any other: ISO 32000-1 §12.8.3.3.1 asks for DER, but relying parties accept BER,
// and the CMS check decides whether it verifies.
// Bytes after a complete CMS inside /Contents (text a writer left in the reserved space) are only
// a warning: /Contents is the one string the /ByteRange leaves out, so they change no signed byte
// and nothing a reader shows; the CMS is read as one element and those bytes are never parsed as
// part of it; OpenSSL, poppler's pdfsig and EU DSS accept such a signature. No published attack
// depends on them: whatever a later revision does is still judged by the revision comparison.
// Pure: the file's bytes, the values the parser read and the revision ends in, verdicts out.
import { berElementLength } from '../../pki/index.js';

/** Why a signature's structure is refused: a stable code and a sentence. */
export interface StructureProblem {
  rule: StructureRule;
  message: string;
}

export type StructureRule =
  | 'byte-range-missing'
  | 'byte-range-malformed'
  | 'byte-range-not-from-zero'
  | 'byte-range-overlapping'
  | 'byte-range-past-end'
  | 'byte-range-short-of-revision'
  | 'byte-range-duplicated'
  | 'contents-missing'
  | 'contents-empty'
  | 'contents-gap-mismatch'
  | 'contents-not-der'
  | 'contents-trailing-data'
  | 'signature-dictionary-misplaced';

/** Every structure rule that refuses a signature: it is not framed as its revision's signature. */
export const STRUCTURE_RULES: ReadonlySet<string> = new Set<StructureRule>([
  'byte-range-missing',
  'byte-range-malformed',
  'byte-range-not-from-zero',
  'byte-range-overlapping',
  'byte-range-past-end',
  'byte-range-short-of-revision',
  'byte-range-duplicated',
  'contents-missing',
  'contents-empty',
  'contents-gap-mismatch',
  'contents-not-der',
  'signature-dictionary-misplaced',
]);

export interface StructureInput {
  bytes: Uint8Array;
  /** The /ByteRange as the parser read it (null when absent or not an array of numbers). */
  byteRange: number[] | null;
  /** The /Contents string's bytes as the parser read it; null when absent or not a string. */
  contents: Uint8Array | null;
  /** Object number of the signature dictionary; null when it is a direct object. */
  objectNumber: number | null;
  /** Where each revision ends (pdf-revisions.ts revisionEnds). */
  revisionEnds: number[];
}

export interface StructureCheck {
  problem: StructureProblem | null;
  /** What the structure has that refuses nothing but is worth telling (contents-trailing-data). */
  warning: StructureProblem | null;
  /** Length of the CMS (one BER or DER element) at the start of /Contents (0 when there is none). */
  cmsLength: number;
}

const fail = (rule: StructureRule, message: string): StructureCheck => ({ problem: { rule, message }, warning: null, cmsLength: 0 });
const isHex = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const latin1 = (b: Uint8Array, from: number, to: number) =>
  Buffer.from(b.buffer, b.byteOffset + from, Math.max(0, to - from)).toString('latin1');

/**
 * Where the signature dictionary's own text is: from its "N G obj" header before the gap to its
 * "endobj" after it. The header must be found within a bounded window, so a file cannot make the
 * search read it whole for each signature.
 */
function dictionaryAround(
  bytes: Uint8Array,
  objectNumber: number,
  gapStart: number,
  gapEnd: number,
): { start: number; end: number } | null {
  const window = 1 << 20;
  const from = Math.max(0, gapStart - window);
  const before = latin1(bytes, from, gapStart);
  // Any non-digit may come before the header: writers glue an appended object to "%%EOF" too.
  const header = new RegExp(`(?<![0-9])${objectNumber}\\s+\\d+\\s+obj\\b`, 'g');
  let start = -1;
  for (let m = header.exec(before); m; m = header.exec(before)) {
    start = from + m.index;
  }
  if (start < 0 || before.slice(start - from).includes('endobj')) {
    return null;
  }
  const after = latin1(bytes, gapEnd, Math.min(bytes.length, gapEnd + window));
  const close = after.indexOf('endobj');
  return close < 0 ? null : { start, end: gapEnd + close };
}

/** Occurrences of a key (a name followed by a delimiter) in a dictionary's text outside the gap. */
function keyCount(text: string, key: string): number {
  return text.match(new RegExp(`/${key}(?![A-Za-z0-9#._-])`, 'g'))?.length ?? 0;
}

export function checkSignatureStructure(input: StructureInput): StructureCheck {
  const { bytes, byteRange: br, contents } = input;
  if (!br || br.length === 0) {
    return fail('byte-range-missing', 'the signature has no /ByteRange');
  }
  if (br.length !== 4 || !br.every((v) => Number.isSafeInteger(v) && v >= 0)) {
    return fail('byte-range-malformed', `the /ByteRange must be four non-negative integers; it is [${br.join(' ')}]`);
  }
  const [start, a, b, c] = br;
  if (start !== 0) {
    return fail('byte-range-not-from-zero', `the /ByteRange starts at ${start}, not at 0: the bytes before are not signed`);
  }
  if (b < a) {
    return fail('byte-range-overlapping', `the /ByteRange parts overlap (${a} > ${b})`);
  }
  if (b + c > bytes.length || a > bytes.length) {
    return fail('byte-range-past-end', `the /ByteRange reaches byte ${b + c}, past the end of the file (${bytes.length})`);
  }
  if (!contents) {
    return fail('contents-missing', 'the signature has no /Contents string');
  }
  // The gap must be exactly this dictionary's /Contents hex string: anything else in it is unsigned.
  const gap = bytes.subarray(a, b);
  const hexOnly = gap.length >= 2 && gap[0] === 0x3c && gap[gap.length - 1] === 0x3e && gap.subarray(1, -1).every(isHex);
  if (!hexOnly) {
    return fail('contents-gap-mismatch', `the bytes the /ByteRange leaves out (${a}..${b}) are not just one hex string`);
  }
  const gapValue = Buffer.from(latin1(gap, 1, gap.length - 1), 'hex');
  if (!gapValue.equals(Buffer.from(contents))) {
    return fail('contents-gap-mismatch', 'the string the /ByteRange leaves out is not the signature dictionary’s /Contents');
  }
  let k = a - 1;
  while (k > 0 && isSpace(bytes[k])) {
    k--;
  }
  if (latin1(bytes, Math.max(0, k - 8), k + 1) !== '/Contents') {
    return fail('contents-gap-mismatch', 'the string the /ByteRange leaves out is not the value of a /Contents key');
  }
  if (input.objectNumber !== null) {
    const dict = dictionaryAround(bytes, input.objectNumber, a, b);
    if (!dict) {
      return fail('signature-dictionary-misplaced', 'the excluded /Contents is not inside the signature dictionary the field points to');
    }
    const text = latin1(bytes, dict.start, a) + latin1(bytes, b, dict.end);
    if (keyCount(text, 'ByteRange') !== 1 || keyCount(text, 'Contents') !== 1) {
      return fail('byte-range-duplicated', 'the signature dictionary names /ByteRange or /Contents more than once');
    }
  }
  const end = b + c;
  const ends = input.revisionEnds;
  // A revision ends after "%%EOF" and its end-of-line; writers sign up to either side of that EOL.
  const closes = ends.some((e) => e === end || (end < e && e - end <= 2 && latin1(bytes, end - 5, end) === '%%EOF'));
  if (!closes) {
    return fail('byte-range-short-of-revision', `the signed bytes end at ${end}, which is not where a revision of the file ends`);
  }
  if (contents.length === 0 || contents.every((x) => x === 0)) {
    return fail('contents-empty', 'the /Contents string is empty or only zeros: there is no signature');
  }
  // A SEQUENCE (the ContentInfo) in BER or DER, whole: anything else is no CMS at all.
  const cmsLength = contents[0] === 0x30 ? berElementLength(contents) : 0;
  if (cmsLength === 0) {
    return fail('contents-not-der', 'the /Contents string does not start with a CMS (one complete BER or DER SEQUENCE)');
  }
  if (!contents.subarray(cmsLength).every((x) => x === 0)) {
    const rule = 'contents-trailing-data';
    const message = 'the /Contents string holds data after the CMS other than zero padding; no signed byte depends on it';
    return { problem: null, warning: { rule, message }, cmsLength };
  }
  return { problem: null, warning: null, cmsLength };
}
