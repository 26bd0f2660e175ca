// The verifier's judgement of a signature's CMS: a CMS in BER (indefinite lengths, constructed
// OCTET STRINGs, as several signing products write it) is a signature like a DER one, valid when
// it verifies; one under an algorithm the verifier cannot check is never valid. Each fixture is
// also given to openssl cms (which accepts BER) and pdfsig, so the verdict is not ours alone.
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign, webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfJail } from '../../src/jail/pdf-jail.js';
import { type VerifiedPdf, verifyPdf } from '../../src/pdf/verify/verify-pdf.js';
import { randomNonce } from '../../src/pki/tsa-request.js';
import { timeStampTokenFromReply } from '../../src/pki/tsa-verify.js';
import { berCms } from '../helpers/ber-cms.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { CONTENTS_SIZE, HandPdf, makeCms } from '../helpers/signed-pdfs.js';
import { pdfsig } from '../helpers/validators.js';
import { lastXrefOffset, tableUpdate } from '../helpers/xref-loops.js';

let pki: TestPki;
let ana: TestSigner;
let eve: TestSigner;
let rootPem: string;

beforeAll(async () => {
  pki = await createTestPki();
  ana = await pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
  eve = await pki.issueSigner({ cn: 'Eve Curve', email: 'eve@example.com', keyType: 'ec' });
  rootPem = execFileSync('openssl', ['x509', '-inform', 'DER', '-outform', 'PEM'], { input: pki.rootDer }).toString();
}, 60_000);
afterAll(() => pki?.dispose());

const pad = (n: number) => String(n).padStart(10, '0');
/** The SignedData of a CMS ContentInfo, to be edited by a test. */
const signedDataOf = (der: Uint8Array) =>
  new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(der).slice().buffer).content });
/** `signed` wrapped again as a CMS ContentInfo (id-signedData), in DER. */
const cmsOf = (signed: pkijs.SignedData) =>
  new Uint8Array(new pkijs.ContentInfo({ contentType: '1.2.840.113549.1.7.2', content: signed.toSchema(true) }).toSchema().toBER(false));
const verify = (bytes: Uint8Array): Promise<VerifiedPdf> => verifyPdf(bytes, { trustedRootsDer: [pki.rootDer] });
const summary = (r: VerifiedPdf) => r.signatures.map((s) => ({ field: s.fieldName, valid: s.validSignature, rule: s.failedRule }));

/** The last signature's CMS as written in /Contents (padding included) and the bytes its /ByteRange covers. */
function lastSignature(bytes: Buffer): { contents: Buffer; covered: Buffer } {
  const text = bytes.toString('latin1');
  const m = [...text.matchAll(/\/ByteRange \[0 (\d+) (\d+) (\d+)\]/g)].pop()!;
  const [a, b, c] = m.slice(1, 4).map(Number);
  return {
    contents: Buffer.from(text.slice(a + 1, b - 1), 'hex'),
    covered: Buffer.concat([bytes.subarray(0, a), bytes.subarray(b, b + c)]),
  };
}

/**
 * Appends signature dictionary `sig` (and field `field` pointing at it) as one revision, its CMS
 * made by `cms` over the bytes its /ByteRange covers: for signatures the shared helper cannot make.
 */
async function signByHand(pdf: HandPdf, sig: number, field: number, cms: (covered: Buffer) => Promise<Uint8Array>): Promise<void> {
  const hole = '0'.repeat(CONTENTS_SIZE);
  pdf.update({
    [sig]: `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /M (D:20261123100000Z) /ByteRange [0 0000000000 0000000000 0000000000] /Contents <${hole}> >>`,
    [field]: pdf.edit(field, '/FT /Sig', `/FT /Sig /V ${sig} 0 R`),
  });
  const text = pdf.bytes.toString('latin1');
  const a = text.lastIndexOf(`<${hole}>`);
  const b = a + hole.length + 2;
  const c = pdf.bytes.length - b;
  pdf.bytes.write(`/ByteRange [0 ${pad(a)} ${pad(b)} ${pad(c)}]`, text.lastIndexOf('/ByteRange [0 0000000000'), 'latin1');
  const made = await cms(Buffer.concat([pdf.bytes.subarray(0, a), pdf.bytes.subarray(b)]));
  pdf.bytes.write(Buffer.from(made).toString('hex'), a + 1, 'latin1');
}

/** A PDF with an unsigned signature field "Ana" (object 9) prepared in revision 2. */
function withPreparedField(): HandPdf {
  const pdf = HandPdf.base();
  pdf.update({
    9: '<< /FT /Sig /T (Ana) /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /P 3 0 R /F 132 >>',
    6: pdf.edit(6, '/Fields [', '/SigFlags 3 /Fields [9 0 R '),
    3: pdf.edit(3, '/Annots [', '/Annots [9 0 R '),
  });
  return pdf;
}

/** openssl cms -verify on the CMS (BER accepted) over the covered bytes, without judging the chain. */
function opensslVerifies(cms: Buffer, covered: Buffer, name: string): boolean {
  writeFileSync(join(pki.dir, `${name}.p7`), cms);
  writeFileSync(join(pki.dir, `${name}.bin`), covered);
  try {
    execFileSync(
      'openssl',
      ['cms', '-verify', '-inform', 'DER', '-in', `${name}.p7`, '-content', `${name}.bin`, '-binary', '-noverify', '-out', '/dev/null'],
      { cwd: pki.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return true;
  } catch {
    return false;
  }
}

/** The CMS with the ContentInfo's, SignedData's and SignerInfo's length octets all indefinite (0x80). */
const startsIndefinite = (cms: Buffer) => cms.subarray(0, 2).equals(Buffer.of(0x30, 0x80));

describe('a CMS in BER is a signature like any other', () => {
  it('indefinite lengths, constructed OCTET STRINGs and a BER time-stamp token: valid, intact, B-T', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', timestamp: true, rewriteCms: berCms });
    const { contents, covered } = lastSignature(pdf.bytes);
    expect(startsIndefinite(contents)).toBe(true);
    // The signed attributes travel in BER too ([0] with an indefinite length, the messageDigest
    // OCTET STRING in pieces): the signature is over their DER (RFC 5652 §5.4).
    expect(contents.includes(Buffer.from('a0803080', 'hex'))).toBe(true);
    expect(contents.includes(Buffer.from('24800407', 'hex'))).toBe(true);

    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null }]);
    expect(r.signatures[0].timestamp?.verified).toBe(true);
    expect(r.signatures[0].trusted).toBe(true);
    expect(r.signatures[0].level).toBe('B-T');
    expect(r.documentIntegrity).toBe('intact');
    expect(r.attacks).toEqual([]);

    // openssl reads the same BER and verifies it; pdfsig too.
    expect(opensslVerifies(contents, covered, 'ber')).toBe(true);
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => s.valid),
      checked.output,
    ).toEqual([true]);
  });

  it('an ECDSA signer in BER: valid', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: eve, field: 'Eve', rewriteCms: berCms });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Eve', valid: true, rule: null }]);
    expect(r.documentIntegrity).toBe('intact');
  });

  it('a BER CMS over bytes changed after signing: invalid because it does not verify, not a forgery', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', rewriteCms: berCms });
    const bytes = Buffer.from(pdf.bytes);
    const at = bytes.indexOf('Pay 100 EUR');
    bytes.write('Pay 900 EUR', at, 'latin1');
    const r = await verify(bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: false, rule: 'message-digest-mismatch' }]);
    expect(r.attacks).toEqual([]);
    const { contents, covered } = lastSignature(bytes);
    expect(opensslVerifies(contents, covered, 'ber-changed')).toBe(false);
  });

  it('a BER CMS whose signature value was altered: invalid', async () => {
    const pdf = await HandPdf.base().sign(pki, {
      signer: ana,
      field: 'Ana',
      rewriteCms: (der) => {
        const ber = berCms(der);
        // The last piece of the signature value (the last OCTET STRING piece before the closing
        // end-of-contents octets): flip one bit of its last octet.
        ber[ber.length - 13] ^= 0x01;
        return ber;
      },
    });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: false, rule: 'signature-value-invalid' }]);
    expect(r.attacks).toEqual([]);
  });

  it('a /Contents that opens a BER element and never closes it: not a signature, a forgery', async () => {
    const pdf = await HandPdf.base().sign(pki, {
      signer: ana,
      field: 'Ana',
      // Cut inside the first certificate: the zero padding after it is no element of it.
      rewriteCms: (der) => berCms(der).subarray(0, 100),
    });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: false, rule: 'contents-not-der' }]);
    expect(r.attacks.map((a) => a.name)).toEqual(['universal-signature-forgery']);
  });

  it('a document time stamp whose token is BER (eContent in pieces): valid, and it archives the signature before it', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', timestamp: true, rewriteCms: berCms });
    await pdf.sign(pki, {
      signer: ana,
      field: 'Archive',
      documentTimestamp: async (digest) => berCms(timeStampTokenFromReply(await pki.timestamp(digest, randomNonce()))),
    });
    const { contents, covered } = lastSignature(pdf.bytes);
    expect(startsIndefinite(contents)).toBe(true);
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([
      { field: 'Ana', valid: true, rule: null },
      { field: 'Archive', valid: true, rule: null },
    ]);
    expect(r.signatures[1].timestampValid).toBe(true);
    expect(r.documentIntegrity).toBe('intact');
    expect(r.attacks).toEqual([]);
    // openssl ts reads the BER token and verifies it over the digest of the covered bytes.
    writeFileSync(join(pki.dir, 'doc-ts.tst'), contents);
    const imprint = createHash('sha256').update(covered).digest('hex');
    const out = execFileSync(
      'openssl',
      ['ts', '-verify', '-digest', imprint, '-token_in', '-in', 'doc-ts.tst', '-CAfile', pki.rootPath, '-untrusted', pki.tsaCertPath],
      { cwd: pki.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    ).toString();
    expect(out).toContain('Verification: OK');
  });
});

describe('a large CMS is a signature all the same', () => {
  it('an unsigned attribute of 15,000 elements (as the CRLs of a chain carry): valid, not a forgery', async () => {
    const pdf = await HandPdf.base().sign(pki, {
      signer: ana,
      field: 'Ana',
      contentsSize: 80_000,
      rewriteCms: (der) => {
        const signed = signedDataOf(der);
        const many = new asn1js.Sequence({ value: Array.from({ length: 15_000 }, () => new asn1js.Null()) });
        signed.signerInfos[0].unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
          type: 1,
          attributes: [new pkijs.Attribute({ type: '1.2.840.113549.1.9.16.2.24', values: [many] })],
        });
        return cmsOf(signed);
      },
    });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null }]);
    expect(r.attacks).toEqual([]);
  });
});

describe('an algorithm the verifier cannot check is never valid', () => {
  /** The CMS with its SignerInfo's signatureAlgorithm (or digestAlgorithm) set to `oid`, nothing else changed. */
  const withAlgorithm = (field: 'signatureAlgorithm' | 'digestAlgorithm', oid: string) => (der: Uint8Array) => {
    const signed = signedDataOf(der);
    signed.signerInfos[0][field] = new pkijs.AlgorithmIdentifier({ algorithmId: oid });
    return cmsOf(signed);
  };

  /** Signed by `signer` with the SignerInfo's `which` algorithm set to `oid`: not valid under that algorithm's rule, the reason naming the OID. */
  async function signedUnder(signer: TestSigner, field: string, which: 'signatureAlgorithm' | 'digestAlgorithm', oid: string) {
    const pdf = await HandPdf.base().sign(pki, { signer, field, rewriteCms: withAlgorithm(which, oid) });
    const r = await verify(pdf.bytes);
    const rule = which === 'signatureAlgorithm' ? 'signature-algorithm' : 'digest-algorithm';
    expect(summary(r)).toEqual([{ field, valid: false, rule }]);
    expect(r.signatures[0].problem).toContain(oid);
    return { pdf, r };
  }

  it('a signature algorithm it does not know (SM2 with SM3): invalid, the reason names the OID', async () => {
    const { pdf, r } = await signedUnder(ana, 'Ana', 'signatureAlgorithm', '1.2.156.10197.1.501');
    expect(r.documentIntegrity).toBe('invalid');
    // Not a forgery: a signature is there, under an algorithm this verifier does not check.
    expect(r.attacks).toEqual([]);
    // pdfsig does not accept it either.
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((s) => s.valid),
      checked.output,
    ).toEqual([false]);
  });

  it('an OID that names no signature algorithm at all (a curve): invalid, the reason names it', async () => {
    await signedUnder(eve, 'Eve', 'signatureAlgorithm', '1.3.132.0.34');
  });

  it('a signature algorithm naming another hash than the digest algorithm: invalid', async () => {
    await signedUnder(ana, 'Ana', 'signatureAlgorithm', '1.2.840.113549.1.1.13');
  });

  it('a digest algorithm it does not know (SM3): invalid, the reason names the OID', async () => {
    const { r } = await signedUnder(ana, 'Ana', 'digestAlgorithm', '1.2.156.10197.1.401');
    expect(r.documentIntegrity).toBe('invalid');
  });

  /** Eve's ECDSA signature value rewritten as r || s (BSI TR-03111 plain format), under `oid`. */
  const plainEcdsa = (oid: string) => (der: Uint8Array) => {
    const signed = signedDataOf(der);
    const signer = signed.signerInfos[0];
    const [r, s] = (asn1js.fromBER(signer.signature.valueBlock.valueHexView.slice()).result as asn1js.Sequence).valueBlock
      .value as asn1js.Integer[];
    const fixed = (i: asn1js.Integer) =>
      Buffer.from(i.valueBlock.valueHexView)
        .toString('hex')
        .replace(/^(00)+/, '')
        .padStart(64, '0');
    signer.signature = new asn1js.OctetString({ valueHex: Buffer.from(fixed(r) + fixed(s), 'hex') });
    signer.signatureAlgorithm = new pkijs.AlgorithmIdentifier({ algorithmId: oid });
    return cmsOf(signed);
  };

  it('ECDSA with the signature as r || s (ecdsa-plain-SHA256, BSI TR-03111): valid; the same value read as DER is not', async () => {
    const plain = await HandPdf.base().sign(pki, { signer: eve, field: 'Eve', rewriteCms: plainEcdsa('0.4.0.127.0.7.1.1.4.1.3') });
    expect(summary(await verify(plain.bytes))).toEqual([{ field: 'Eve', valid: true, rule: null }]);
    const mislabelled = await HandPdf.base().sign(pki, { signer: eve, field: 'Eve', rewriteCms: plainEcdsa('1.2.840.10045.4.3.2') });
    expect(summary(await verify(mislabelled.bytes))).toEqual([{ field: 'Eve', valid: false, rule: 'signature-value-invalid' }]);
  });

  it('Ed448 with SHAKE256 as the digest algorithm (RFC 8419, RFC 8702): valid; the value altered: invalid', async () => {
    // An Ed448 signer under the test CA: the key made here, the certificate by openssl.
    const { privateKey } = generateKeyPairSync('ed448');
    writeFileSync(join(pki.dir, 'ed448.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const run = (args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    run(['req', '-new', '-key', 'ed448.key', '-subj', '/O=Sello Test/CN=Ed Ward', '-out', 'ed448.csr']);
    run([
      'x509',
      '-req',
      '-in',
      'ed448.csr',
      '-CA',
      'issuing.pem',
      '-CAkey',
      'issuing.key',
      '-set_serial',
      '4242',
      '-days',
      '30',
      '-out',
      'ed448.pem',
    ]);
    const certDer = execFileSync('openssl', ['x509', '-in', 'ed448.pem', '-outform', 'DER'], { cwd: pki.dir });
    const cert = pkijs.Certificate.fromBER(new Uint8Array(certDer).slice().buffer);
    const shake256 = { algorithmId: '2.16.840.1.101.3.4.2.12' };

    const ed448Cms = (flip: boolean) => async (covered: Buffer) => {
      const template = await makeCms(pki, { signer: ana, field: 'Ana' }, createHash('sha256').update(covered).digest());
      const signed = signedDataOf(template);
      const attr = (type: string, value: asn1js.BaseBlock) => new pkijs.Attribute({ type, values: [value] });
      const essCertIdV2 = new asn1js.Sequence({
        value: [new asn1js.OctetString({ valueHex: createHash('sha256').update(certDer).digest() })],
      });
      const attributes = [
        attr('1.2.840.113549.1.9.3', new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.7.1' })),
        attr(
          '1.2.840.113549.1.9.4',
          new asn1js.OctetString({ valueHex: createHash('shake256', { outputLength: 64 }).update(covered).digest() }),
        ),
        attr('1.2.840.113549.1.9.16.2.47', new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })),
      ];
      const value = sign(null, Buffer.from(new asn1js.Set({ value: attributes.map((a) => a.toSchema()) }).toBER(false)), privateKey);
      if (flip) {
        value[0] ^= 1;
      }
      signed.digestAlgorithms = [new pkijs.AlgorithmIdentifier(shake256)];
      signed.certificates = [cert, pkijs.Certificate.fromBER(new Uint8Array(pki.issuingCaDer).slice().buffer)];
      signed.signerInfos = [
        new pkijs.SignerInfo({
          version: 1,
          sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
          digestAlgorithm: new pkijs.AlgorithmIdentifier(shake256),
          signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
          signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: '1.3.101.113' }),
          signature: new asn1js.OctetString({ valueHex: value }),
        }),
      ];
      return cmsOf(signed);
    };
    const good = withPreparedField();
    await signByHand(good, 10, 9, ed448Cms(false));
    const r = await verify(good.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null }]);
    expect(r.signatures[0].signer?.commonName).toBe('Ed Ward');
    const bad = withPreparedField();
    await signByHand(bad, 10, 9, ed448Cms(true));
    expect(summary(await verify(bad.bytes))).toEqual([{ field: 'Ana', valid: false, rule: 'signature-value-invalid' }]);
  });

  it('rsaEncryption as the signature algorithm (RFC 3370 §3.2): checked with the digest algorithm, valid', async () => {
    const pdf = await HandPdf.base().sign(pki, {
      signer: ana,
      field: 'Ana',
      rewriteCms: withAlgorithm('signatureAlgorithm', '1.2.840.113549.1.1.1'),
    });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null }]);
  });
});

describe('a signature dictionary no signature field leads to is still judged', () => {
  /** Ana's signature in a field whose /Kids name the field itself: the form's field tree loops. */
  const selfLooping = () => HandPdf.base().sign(pki, { signer: ana, field: 'Ana', extraField: '/Kids [9 0 R] ' });

  /** The last /ByteRange's third part made to run `extra` bytes past where it ends (same width). */
  function rangePastEnd(bytes: Buffer, extra: number): Buffer {
    const out = Buffer.from(bytes);
    const m = [...out.toString('latin1').matchAll(/\/ByteRange \[0 \d{10} \d{10} (\d{10})\]/g)].pop()!;
    out.write(String(Number(m[1]) + extra).padStart(10, '0'), m.index + m[0].length - 11, 'latin1');
    return out;
  }

  it('a field tree that loops onto itself: the signature is still found, checked and valid', async () => {
    const pdf = await selfLooping();
    const r = await verify(pdf.bytes);
    expect(r.signatures.map((s) => [s.fieldName, s.dictionaryNumber, s.validSignature, s.failedRule])).toEqual([['Ana', 8, true, null]]);
    expect(r.documentIntegrity).toBe('intact');
  });

  it('its /ByteRange past the end of the file, behind a cross-reference chain that loops: reported, invalid', async () => {
    const pdf = await selfLooping();
    const signed = rangePastEnd(pdf.bytes, 100_000);
    // An update whose /Prev names itself, then a last one that skips it (PDF 32000-1 §7.5.6).
    const looping = tableUpdate(signed, { 10: '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>' }, 11, (self) => self);
    const bytes = tableUpdate(looping, { 11: '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>' }, 12, () =>
      lastXrefOffset(signed),
    );
    const r = await verify(bytes);
    expect(r.signatures.map((s) => [s.fieldName, s.dictionaryNumber, s.validSignature, s.failedRule])).toEqual([
      ['Ana', 8, false, 'byte-range-past-end'],
    ]);
    expect(r.signatures[0].problem).toMatch(/past the end of the file/);
    expect(r.documentIntegrity).toBe('invalid');
    // pdfsig finds the field too ("Illegal values in ByteRange array") and does not call it valid.
    const checked = await pdfsig(bytes, rootPem);
    expect(
      checked.signatures.map((s) => [s.field, s.valid]),
      checked.output,
    ).toEqual([['Ana', false]]);
  });

  it('its /ByteRange past the end, in a file whose startxref points past its end (cross-references rebuilt): reported, invalid', async () => {
    const pdf = await selfLooping();
    const signed = rangePastEnd(pdf.bytes, 50_000);
    const text = signed.toString('latin1');
    const at = text.lastIndexOf('startxref\n');
    const bytes = Buffer.concat([signed.subarray(0, at), Buffer.from(`startxref\n${signed.length + 20_000}\n%%EOF\n`, 'latin1')]);
    const r = await verify(bytes);
    expect(r.signatures.map((s) => [s.fieldName, s.validSignature, s.failedRule])).toEqual([['Ana', false, 'byte-range-past-end']]);
    expect(r.documentIntegrity).toBe('invalid');
  });

  it('a signature dictionary the form no longer names but /Perms still does: reported once', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', docMdp: 2 });
    // A later update takes the field out of the form and off the page; /Perms still names the dictionary.
    pdf.update({ 6: pdf.edit(6, '/Fields [9 0 R ', '/Fields ['), 3: pdf.edit(3, '/Annots [9 0 R ', '/Annots ['), 9: null });
    const r = await verify(pdf.bytes);
    const rows = r.signatures.map((s) => [s.fieldName, s.dictionaryNumber, s.validSignature, s.modifiedAfterSigning]);
    // Read once: from the revision whose form still showed it, modified after signing by its removal.
    expect(rows).toEqual([['Ana', 8, true, true]]);
    expect(r.documentIntegrity).toBe('modified');
  });

  it("a flood of /ByteRange in an object that never ends is read in one pass: a report, within the reader's time limit", async () => {
    // 400,000 hits and no endobj after them: searching the rest of the file from each hit held a
    // worker for hours; the PDF jail stops a read at its time limit (422 PDF_TOO_COMPLEX) and must
    // not have to here.
    const { bytes: base } = HandPdf.base();
    const at = base.lastIndexOf('startxref');
    const flood = Buffer.from(`\n1 0 obj\n<< /Type /Sig ${'/ByteRange '.repeat(400_000)}\n`, 'latin1');
    const jail = new PdfJail({ workers: 1, queue: 1, timeoutMs: 10_000, memoryMb: 512, inflate: { maxTotalBytes: 256 * 1024 * 1024 } });
    try {
      const r = await jail.verifyPdf(Buffer.concat([base.subarray(0, at), flood, base.subarray(at)]), { trustedRootsDer: [pki.rootDer] });
      expect(r.signatures).toEqual([]);
    } finally {
      await jail.close();
    }
  });

  it('a signature dictionary only an old version of an object held is not one of the file as it ends', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana' });
    // Object 10 was once a signature-like dictionary; the file as it ends defines it as a font.
    pdf.update({ 10: '<< /Type /Sig /ByteRange [0 1 2 3] /Contents <00> >>' });
    pdf.update({ 10: '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>' });
    const r = await verify(pdf.bytes);
    expect(r.signatures.map((s) => [s.fieldName, s.dictionaryNumber])).toEqual([['Ana', 8]]);
  });
});

describe('the signing-certificate attributes', () => {
  /** The CMS with an ESS signing-certificate (v1, SHA-1) attribute added to its signed attributes, signed again by `signer`. */
  const withV1 = (signer: TestSigner, named: Uint8Array) => async (der: Uint8Array) => {
    const signed = signedDataOf(der);
    const si = signed.signerInfos[0];
    // SigningCertificate ::= SEQUENCE { certs SEQUENCE OF ESSCertID }, ESSCertID ::= SEQUENCE { certHash OCTET STRING }
    const essCertId = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: createHash('sha1').update(named).digest() })] });
    const value = new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertId] })] });
    const attributes = [...si.signedAttrs!.attributes, new pkijs.Attribute({ type: '1.2.840.113549.1.9.16.2.12', values: [value] })];
    const toSign = new asn1js.Set({ value: attributes.map((a) => a.toSchema()) }).toBER(false);
    const signature = await webcrypto.subtle.sign('RSASSA-PKCS1-v1_5', signer.privateKey, toSign);
    si.signedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes });
    si.signature = new asn1js.OctetString({ valueHex: signature });
    return cmsOf(signed);
  };

  it('both the v2 and the older SHA-1 attribute, each naming the signer: valid', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', rewriteCms: withV1(ana, ana.certificateDer) });
    expect(summary(await verify(pdf.bytes))).toEqual([{ field: 'Ana', valid: true, rule: null }]);
    const { contents, covered } = lastSignature(pdf.bytes);
    expect(opensslVerifies(contents, covered, 'v1-v2')).toBe(true);
  });

  it('both, the SHA-1 one naming another certificate: invalid', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', rewriteCms: withV1(ana, eve.certificateDer) });
    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: false, rule: 'signing-certificate-mismatch' }]);
    expect(r.signatures[0].problem).toMatch(/another certificate/);
  });
});

describe("the signature dictionary's place", () => {
  it('a signature dictionary written right after the previous "%%EOF", with no end of line between: valid', async () => {
    // Revision 2 prepares the field (object 9); revision 3 is the signature dictionary (object 8,
    // so it is written first), glued to the "%%EOF" of revision 2 as some writers do.
    const pdf = withPreparedField();
    pdf.bytes = pdf.bytes.subarray(0, -1); // the end of line after %%EOF
    await signByHand(pdf, 8, 9, async (covered) =>
      makeCms(pki, { signer: ana, field: 'Ana' }, createHash('sha256').update(covered).digest()),
    );
    expect(pdf.bytes.includes(Buffer.from('%%EOF8 0 obj'))).toBe(true);

    const r = await verify(pdf.bytes);
    expect(summary(r)).toEqual([{ field: 'Ana', valid: true, rule: null }]);
    expect(r.documentIntegrity).toBe('intact');
    const checked = await pdfsig(pdf.bytes, rootPem);
    expect(
      checked.signatures.map((x) => [x.valid, x.totalDocumentSigned]),
      checked.output,
    ).toEqual([[true, true]]);
  });
});
