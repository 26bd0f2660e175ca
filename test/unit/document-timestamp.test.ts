// The document time stamp revision (pdf/document-timestamp.ts) on its own: prepared, then a token
// from an independent TSA (openssl) written in, every check of the hand-over exercised, and the
// reader (pdf/read-document-timestamps.ts) finding what was written.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DocumentTimestampError,
  embedDocumentTimestamp,
  prepareDocumentTimestamp,
  type PreparedTimestamp,
} from '../../src/pdf/document-timestamp.js';
import { readDocumentTimestamps } from '../../src/pdf/read-document-timestamps.js';
import { timeStampTokenFromReply, verifyTimeStampToken } from '../../src/pki/index.js';
import { createTestPki, type TestPki } from '../helpers/openssl-pki.js';
import { A4, encryptWithQpdf, makePdf } from '../helpers/pdfs.js';
import { qpdfCheckAsync } from '../helpers/validators.js';

let pki: TestPki;
let input: Buffer;
let prepared: PreparedTimestamp;
let token: Buffer;

beforeAll(async () => {
  pki = await createTestPki();
  input = await makePdf([A4]);
  prepared = await prepareDocumentTimestamp(input);
  token = timeStampTokenFromReply(await pki.timestamp(prepared.imprint, Uint8Array.from([7, 7, 7])));
}, 60_000);
afterAll(() => pki?.dispose());

const problemOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as DocumentTimestampError).problem;
  }
  return undefined;
};

describe('a document time stamp revision', () => {
  it('appends one revision whose /ByteRange covers all but the token, the input an exact prefix', async () => {
    const out = embedDocumentTimestamp(input, prepared, token);
    expect(out.subarray(0, input.length).equals(input)).toBe(true);
    expect(out.length).toBe(prepared.bytes.length);
    const [, a, b, c] = prepared.byteRange;
    expect(b + c).toBe(out.length);
    const covered = Buffer.concat([out.subarray(0, a), out.subarray(b)]);
    expect(createHash('sha256').update(covered).digest().equals(Buffer.from(prepared.imprint))).toBe(true);
    expect((await qpdfCheckAsync(out)).ok).toBe(true);

    const read = await readDocumentTimestamps(out);
    expect(read.totalRevisions).toBe(2);
    expect(read.timestamps).toHaveLength(1);
    const t = read.timestamps[0];
    expect(t).toMatchObject({ subFilter: 'ETSI.RFC3161', revision: 2, coversRevision: true });
    expect(Buffer.from(t.token).equals(token)).toBe(true); // the reserved zeros are cut off
    const v = await verifyTimeStampToken(t.token, { expectedImprint: t.imprint!, trustedRootsDer: [pki.rootDer] });
    expect(v.tsaSubject).toContain('Sello Test TSA');
  });

  it('refuses a token larger than the reserve, and a hand-over that is not what it prepared', () => {
    expect(problemOf(() => embedDocumentTimestamp(input, prepared, Buffer.alloc(20_000, 1)))).toBe('TOKEN_TOO_LARGE');
    const otherInput = Buffer.from(input);
    otherInput[10] ^= 1;
    expect(problemOf(() => embedDocumentTimestamp(otherInput, prepared, token))).toBe('INCONSISTENT');
    const moved: PreparedTimestamp = {
      ...prepared,
      byteRange: [0, prepared.byteRange[1] + 2, prepared.byteRange[2], prepared.byteRange[3]],
    };
    expect(problemOf(() => embedDocumentTimestamp(input, moved, token))).toBe('INCONSISTENT');
    const otherDigest: PreparedTimestamp = { ...prepared, imprint: new Uint8Array(32) };
    expect(problemOf(() => embedDocumentTimestamp(input, otherDigest, token))).toBe('INCONSISTENT');
  });

  it('refuses what is not a PDF, and an encrypted one', async () => {
    await expect(prepareDocumentTimestamp(Buffer.from('not a pdf'))).rejects.toMatchObject({ problem: 'UNREADABLE' });
    await expect(prepareDocumentTimestamp(encryptWithQpdf(input))).rejects.toMatchObject({
      problem: expect.stringMatching(/ENCRYPTED|UNREADABLE/),
    });
  });
});
