// The verifier against the published attacks on PDF signatures and against each structural rule,
// with valid controls, on files built here byte by byte (helpers/signed-pdfs.ts). Where pdfsig
// (poppler), an independent validator, is given the same file, the test records what it says: it
// checks the digest over the /ByteRange and nothing of what came after, so it accepts signature
// wrapping and every attack that appends a revision.
import { randomNonce } from '../../src/pki/tsa-request.js';
import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDF } from '@libpdf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPdf } from '../../src/pdf/sign-pdf.js';
import { PdfReadError, readSignatures } from '../../src/pdf/read-signatures.js';
import { type VerifiedPdf, VerifyLimitError, verifyPdf } from '../../src/pdf/verify/verify-pdf.js';
import { timeStampTokenFromReply } from '../../src/pki/tsa-verify.js';
import { anaAndBob } from '../helpers/ana-and-bob.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { HandPdf, stream } from '../helpers/signed-pdfs.js';
import { A4, makePdf, pdfShownText } from '../helpers/pdfs.js';
import { pdfsig } from '../helpers/validators.js';
import { xrefLoops } from '../helpers/xref-loops.js';

let pki: TestPki;
let ana: TestSigner;
let bob: TestSigner;
let rootPem: string;

beforeAll(async () => {
  ({ pki, ana, bob, rootPem } = await anaAndBob());
}, 60_000);
afterAll(() => pki?.dispose());

const verify = (bytes: Uint8Array): Promise<VerifiedPdf> => verifyPdf(bytes, { trustedRootsDer: [pki.rootDer] });
const summary = (r: VerifiedPdf) =>
  r.signatures.map((s) => ({ field: s.fieldName, valid: s.validSignature, rule: s.failedRule, modified: s.modifiedAfterSigning }));
const attackNames = (r: VerifiedPdf) => r.attacks.map((a) => a.name);

async function signedOnce(extra: Parameters<HandPdf['sign']>[1] extends infer O ? Partial<O> : never = {}) {
  return HandPdf.base().sign(pki, { signer: ana, field: 'Ana', timestamp: true, ...extra });
}

describe('valid controls', () => {
  it('one signature: valid, intact, B-T', async () => {
    const pdf = await signedOnce();
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: false }]);
    expect(r.documentIntegrity).toBe('intact');
    expect(r.signatures[0]).toMatchObject({ level: 'B-T', timestampValid: true, trusted: true, coversDocument: true });
    expect(r.attacks).toEqual([]);
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => s.valid),
      checked.output,
    ).toEqual([true]);
  });

  it('two signatures in prepared fields: both valid, intact; the first allows the second', async () => {
    const prepared = (name: string, y: number) =>
      `<< /FT /Sig /T (${name}) /Type /Annot /Subtype /Widget /Rect [50 ${y} 250 ${y + 60}] /P 3 0 R /F 4 >>`;
    const base = HandPdf.base([prepared('A', 100), prepared('B', 200)]); // objects 8 and 9;
    base.update({
      6: base.edit(6, '/Fields [7 0 R]', '/Fields [7 0 R 8 0 R 9 0 R] /SigFlags 3'),
      3: base.edit(3, '/Annots [7 0 R]', '/Annots [7 0 R 8 0 R 9 0 R]'),
    });
    await base.sign(pki, { signer: ana, field: 'A', preparedField: 8, timestamp: true });
    await base.sign(pki, { signer: bob, field: 'B', preparedField: 9, timestamp: true });
    const r = await verify(base.bytes);
    expect(summary(r)).toEqual([
      { field: 'A', valid: true, rule: null, modified: false },
      { field: 'B', valid: true, rule: null, modified: false },
    ]);
    expect(r.documentIntegrity).toBe('intact');
    expect(new Set(r.signatures[0].changes.map((c) => c.category))).toEqual(new Set(['signature']));
    const checked = await pdfsig(base.bytes, rootPem);
    expect(
      checked.signatures.map((s) => s.valid),
      checked.output,
    ).toEqual([true, true]);
  });

  it('a certification signature at level 2 followed by form filling: allowed', async () => {
    const pdf = await signedOnce({ docMdp: 2 });
    pdf.update({
      7: pdf.edit(7, '/T (name)', '/T (name) /V (Ana Garcia) /AP << /N 20 0 R >>'),
      20: stream('BT /F1 10 Tf 2 5 Td (Ana Garcia) Tj ET', '/Type /XObject /Subtype /Form /BBox [0 0 200 20] '),
    });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: false }]);
    expect(r.signatures[0].changes.map((c) => [c.category, c.allowed])).toEqual([
      ['form-fill', true],
      ['form-fill', true],
    ]);
    expect(r.documentIntegrity).toBe('intact');
    // pdfsig agrees it is valid, and only says "not total document signed" of the filling.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => [s.valid, s.totalDocumentSigned]),
      checked.output,
    ).toEqual([[true, false]]);
  });

  it('a certification signature at level 1 refuses the same form filling', async () => {
    const pdf = await signedOnce({ docMdp: 1 });
    pdf.update({ 7: pdf.edit(7, '/T (name)', '/T (name) /V (Eve)') });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: true }]);
    expect(r.signatures[0].changes).toMatchObject([{ objectNumber: 7, category: 'form-fill', allowed: false }]);
  });

  it('a field locked by the signature (/Lock) may not be filled in after it', async () => {
    const pdf = await signedOnce({ extraField: '/Lock << /Type /SigFieldLock /Action /Include /Fields [(name)] >> ' });
    pdf.update({ 7: pdf.edit(7, '/T (name)', '/T (name) /V (Eve)') });
    const r = await verify(pdf.bytes);
    expect(summary(r)[0].modified).toBe(true);
  });
});

/** pdfsig's verdict (Signature is Valid) on each /ByteRange rule's fixture. */
const PDFSIG_BYTE_RANGE: Record<string, boolean> = {
  'byte-range-not-from-zero': false,
  'byte-range-overlapping': false,
  'byte-range-past-end': false,
  'byte-range-short-of-revision': false,
};

describe('structural rules: each one makes the signature invalid and names the rule', () => {
  /** The signed file with its /ByteRange rewritten (same width, so no offset moves). */
  function withByteRange(bytes: Buffer, make: (br: number[]) => number[]): Buffer {
    const text = bytes.toString('latin1');
    const m = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\]/.exec(text)!;
    const next = `/ByteRange [${make(m.slice(1, 5).map(Number)).join(' ')}]`;
    const out = Buffer.from(bytes);
    out.write(next.padEnd(m[0].length, ' '), m.index, 'latin1');
    return out;
  }
  const cases: [string, (b: Buffer) => Buffer, string][] = [
    ['not from 0', (b) => withByteRange(b, ([, a, x, c]) => [1, a - 1, x, c]), 'byte-range-not-from-zero'],
    ['overlapping', (b) => withByteRange(b, ([, a, x, c]) => [0, a, a - 10, c + (x - a) + 10]), 'byte-range-overlapping'],
    ['past the end', (b) => withByteRange(b, ([, a, x, c]) => [0, a, x, c + 100]), 'byte-range-past-end'],
    ['ending short of the file', (b) => withByteRange(b, ([, a, x, c]) => [0, a, x, c - 20]), 'byte-range-short-of-revision'],
  ];
  // What pdfsig answers for each, asserted as it is (see PDFSIG_BYTE_RANGE below).
  for (const [name, mutate, rule] of cases) {
    it(`/ByteRange ${name}`, async () => {
      const pdf = await signedOnce();
      const bytes = mutate(pdf.bytes);
      const r = await verify(bytes);
      expect(summary(r)).toMatchObject([{ valid: false, rule }]);
      expect(r.documentIntegrity).toBe('invalid');
      const checked = await pdfsig(bytes, rootPem);
      expect(
        checked.signatures.map((s) => s.valid),
        checked.output,
      ).toEqual([PDFSIG_BYTE_RANGE[rule]]);
    });
  }

  it('/ByteRange malformed: five numbers, or not integers', async () => {
    const pdf = await signedOnce();
    for (const make of [(br: number[]) => [...br, 0], ([s0, a, b, c]: number[]) => [s0, `${a}.5`, b, c]] as ((
      br: number[],
    ) => (number | string)[])[]) {
      const bytes = withByteRange(pdf.bytes, make as (br: number[]) => number[]);
      const r = await verify(bytes);
      expect(summary(r)).toMatchObject([{ valid: false, rule: 'byte-range-malformed' }]);
      expect(attackNames(r)).toEqual(['universal-signature-forgery']);
    }
  });

  it('/ByteRange given twice', async () => {
    const pdf = await signedOnce({ extraSigDict: '/ByteRange [0 1 2 3] ' });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'byte-range-duplicated' }]);
    // pdfsig is wrong: it reads the last /ByteRange, finds the digest right and answers "Signature
    // is Valid." and "Total document signed"; another reader may take the first.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => [s.valid, s.totalDocumentSigned]),
      checked.output,
    ).toEqual([[true, true]]);
  });

  /** The signed file with bytes written into its /Contents hex string (excluded from the range: no digest moves). */
  function withContents(bytes: Buffer, at: (hex: string) => number, text: string): Buffer {
    const s = bytes.toString('latin1');
    const a = s.indexOf('/Contents <') + '/Contents <'.length;
    const hex = s.slice(a, s.indexOf('>', a));
    const out = Buffer.from(bytes);
    out.write(text, a + at(hex), 'latin1');
    return out;
  }
  /** Hex digits of the DER CMS at the start of a /Contents hex string (definite long form). */
  const derHexLength = (hex: string) => {
    const n = Number.parseInt(hex.slice(2, 4), 16) & 0x7f;
    return (2 + n + Number.parseInt(hex.slice(4, 4 + 2 * n), 16)) * 2;
  };

  it('/Contents with data after the CMS other than zero padding: valid, with a warning (no signed byte depends on it)', async () => {
    const pdf = await signedOnce();
    const bytes = withContents(pdf.bytes, (hex) => derHexLength(hex) + 40, 'DEADBEEF');
    const r = await verify(bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: false }]);
    expect(r.signatures[0].warnings).toEqual([{ rule: 'contents-trailing-data', message: expect.stringContaining('after the CMS') }]);
    expect(r.documentIntegrity).toBe('intact');
    expect((await verify(pdf.bytes)).signatures[0].warnings).toEqual([]);
    // Text written right after the CMS, then zeros, as a writer leaves it in the reserved space.
    const text = Buffer.from('left over by the writer: 0123456789', 'latin1').toString('hex').toUpperCase();
    const glued = await verify(withContents(pdf.bytes, (hex) => derHexLength(hex), text));
    expect(summary(glued)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: false }]);
    expect(glued.signatures[0].warnings.map((w) => w.rule)).toEqual(['contents-trailing-data']);
    // pdfsig reads the CMS and ignores what follows it: "Signature is Valid."
    const checked = await pdfsig(bytes, rootPem);
    expect(
      checked.signatures.map((s) => s.valid),
      checked.output,
    ).toEqual([true]);
  });

  it('/Contents that is not DER (an indefinite BER length)', async () => {
    const pdf = await signedOnce();
    const bytes = withContents(pdf.bytes, () => 0, '3080');
    const r = await verify(bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'contents-not-der' }]);
    expect(attackNames(r)).toEqual(['universal-signature-forgery']);
  });

  it('a CMS with two SignerInfos', async () => {
    // Without a time stamp: the CMS writer puts one SignerInfo back when it embeds a token.
    const r = await verify((await signedOnce({ twoSigners: true, timestamp: false })).bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'cms-signer-count' }]);
    expect(r.documentIntegrity).toBe('invalid');
  });

  it('the signing-certificate-v2 attribute names another certificate than the one presented (same key)', async () => {
    // The substitution of RFC 5035 §1: a second certificate for Ana's key, under another name. The
    // signature value verifies with it; only the signed attribute tells which certificate she meant.
    const twin = await pki.reissueSigner(ana, 'Ana Impostora');
    const pdf = await signedOnce({ presentAs: twin });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'signing-certificate-mismatch' }]);
    expect(r.signatures[0].signer?.commonName).toBe('Ana Impostora');
    // pdfsig does not check the signing-certificate attribute: "Signature is Valid." for a
    // certificate the signer never named.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => [s.valid, s.commonName]),
      checked.output,
    ).toEqual([[true, 'Ana Impostora']]);
  });

  it('the signature dictionary redefined in a later revision over the old signed bytes: misplaced', async () => {
    const pdf = await signedOnce();
    const text = pdf.bytes.toString('latin1');
    const start = text.indexOf('\n8 0 obj\n') + '\n8 0 obj\n'.length;
    const original = text.slice(start, text.indexOf('\nendobj', start)).replace('/M (D:20261123100000Z)', '/M (D:20200101000000Z)');
    pdf.update({ 20: original, 9: pdf.edit(9, '/V 8 0 R', '/V 20 0 R') });
    const r = await verify(pdf.bytes);
    // The field now names dictionary 20 (same /ByteRange and /Contents, another date), whose gap is
    // another object's /Contents; the dictionary that was signed is still reported, read from
    // revision 2, valid but modified after signing.
    const rows = r.signatures.map((x) => [x.fieldName, x.dictionaryNumber, x.validSignature, x.failedRule, x.modifiedAfterSigning]);
    expect(rows).toEqual([
      ['Ana', 20, false, 'signature-dictionary-misplaced', true],
      ['Ana', 8, true, null, true],
    ]);
    expect(r.signatures[1].changes.filter((c) => !c.allowed).map((c) => c.description)).toEqual([
      'signature Ana taken out of the form: the document as it ends no longer shows it',
      'signature field Ana changed (/V)',
    ]);
    expect(r.documentIntegrity).toBe('invalid');
    expect(attackNames(r)).toContain('signature-wrapping');
  });

  it('adbe.pkcs7.sha1 is refused: its content is encapsulated, not detached', async () => {
    const pdf = await signedOnce({ subFilter: 'adbe.pkcs7.sha1', encapsulateSha1: true });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'cms-not-detached' }]);
    expect(r.signatures[0].problem).toMatch(/adbe\.pkcs7\.sha1/);
    // The fixture is a genuine one: openssl verifies the CMS and its content is the SHA-1 of the ranges.
    const text = pdf.bytes.toString('latin1');
    const [a, b] = /\/ByteRange \[0 (\d+) (\d+)/.exec(text)!.slice(1, 3).map(Number);
    const cms = Buffer.from(text.slice(a + 1, b - 1), 'hex');
    writeFileSync(join(pki.dir, 'sha1.p7'), cms);
    const content = execFileSync(
      'openssl',
      ['cms', '-verify', '-inform', 'DER', '-in', 'sha1.p7', '-binary', '-CAfile', 'root.pem', '-purpose', 'any'],
      {
        cwd: pki.dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const ranges = Buffer.concat([pdf.bytes.subarray(0, a), pdf.bytes.subarray(b)]);
    expect(content.equals(createHash('sha1').update(ranges).digest())).toBe(true);
    // pdfsig refuses it too, for another reason: "Digest Mismatch.", as it digests the ranges with
    // SHA-256 as for a detached signature and compares that with the messageDigest.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(checked.signatures.map((s) => s.valid)).toEqual([false]);
    expect(checked.output).toContain('Digest Mismatch');
  });

  it('/Contents zeroed: a universal signature forgery', async () => {
    const pdf = await signedOnce();
    const text = pdf.bytes.toString('latin1');
    const a = text.indexOf('/Contents <') + 11;
    const bytes = Buffer.from(pdf.bytes);
    bytes.write('0'.repeat(text.indexOf('>', a) - a), a, 'latin1');
    const r = await verify(bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'contents-empty' }]);
    expect(attackNames(r)).toEqual(['universal-signature-forgery']);
  });

  it('/Contents empty: a universal signature forgery', async () => {
    const r = await verify((await signedOnce({ rawContents: '' })).bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'contents-empty' }]);
    expect(attackNames(r)).toEqual(['universal-signature-forgery']);
    const checked = await pdfsig((await signedOnce({ rawContents: '' })).bytes, rootPem);
    expect(checked.signatures.every((s) => !s.valid)).toBe(true);
  });

  it('no /ByteRange and no /Contents: a universal signature forgery', async () => {
    const pdf = HandPdf.base();
    pdf.update({
      8: '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /M (D:20261123100000Z) >>',
      9: '<< /FT /Sig /T (Forged) /V 8 0 R /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /P 3 0 R >>',
      6: pdf.edit(6, '/Fields [7 0 R]', '/Fields [7 0 R 9 0 R] /SigFlags 3'),
    });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toMatchObject([{ field: 'Forged', valid: false, rule: 'byte-range-missing' }]);
    expect(attackNames(r)).toEqual(['universal-signature-forgery']);
  });

  it('messageDigest that is not the digest of the ranges', async () => {
    const pdf = await signedOnce({ wrongDigest: true });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'message-digest-mismatch' }]);
    // pdfsig agrees: "Digest Mismatch."
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(checked.signatures.map((s) => s.valid)).toEqual([false]);
    expect(checked.output).toContain('Digest Mismatch');
  });

  it('a certificate whose key did not make the signature', async () => {
    const pdf = await signedOnce({ presentAs: bob });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'signature-value-invalid' }]);
    // pdfsig agrees: "Signature is Invalid."
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => s.valid),
      checked.output,
    ).toEqual([false]);
  });

  it('a CMS that encapsulates content (not detached)', async () => {
    const r = await verify((await signedOnce({ encapsulate: Buffer.from('Pay 9000 EUR to Eve') })).bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'cms-not-detached' }]);
  });

  it('a /SubFilter this verifier does not know', async () => {
    const r = await verify((await signedOnce({ subFilter: 'adbe.x509.rsa_sha1' })).bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'unknown-subfilter' }]);
  });

  it('one byte changed inside the signed range', async () => {
    const pdf = await signedOnce();
    const bytes = Buffer.from(pdf.bytes);
    const at = bytes.indexOf('Pay 100');
    bytes.write('Pay 900', at, 'latin1');
    const r = await verify(bytes);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'message-digest-mismatch' }]);
    const checked = await pdfsig(bytes, rootPem);
    expect(checked.signatures.map((s) => s.valid)).toEqual([false]);
  });
});

describe('after signing', () => {
  it('incremental saving: a revision that rewrites the page content', async () => {
    const pdf = (await signedOnce()).update({ 4: stream('BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET') });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: true }]);
    expect(r.documentIntegrity).toBe('modified');
    expect(r.signatures[0].changes.filter((c) => !c.allowed)).toMatchObject([
      { revision: 3, objectNumber: 4, kind: 'changed', category: 'other' },
    ]);
    expect(attackNames(r)).toEqual(['incremental-saving']);
    // pdfsig: "Signature is Valid", only "not total document signed" hints at the appended revision.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(checked.signatures.map((s) => [s.valid, s.totalDocumentSigned])).toEqual([[true, false]]);
  });
});

describe('attacks after signing', () => {
  const EVIL = 'BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET';

  it('incremental saving without a cross-reference section: bytes appended after %%EOF', async () => {
    const pdf = await signedOnce();
    const bytes = Buffer.concat([pdf.bytes, Buffer.from(`4 0 obj\n${stream(EVIL).toString('latin1')}\nendobj\n`, 'latin1')]);
    const r = await verify(bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: true }]);
    expect(attackNames(r)).toEqual(['incremental-saving']);
  });

  it('signature wrapping: the second signed part moved to the end, new objects in the gap', async () => {
    const pdf = await signedOnce({ contentsFirst: true, extraField: `/TU (${'x'.repeat(400)}) ` });
    const original = pdf.bytes;
    const text = original.toString('latin1');
    const [a, b, c] = /\/ByteRange \[0 (\d+) (\d+) (\d+)\]/.exec(text)!.slice(1, 4).map(Number);
    const x = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)![1]);
    const lastXref = text.slice(x, text.indexOf('startxref', x));
    const evil = `4 0 obj\n${stream(EVIL).toString('latin1')}\nendobj\n`;
    const head = (bPrime: number) =>
      ` /ByteRange [0 ${String(a).padStart(10, '0')} ${String(bPrime).padStart(10, '0')} ${String(c).padStart(10, '0')}] >>\nendobj\n`;
    const room = x - b - head(0).length - evil.length;
    expect(room).toBeGreaterThan(0);
    const evilAt = b + head(0).length;
    const xrefLen = (shift: number) =>
      lastXref
        .replace(
          /^(\d{10}) 00000 n /gm,
          (_, off) => `${String(Number(off) >= b ? Number(off) + shift : Number(off)).padStart(10, '0')} 00000 n `,
        )
        .replace('trailer', `4 1\n${String(evilAt).padStart(10, '0')} 00000 n \ntrailer`);
    const midLength = x - b + xrefLen(0).length;
    const mid = head(b + midLength) + evil + ' '.repeat(room) + xrefLen(midLength);
    expect(mid.length).toBe(midLength);
    const wrapped = Buffer.concat([original.subarray(0, b), Buffer.from(mid, 'latin1'), original.subarray(b, b + c)]);
    const r = await verify(wrapped);
    expect(summary(r)).toMatchObject([{ valid: false, rule: 'contents-gap-mismatch' }]);
    expect(attackNames(r)).toEqual(['signature-wrapping']);
    expect(r.documentIntegrity).toBe('invalid');
    // What a reader shows now (qpdf, an independent reader): the attacker's text.
    expect(pdfShownText(wrapped)).toContain('Pay 9000 EUR to Eve');
    // pdfsig is wrong here: it checks the digest over the ranges, finds it right, and answers
    // "Signature is Valid." and "Certificate is Trusted."; only "Not total document signed" hints
    // at anything, which it also says of every document signed twice.
    const checked = await pdfsig(wrapped, rootPem);
    expect(
      checked.signatures.map((s) => [s.valid, s.trusted, s.totalDocumentSigned]),
      checked.output,
    ).toEqual([[true, true, false]]);
  });

  it('shadow hide: an overlay shown when signed is taken away after', async () => {
    const pdf = HandPdf.base();
    pdf.update({
      8: stream('1 1 1 rg 40 740 300 40 re f BT /F1 18 Tf 50 760 Td (Pay 100 EUR to Ana) Tj ET'),
      3: pdf.edit(3, '/Contents 4 0 R', '/Contents [4 0 R 8 0 R]'),
    });
    await pdf.sign(pki, { signer: ana, field: 'Ana', timestamp: true });
    pdf.update({ 3: pdf.edit(3, '/Contents [4 0 R 8 0 R]', '/Contents 4 0 R') });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: true }]);
    expect(attackNames(r)).toEqual(['shadow-hide']);
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(checked.signatures.map((s) => s.valid)).toEqual([true]); // pdfsig: valid, "not total document signed"
  });

  it('shadow hide by overwriting: the covering content redefined as an empty stream', async () => {
    const pdf = HandPdf.base();
    pdf.update({ 8: stream('1 1 1 rg 40 740 300 40 re f'), 3: pdf.edit(3, '/Contents 4 0 R', '/Contents [4 0 R 8 0 R]') });
    await pdf.sign(pki, { signer: ana, field: 'Ana', timestamp: true });
    pdf.update({ 8: stream('') });
    const r = await verify(pdf.bytes);
    expect(summary(r)[0].modified).toBe(true);
    expect(attackNames(r)).toEqual(['shadow-hide']);
  });

  it('shadow replace: the page pointed at content that was in the signed file but not shown', async () => {
    const pdf = HandPdf.base();
    pdf.update({ 8: stream(EVIL) });
    await pdf.sign(pki, { signer: ana, field: 'Ana', timestamp: true });
    pdf.update({ 3: pdf.edit(3, '/Contents 4 0 R', '/Contents 8 0 R') });
    const r = await verify(pdf.bytes);
    expect(summary(r)[0].modified).toBe(true);
    expect(attackNames(r)).toEqual(['shadow-replace']);
    expect(r.signatures[0].changes.filter((c) => !c.allowed)).toMatchObject([{ objectNumber: 3, kind: 'changed', category: 'other' }]);
    // pdfsig is wrong: "Signature is Valid." while the page shows the text hidden when signed.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => [s.valid, s.totalDocumentSigned]),
      checked.output,
    ).toEqual([[true, false]]);
  });

  it('shadow hide-and-replace: the catalog pointed at a whole page tree hidden in the signed file', async () => {
    const pdf = HandPdf.base();
    pdf.update({
      8: '<< /Type /Pages /Kids [9 0 R] /Count 1 >>',
      9: '<< /Type /Page /Parent 8 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 10 0 R >>',
      10: stream(EVIL),
    });
    await pdf.sign(pki, { signer: ana, field: 'Ana', timestamp: true });
    pdf.update({ 1: pdf.edit(1, '/Pages 2 0 R', '/Pages 8 0 R') });
    const r = await verify(pdf.bytes);
    expect(summary(r)[0].modified).toBe(true);
    expect(attackNames(r)).toEqual(['shadow-hide-and-replace']);
    // pdfsig is wrong: "Signature is Valid." for a document whose every page was replaced.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => [s.valid, s.totalDocumentSigned]),
      checked.output,
    ).toEqual([[true, false]]);
  });

  const freeText =
    '<< /Type /Annot /Subtype /FreeText /Rect [40 740 400 790] /Contents (Pay 9000 EUR to Eve) /DA (/Helv 18 Tf 0 g) /P 3 0 R >>';

  it('evil annotation: a FreeText over the text of a document certified at level 2', async () => {
    const pdf = await signedOnce({ docMdp: 2 });
    pdf.update({ 20: freeText, 3: pdf.edit(3, '/Annots [', '/Annots [20 0 R ') });
    const r = await verify(pdf.bytes);
    expect(summary(r)[0].modified).toBe(true);
    expect(attackNames(r)).toEqual(['evil-annotation']);
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(checked.signatures.map((s) => s.valid)).toEqual([true]);
  });

  it('the same annotation is allowed by a certification at level 3', async () => {
    const pdf = await signedOnce({ docMdp: 3 });
    pdf.update({ 20: freeText, 3: pdf.edit(3, '/Annots [', '/Annots [20 0 R ') });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: false }]);
    expect(r.documentIntegrity).toBe('intact');
  });

  it('an annotation after an approval signature is a modification', async () => {
    const pdf = await signedOnce();
    pdf.update({ 20: freeText, 3: pdf.edit(3, '/Annots [', '/Annots [20 0 R ') });
    const r = await verify(pdf.bytes);
    expect(summary(r)[0].modified).toBe(true);
    expect(attackNames(r)).toEqual(['incremental-saving']);
  });

  it('sneaky signature: a signature field drawn over the page with no valid signature', async () => {
    const pdf = await signedOnce({ docMdp: 2 });
    pdf.update({
      20: '<< /FT /Sig /T (Sneaky) /Type /Annot /Subtype /Widget /Rect [40 740 400 790] /P 3 0 R /F 4 /AP << /N 21 0 R >> >>',
      21: stream(
        `1 1 1 rg 0 0 360 50 re f ${EVIL.replace('50 760', '10 20')}`,
        '/Type /XObject /Subtype /Form /BBox [0 0 360 50] /Resources << /Font << /F1 5 0 R >> >> ',
      ),
      6: pdf.edit(6, '/Fields [', '/Fields [20 0 R '),
      3: pdf.edit(3, '/Annots [', '/Annots [20 0 R '),
    });
    const r = await verify(pdf.bytes);
    expect(summary(r)[0].modified).toBe(true);
    expect(attackNames(r)).toEqual(['sneaky-signature']);
    // pdfsig is wrong: Ana's signature "is Valid."; of the sneaky field, which draws over her text
    // and holds no signature, it says nothing that a reader would take for a warning.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.filter((s) => s.field === 'Ana').map((s) => s.valid),
      checked.output,
    ).toEqual([true]);
    expect(checked.signatures.some((s) => s.field === 'Sneaky' && s.valid)).toBe(false);
  });
});

describe('long-term validation and documents signed by Sello', () => {
  /** A CRL of `ca` (its .pem and .key in the test PKI's directory), made by openssl ca -gencrl. */
  function crl(ca: 'root' | 'issuing'): Uint8Array {
    const dir = pki.dir;
    writeFileSync(join(dir, `${ca}-index.txt`), '');
    writeFileSync(join(dir, `${ca}-crlnumber`), '01\n');
    writeFileSync(
      join(dir, `${ca}-crl.cnf`),
      `[ ca ]\ndefault_ca = d\n[ d ]\ndatabase = ${ca}-index.txt\ncrlnumber = ${ca}-crlnumber\ndefault_md = sha256\ndefault_crl_days = 30\n`,
    );
    execFileSync(
      'openssl',
      ['ca', '-gencrl', '-config', `${ca}-crl.cnf`, '-keyfile', `${ca}.key`, '-cert', `${ca}.pem`, '-out', `${ca}.crl.pem`],
      { cwd: dir, stdio: 'pipe' },
    );
    execFileSync('openssl', ['crl', '-in', `${ca}.crl.pem`, '-outform', 'DER', '-out', `${ca}.crl`], { cwd: dir, stdio: 'pipe' });
    return new Uint8Array(readFileSync(join(dir, `${ca}.crl`)));
  }

  it('B-LTA: a DSS with the chain and its CRLs, then a document time stamp (@libpdf/core addArchivalData)', async () => {
    const signed = await signedOnce();
    const crls = { root: crl('root'), issuing: crl('issuing') };
    const issuingSubject = new X509Certificate(pki.issuingCaDer).subject;
    const tsa = { timestamp: async (digest: Uint8Array) => timeStampTokenFromReply(await pki.timestamp(digest, randomNonce())) };
    const pdf = await PDF.load(signed.bytes);
    const { bytes } = await pdf.addArchivalData({
      timestampAuthority: tsa,
      revocationProvider: {
        getOCSP: async () => null,
        getCRL: async (cert) => (new X509Certificate(cert).issuer === issuingSubject ? crls.issuing : crls.root),
      },
    });
    const r = await verify(bytes);
    expect(r.signatures.map((s) => [s.fieldName, s.subFilter, s.validSignature, s.modifiedAfterSigning, s.level])).toEqual([
      ['Ana', 'ETSI.CAdES.detached', true, false, 'B-LTA'],
      [r.signatures[1].fieldName, 'ETSI.RFC3161', true, false, 'B-LT'],
    ]);
    expect(r.signatures[0].ltvEmbedded).toBe(true);
    expect(new Set(r.signatures[0].changes.map((c) => c.category))).toEqual(new Set(['dss', 'timestamp', 'signature']));
    expect(r.documentIntegrity).toBe('intact');
    // pdfsig validates the signature but not document time stamps: "Unable to validate this type
    // of signature" (Signature Type: unknown); it has no notion of the DSS or of B-LT/B-LTA.
    const checked = await pdfsig(bytes, rootPem);
    expect(
      checked.signatures.map((s) => s.valid),
      checked.output,
    ).toEqual([true, false]);
    expect(checked.output).toContain('Unable to validate this type of signature');
  });

  it('the same signature without the DSS stays B-T', async () => {
    const r = await verify((await signedOnce()).bytes);
    expect(r.signatures[0]).toMatchObject({ level: 'B-T', ltvEmbedded: false });
    expect((await verify((await signedOnce({ timestamp: false })).bytes)).signatures[0]).toMatchObject({
      level: 'B-B',
      timestampValid: false,
    });
  });

  it('a document signed twice by Sello (signPdf): both valid, nothing after either that they do not allow', async () => {
    const T = new Date();
    const common = (signer: TestSigner, pdf: Uint8Array, x: number) => ({
      pdf,
      fieldName: `Sello-${signer.cn}`,
      boxes: [{ page: 0, rect: { lx: x, ly: 60, tx: x + 200, ty: 130 } }],
      appearance: { signerName: signer.cn, signedAt: T, authorityLabel: `Email link: ${signer.email}` },
      signer,
      timestamp: pki.timestamp,
      trustedRootsDer: [pki.rootDer],
      now: () => T,
    });
    const first = (await signPdf(common(ana, await makePdf([A4, A4]), 60))).pdf;
    const second = (await signPdf(common(bob, first, 320))).pdf;
    const r = await verify(second);
    expect(summary(r)).toEqual([
      { field: 'Sello-Ana García', valid: true, rule: null, modified: false },
      { field: 'Sello-Bob Smith', valid: true, rule: null, modified: false },
    ]);
    expect(r.signatures.map((s) => s.level)).toEqual(['B-T', 'B-T']);
    expect(r.documentIntegrity).toBe('intact');
    expect(r.signatures[0].changes.every((c) => c.allowed)).toBe(true);
  });
});

describe('sneaky signatures and trust', () => {
  const visible = (y: number): [number, number, number, number] => [50, y, 250, y + 60];
  const BLUE_BOX = stream('0 0 1 rg 0 0 200 60 re f', '/Type /XObject /Subtype /Form /BBox [0 0 200 60] ');

  it('a later visible signature by a signer the verifier does not trust is a sneaky signature for a trusted one', async () => {
    const other = await createTestPki();
    try {
      const eve = await other.issueSigner({ cn: 'Eve', email: 'eve@example.com' });
      const pdf = await signedOnce({ docMdp: 2 });
      // Eve's appearance, a blue box over the text; her CAdES chains to her own root, which the
      // verifier does not trust (it trusts only Ana's).
      pdf.update({ 30: stream('0 0 1 rg 0 0 200 60 re f', '/Type /XObject /Subtype /Form /BBox [0 0 200 60] ') });
      await pdf.sign(other, { signer: eve, field: 'Eve', rect: visible(700), extraField: '/AP << /N 30 0 R >> ' });
      const r = await verify(pdf.bytes);
      expect(r.signatures.map((x) => [x.fieldName, x.validSignature, x.trusted, x.modifiedAfterSigning])).toEqual([
        ['Ana', true, true, true],
        ['Eve', true, false, false],
      ]);
      expect(attackNames(r)).toEqual(['sneaky-signature']);
    } finally {
      other.dispose();
    }
  });

  it('two visible signatures, neither trusted by the verifier: neither is modified (nothing tells them apart)', async () => {
    // Ana's appearance is hers when she signs: one drawn on her field after it would be a change.
    const pdf = HandPdf.base().update({ 8: BLUE_BOX });
    await pdf.sign(pki, { signer: ana, field: 'Ana', rect: visible(100), timestamp: true, extraField: '/AP << /N 8 0 R >> ' });
    await pdf.sign(pki, { signer: bob, field: 'Bob', rect: visible(200), extraField: '/AP << /N 8 0 R >> ' });
    const r = await verifyPdf(pdf.bytes, { trustedRootsDer: [pki.rogueRootDer] });
    expect(r.signatures.map((x) => [x.validSignature, x.trusted, x.modifiedAfterSigning])).toEqual([
      [true, false, false],
      [true, false, false],
    ]);
    expect(r.documentIntegrity).toBe('intact');
  });
});

describe('bounded work on hostile files', () => {
  it('more revisions than the verifier reads: VerifyLimitError (a 422 through the API)', async () => {
    const pdf = HandPdf.base();
    for (let i = 0; i < 101; i++) {
      pdf.update({ 8: `<< /N ${i} >>` });
    }
    await expect(verify(pdf.bytes)).rejects.toBeInstanceOf(VerifyLimitError);
  });

  it('objects nested deeper than the verifier follows: VerifyLimitError, not a stack overflow', async () => {
    const pdf = await signedOnce();
    pdf.update({ 8: `${'['.repeat(200)}${']'.repeat(200)}`, 1: pdf.edit(1, /^<</, '<< /Deep 8 0 R') });
    await expect(verify(pdf.bytes)).rejects.toBeInstanceOf(VerifyLimitError);
  });
});

describe('cross-reference loops: a read error or a bounded report, never a hang', () => {
  it('each loop fixture ends in a read error or a bounded report', async () => {
    const signed = await signedOnce();
    const seen: string[] = [];
    for (const loop of xrefLoops(signed)) {
      const outcome = await verify(loop.bytes).then(
        (r) => r,
        (e: unknown) => e as Error,
      );
      if (loop.expect === 'refused') {
        // The file as it ends names a section that names itself: the reader stops at the loop and
        // finds no catalog in what it read.
        expect(outcome, loop.name).toBeInstanceOf(PdfReadError);
      } else {
        const r = outcome as VerifiedPdf;
        // The middle revision is unreadable as written: a change no signature allows.
        expect(summary(r), loop.name).toEqual([{ field: 'Ana', valid: true, rule: null, modified: true }]);
        expect(r.signatures[0].changes.filter((c) => !c.allowed).map((c) => c.description)).toContain(
          'revision 3 cannot be read without rebuilding its cross-references',
        );
        expect(r.documentIntegrity).toBe('modified');
      }
      seen.push(loop.name);
    }
    expect(seen).toHaveLength(4);
  });
});

describe('signatures of every revision', () => {
  it('a later revision that takes every signature field out of the form: the signature is still reported, modified', async () => {
    const pdf = await signedOnce();
    // Revision 3: the field and its widget gone from the form and the page, and the text changed.
    pdf.update({
      6: '<< /Fields [7 0 R] /DA (/Helv 0 Tf 0 g) >>',
      3: pdf.edit(3, '/Annots [9 0 R 7 0 R]', '/Annots [7 0 R]'),
      4: stream('BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET'),
    });
    // What the final form alone shows: no signature at all.
    expect((await readSignatures(pdf.bytes, { trustedRootsDer: [pki.rootDer] })).signatures).toEqual([]);
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: true }]);
    expect(r.signatures[0]).toMatchObject({ revision: 2, downstream: true, dictionaryNumber: 8 });
    expect(r.signatures[0].changes.filter((c) => !c.allowed)).toContainEqual(
      expect.objectContaining({
        revision: 3,
        objectNumber: 8,
        kind: 'removed',
        category: 'other',
        description: 'signature Ana taken out of the form: the document as it ends no longer shows it',
      }),
    );
    expect(r.documentIntegrity).toBe('modified');
    expect(r.attacks.map((a) => a.field)).toEqual(['Ana']);
    // pdfsig is wrong: it reads the final form only and finds no signature in the file.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(checked.signatures).toEqual([]);
    expect(checked.output).toContain('does not contain any signatures');
  });

  it('a signature field kept but its signature dictionary freed: reported from the revision that held it', async () => {
    const pdf = await signedOnce();
    pdf.update({ 9: pdf.edit(9, '/V 8 0 R ', ''), 8: null });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: true }]);
    expect(r.documentIntegrity).toBe('modified');
  });
});

describe('metadata after signing (allowed: docs/api.md)', () => {
  it('the information dictionary updated after signing: allowed, named metadata', async () => {
    const pdf = await signedOnce();
    pdf.update({ 20: '<< /Title (Contrato) /ModDate (D:20261124100000Z) /Producer (another writer) >>' }, '/Info 20 0 R ');
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: false }]);
    expect(r.signatures[0].changes).toMatchObject([{ objectNumber: 20, kind: 'added', category: 'metadata', allowed: true }]);
    expect(r.documentIntegrity).toBe('intact');
  });

  it('XMP metadata added to the catalog after signing: allowed', async () => {
    const pdf = await signedOnce();
    pdf.update({
      1: pdf.edit(1, /^<</, '<< /Metadata 20 0 R'),
      20: stream('<x:xmpmeta xmlns:x="adobe:ns:meta/"/>', '/Type /Metadata /Subtype /XML '),
    });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null, modified: false }]);
    expect(r.signatures[0].changes.map((c) => [c.objectNumber, c.category, c.allowed])).toEqual([
      [1, 'metadata', true],
      [20, 'metadata', true],
    ]);
  });

  it('/Info or /Metadata pointed at the page content does not pass a content change off as metadata', async () => {
    const evil = stream('BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET', '/Type /Metadata /Subtype /XML ');
    const viaInfo = (await signedOnce()).update({ 4: evil }, '/Info 4 0 R ');
    const signed = await signedOnce();
    const viaMetadata = signed.update({ 4: evil, 1: signed.edit(1, /^<</, '<< /Metadata 4 0 R') });
    for (const pdf of [viaInfo, viaMetadata]) {
      const r = await verify(pdf.bytes);
      expect(summary(r)[0].modified).toBe(true);
      expect(r.signatures[0].changes.filter((c) => !c.allowed)).toContainEqual(
        expect.objectContaining({ objectNumber: 4, category: 'other' }),
      );
    }
  });
});
