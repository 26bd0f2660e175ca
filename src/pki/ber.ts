// BER, as signers really write CMS: indefinite lengths, long-form lengths longer than needed and
// strings split into constructed pieces (X.690 §8.1.3.6, §8.21) are all BER, and widely used signing
// products (Java's PKCS#7 among them) emit them for the outer layers of a signature. Relying parties
// accept them (openssl, Acrobat, EU DSS do), so the verifier must too; what is hashed is still DER
// where the standard says so (RFC 5652 §5.4: the DER of the signed attributes). Both readers here
// walk the bytes themselves, bounded in depth and in elements, so a hostile encoding can neither
// exhaust the stack nor the memory (a /Contents of 10 MB of two-octet elements once took 1.5 GB).
import { PkiError } from './errors.js';

/** Nesting followed; a CMS with its certificates stays well under 30 levels. */
const MAX_DEPTH = 100;
/**
 * Elements one encoding may hold. Each element read is held as an object, so the count, not the
 * input's size, bounds the memory. A signature carrying the CRLs of its chain (Adobe's revocation
 * archival attribute, a CMS crls field) holds tens of thousands; 200,000 leaves room for more.
 */
export const MAX_BER_ELEMENTS = 200_000;
/** Universal string types a BER writer may split into constructed pieces (X.690 §8.21.4, §8.6, §8.7). */
const STRING_TAGS = new Set([3, 4, 12, 18, 19, 20, 21, 22, 25, 26, 27, 28, 30]);

interface Element {
  /** The identifier octets as written (the tag). */
  tag: Uint8Array;
  constructed: boolean;
  /** Universal class tag number, -1 for other classes. */
  universal: number;
  /** Content octets of a primitive element. */
  content: Uint8Array;
  /** Children of a constructed element. */
  children: Element[];
  /** Offset just past the element (past its end-of-contents octets when indefinite). */
  end: number;
}

function bad(message: string): never {
  throw new PkiError('bad_der', message);
}

/** Elements read so far in one encoding. */
interface Count {
  elements: number;
}

/** Reads one element at `at`; throws PkiError('bad_der') when it is not complete, well-formed BER. */
function readElement(b: Uint8Array, at: number, limit: number, depth: number, count: Count): Element {
  if (depth > MAX_DEPTH) {
    bad(`the encoding nests deeper than ${MAX_DEPTH} levels`);
  }
  if (++count.elements > MAX_BER_ELEMENTS) {
    bad(`the encoding holds more than ${MAX_BER_ELEMENTS} elements`);
  }
  let p = at;
  if (p >= limit) {
    bad('the encoding ends inside an element');
  }
  const first = b[p++];
  if (first === 0) {
    // Tag 0 is the end-of-contents marker, which only closes an indefinite length (X.690 §8.1.5).
    bad('an end-of-contents marker where an element belongs');
  }
  if ((first & 0x1f) === 0x1f) {
    // High tag number form: base-128 octets, the last without bit 8 (X.690 §8.1.2.4).
    while (p < limit && b[p] & 0x80) {
      p++;
    }
    p++;
  }
  if (p >= limit) {
    bad('the encoding ends inside an element');
  }
  const tag = b.subarray(at, p);
  const constructed = (first & 0x20) !== 0;
  const universal = (first & 0xc0) === 0 && (first & 0x1f) !== 0x1f ? first & 0x1f : -1;
  const lengthByte = b[p++];
  if (lengthByte === 0x80) {
    // Indefinite length (X.690 §8.1.3.6): constructed only, closed by the end-of-contents octets 00 00.
    if (!constructed) {
      bad('a primitive element has an indefinite length');
    }
    const children: Element[] = [];
    for (;;) {
      if (p + 1 < limit && b[p] === 0 && b[p + 1] === 0) {
        return { tag, constructed, universal, content: new Uint8Array(), children, end: p + 2 };
      }
      const child = readElement(b, p, limit, depth + 1, count);
      children.push(child);
      p = child.end;
    }
  }
  let length = lengthByte;
  if (lengthByte > 0x80) {
    const n = lengthByte & 0x7f;
    // 0xff is reserved (X.690 §8.1.3.5); more than 4 length octets is beyond any signature.
    if (n > 4 || p + n > limit) {
      bad('an element has a length beyond the encoding');
    }
    length = 0;
    for (let i = 0; i < n; i++) {
      length = length * 256 + b[p++];
    }
  }
  const end = p + length;
  if (end > limit) {
    bad('an element runs past the end of the encoding');
  }
  if (!constructed) {
    return { tag, constructed, universal, content: b.subarray(p, end), children: [], end };
  }
  const children: Element[] = [];
  while (p < end) {
    const child = readElement(b, p, end, depth + 1, count);
    children.push(child);
    p = child.end;
  }
  return { tag, constructed, universal, content: new Uint8Array(), children, end };
}

function lengthOctets(n: number): Uint8Array {
  if (n < 0x80) {
    return Uint8Array.of(n);
  }
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) {
    out.unshift(v % 256);
  }
  return Uint8Array.of(0x80 | out.length, ...out);
}

/** The pieces of a constructed string, in order (they may nest: X.690 §8.21.4 allows it in BER). */
function stringPieces(e: Element, universal: number, out: Uint8Array[]): void {
  for (const child of e.children) {
    if (child.universal !== universal) {
      bad('a constructed string holds a piece of another type');
    }
    if (child.constructed) {
      stringPieces(child, universal, out);
    } else {
      out.push(child.content);
    }
  }
}

/** A constructed BIT STRING joined: each piece starts with its unused-bit count, only the last may be non-zero (§8.6.4). */
function joinBits(pieces: Uint8Array[]): Uint8Array {
  if (pieces.length === 0) {
    return Uint8Array.of(0);
  }
  const data: Uint8Array[] = [];
  pieces.forEach((piece, i) => {
    if (piece.length === 0 || (i < pieces.length - 1 && piece[0] !== 0)) {
      bad('a constructed BIT STRING has a malformed piece');
    }
    data.push(piece.subarray(1));
  });
  return Buffer.concat([Uint8Array.of(pieces[pieces.length - 1][0]), ...data]);
}

function toDer(e: Element): Buffer {
  if (!e.constructed) {
    return Buffer.concat([e.tag, lengthOctets(e.content.length), e.content]);
  }
  if (STRING_TAGS.has(e.universal)) {
    // X.690 §10.2: DER writes strings in the primitive form.
    const pieces: Uint8Array[] = [];
    stringPieces(e, e.universal, pieces);
    const content = e.universal === 3 ? joinBits(pieces) : Buffer.concat(pieces);
    const tag = Uint8Array.of(e.tag[0] & ~0x20);
    return Buffer.concat([tag, lengthOctets(content.length), content]);
  }
  const body = Buffer.concat(e.children.map(toDer));
  return Buffer.concat([e.tag, lengthOctets(body.length), body]);
}

/**
 * Length of the complete BER element at the start of `bytes` (definite or indefinite length), or 0
 * when they do not start with one. What follows it (a PDF /Contents' zero padding) is not read.
 */
export function berElementLength(bytes: Uint8Array): number {
  try {
    return readElement(bytes, 0, bytes.length, 0, { elements: 0 }).end;
  } catch (err) {
    if (err instanceof PkiError) {
      return 0;
    }
    throw err;
  }
}

/**
 * The element at the start of `ber` with DER's lengths and string forms: definite, minimal lengths
 * (X.690 §10.1) and primitive strings (§10.2). The order of SET OF members is kept as written, as
 * openssl does when it checks a signature: a signer that did not sort them signed them in that order.
 * Throws PkiError('bad_der') when the bytes are not well-formed BER.
 */
export function berToDer(ber: Uint8Array): Buffer {
  return toDer(readElement(ber, 0, ber.length, 0, { elements: 0 }));
}
