// A document time stamp (PDF 32000-2 §12.8.5, ETSI EN 319 142-1 §5.4: /Type /DocTimeStamp,
// /SubFilter /ETSI.RFC3161) appended to a PDF as one incremental revision, in two steps so that
// the file is parsed where it is safe to parse it and the token is fetched where the network is:
//
//   1. prepareDocumentTimestamp (in the PDF jail: the file is a client's) appends the revision with
//      /Contents reserved and zero, and gives back the SHA-256 of the bytes its /ByteRange covers;
//   2. the caller has that digest time-stamped, and checks the reply (tsa-verify.ts) before
//   3. embedDocumentTimestamp writes the token into the reserved /Contents. This step parses
//      nothing: it checks the prepared file byte for byte (earlier bytes an exact prefix, the
//      /ByteRange covering all but the reserved hex string, the digest the one the token attests).
//
// Pure: bytes in, bytes out. Earlier signatures stay valid because not one of their bytes moves.
import { createHash } from 'node:crypto';
import { PDF, type PdfDict, PdfRef } from '@libpdf/core';
import { isEncryptedFile } from './encrypted-pdf.js';

/** Bytes reserved for the token: a PSC's token with its certificate chain, with room to spare. */
export const TOKEN_RESERVE_BYTES = 16 * 1024;

export type DocumentTimestampProblem =
  /** The bytes are not a PDF, or it cannot be read. */
  | 'UNREADABLE'
  /** The file cannot take an incremental revision, or a certification signature forbids any change. */
  | 'NOT_INCREMENTAL'
  /** Encrypted: the writer would encrypt /Contents, which §7.6.1 says must stay in clear. */
  | 'ENCRYPTED'
  /** The token does not fit in the reserved /Contents. */
  | 'TOKEN_TOO_LARGE'
  /** The prepared revision is not what this module writes (a bug or a tampered hand-over). */
  | 'INCONSISTENT';

export class DocumentTimestampError extends Error {
  constructor(
    readonly problem: DocumentTimestampProblem,
    message: string,
  ) {
    super(message);
    this.name = 'DocumentTimestampError';
  }
}

export interface PreparedTimestamp {
  /** The file with the /DocTimeStamp revision appended, its /Contents all zeros. */
  bytes: Uint8Array;
  /** Length of the file it was prepared from: bytes[0, inputLength) are that file, unchanged. */
  inputLength: number;
  /** [0, a, b, c]: bytes a..b are the reserved hex string "<00…00>". */
  byteRange: [number, number, number, number];
  /** SHA-256 of the bytes the /ByteRange covers: the imprint the token must attest. */
  imprint: Uint8Array;
}

const fail = (problem: DocumentTimestampProblem, message: string): never => {
  throw new DocumentTimestampError(problem, message);
};

/** §12.8.2.2: a certification signature with /P 1 forbids any change, time stamps included. */
function certificationForbidsChanges(pdf: PDF): boolean {
  const resolve = (r: PdfRef) => pdf.getObject(r);
  const sig = pdf.getCatalog().getDict('Perms', resolve)?.getDict('DocMDP', resolve);
  for (const ref of sig?.getArray('Reference', resolve)?.toArray() ?? []) {
    const r = (ref instanceof PdfRef ? pdf.getObject(ref) : ref) as PdfDict | undefined;
    if (r && typeof r.getName === 'function' && r.getName('TransformMethod', resolve)?.value === 'DocMDP') {
      return (r.getDict('TransformParams', resolve)?.getNumber('P', resolve)?.value ?? 2) === 1;
    }
  }
  return false;
}

/** Step 1: appends the /DocTimeStamp revision with its /Contents reserved. Run it in the PDF jail. */
export async function prepareDocumentTimestamp(
  input: Uint8Array,
  opts: { fieldName?: string; reserveBytes?: number } = {},
): Promise<PreparedTimestamp> {
  let pdf: PDF;
  try {
    pdf = await PDF.load(input);
  } catch (err) {
    return fail('UNREADABLE', `the PDF cannot be read: ${(err as Error).message}`);
  }
  if (isEncryptedFile(pdf)) {
    fail('ENCRYPTED', 'the PDF is encrypted; a time stamp would have to be written in clear');
  }
  // With a blocker, save({ incremental: true }) writes a whole new file, and every earlier
  // signature's /ByteRange would point at the wrong bytes.
  const blocker = pdf.canSaveIncrementally();
  if (blocker) {
    fail('NOT_INCREMENTAL', `the PDF cannot take an incremental revision (${blocker})`);
  }
  if (certificationForbidsChanges(pdf)) {
    fail('NOT_INCREMENTAL', 'a certification signature on the PDF forbids any change (DocMDP P=1)');
  }
  let digest: Uint8Array | undefined;
  let bytes: Uint8Array;
  try {
    // The library asks its authority for the token once it has written the revision: this one
    // only takes note of the digest, leaving /Contents zero for step 3.
    const result = await pdf.addTimestamp({
      timestampAuthority: {
        timestamp: async (d, algorithm) => {
          if (algorithm !== 'SHA-256') {
            fail('INCONSISTENT', `the document was hashed with ${algorithm}, not SHA-256`);
          }
          digest = Uint8Array.from(d);
          return new Uint8Array(0);
        },
      },
      digestAlgorithm: 'SHA-256',
      estimatedSize: opts.reserveBytes ?? TOKEN_RESERVE_BYTES,
      fieldName: opts.fieldName,
    });
    bytes = result.bytes;
  } catch (err) {
    if (err instanceof DocumentTimestampError) {
      throw err;
    }
    return fail('UNREADABLE', `the time-stamp revision cannot be added: ${(err as Error).message}`);
  }
  if (!digest) {
    return fail('INCONSISTENT', 'the document was not hashed');
  }
  const byteRange = locateByteRange(bytes, input.length);
  const prepared: PreparedTimestamp = { bytes, inputLength: input.length, byteRange, imprint: digest };
  checkPrepared(input, prepared);
  return prepared;
}

/** The /ByteRange of the one signature dictionary the appended revision holds. */
function locateByteRange(bytes: Uint8Array, from: number): [number, number, number, number] {
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset + from, bytes.byteLength - from).toString('latin1');
  const found = [...tail.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)];
  if (found.length !== 1) {
    return fail('INCONSISTENT', `the appended revision holds ${found.length} /ByteRange entries, not one`);
  }
  const [, a, b, c, d] = found[0].map(Number);
  return [a, b, c, d];
}

/** Every fact step 3 relies on, checked on the bytes themselves. */
function checkPrepared(input: Uint8Array, p: PreparedTimestamp): void {
  const { bytes, byteRange: r } = p;
  if (p.inputLength !== input.byteLength || bytes.byteLength <= input.byteLength) {
    fail('INCONSISTENT', 'the prepared file is not longer than the original');
  }
  if (
    !Buffer.from(bytes.buffer, bytes.byteOffset, input.byteLength).equals(Buffer.from(input.buffer, input.byteOffset, input.byteLength))
  ) {
    fail('INCONSISTENT', 'the original file is not an exact prefix of the time-stamped one');
  }
  // §12.8.1: [0 a b c], a..b exactly the hex string, b + c the end of the file; the reserved string
  // lies in the appended revision, so nothing of the original is left out of the signed bytes.
  if (r[0] !== 0 || r[1] <= input.byteLength || r[2] <= r[1] + 1 || r[2] + r[3] !== bytes.byteLength) {
    fail('INCONSISTENT', `the /ByteRange [${r.join(' ')}] does not cover the whole file but /Contents`);
  }
  const gap = bytes.subarray(r[1], r[2]);
  if (gap[0] !== 0x3c || gap[gap.length - 1] !== 0x3e || !gap.subarray(1, -1).every((c) => c === 0x30)) {
    fail('INCONSISTENT', 'the reserved /Contents is not a zeroed hex string');
  }
  if (!coveredDigest(bytes, r).equals(Buffer.from(p.imprint))) {
    fail('INCONSISTENT', 'the digest does not match the bytes the /ByteRange covers');
  }
}

/** SHA-256 of the bytes [0, a) and [b, b + c). */
export function coveredDigest(bytes: Uint8Array, r: readonly number[]): Buffer {
  return createHash('sha256')
    .update(bytes.subarray(r[0], r[0] + r[1]))
    .update(bytes.subarray(r[2], r[2] + r[3]))
    .digest();
}

/**
 * Step 3: the file with `tokenDer` in the reserved /Contents. `input` is the file step 1 was given
 * (its bytes must still be the prefix); the token must already be checked against `imprint`.
 */
export function embedDocumentTimestamp(input: Uint8Array, prepared: PreparedTimestamp, tokenDer: Uint8Array): Buffer {
  checkPrepared(input, prepared);
  const [, a, b] = prepared.byteRange;
  const room = (b - a - 2) / 2;
  if (tokenDer.byteLength === 0 || tokenDer.byteLength > room) {
    fail('TOKEN_TOO_LARGE', `the token has ${tokenDer.byteLength} bytes; ${room} are reserved`);
  }
  const out = Buffer.from(prepared.bytes);
  // The token's hex, upper case as the library writes it, then the zeros that were reserved.
  out.write(Buffer.from(tokenDer).toString('hex').toUpperCase(), a + 1, 'latin1');
  return out;
}
