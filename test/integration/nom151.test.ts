// NOM-151 stamps through the API: stamping a hash and a PDF, validating both, with the built-in
// authority and with an external provider (PSC) on a loopback port with its own CA. Every token is
// checked by `openssl ts -verify` against its root; stamped PDFs by pdfsig and qpdf --check.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { PDF } from '@libpdf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derToPem, pemCertificates } from '../../src/pki/index.js';
import { signPdf } from '../../src/pdf/sign-pdf.js';
import { createTimeStampRequest, randomNonce } from '../../src/pki/tsa-request.js';
import { issueTsaCertificate } from '../../src/pki/service-certificates.js';
import { createTimeStampToken } from '../../src/pki/tsa.js';
import { importPrivateKey, parseCertificate, randomSerialHex } from '../../src/pki/primitives.js';
import { softwareServiceKey } from '../../src/pki/service-key.js';
import { apiError } from '../helpers/api-error.js';
import { opensslTsVerify } from '../helpers/openssl-ts.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestPsc, type TestPsc } from '../helpers/psc-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';
import { HandPdf } from '../helpers/signed-pdfs.js';

let s: TestServer;
let psc: TestPsc;
let serviceRootPem: string;
let signedPdf: Buffer;

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();
const configurePsc = (trust = psc.rootPem, extra: { user?: string; password?: string; policyOid?: string; tsaName?: string } = {}) => {
  s.deps.nom151Psc = { url: psc.url, trustedRootsDer: pemCertificates(trust), ...extra };
};
const stampCount = async () => Number((await sql<{ n: string }>`select count(*) as n from stamps`.execute(s.deps.db)).rows[0].n);

beforeAll(async () => {
  [s, psc] = await Promise.all([startTestServer(), startTestPsc()]);
  serviceRootPem = derToPem(s.deps.pki.pki.root.certificateDer, 'CERTIFICATE');
  // A PDF that already carries a signature (made with the PSC's PKI, an openssl CA), to show that
  // a stamp leaves earlier signatures valid.
  const signer = await psc.pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
  signedPdf = (
    await signPdf({
      pdf: await makePdf([A4]),
      fieldName: 'Sello-Ana',
      boxes: [{ page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
      appearance: { signerName: signer.cn, signedAt: new Date(), authorityLabel: 'Email link: ana@example.com', locale: 'es' },
      signer,
      timestamp: psc.pki.timestamp,
      trustedRootsDer: [psc.pki.rootDer],
      now: () => new Date(),
    })
  ).pdf;
}, 60_000);
afterAll(async () => {
  await s?.close();
  await psc?.close();
});

describe('POST /api/timestamp with the built-in authority', () => {
  it('stamps a hex SHA-256; openssl ts -verify accepts the token against the service root', async () => {
    s.deps.nom151Psc = undefined;
    const digest = sha256(Buffer.from('contrato'));
    const r = await s.client.stampHash(digest.toString('hex'));
    expect(r).toMatchObject({
      hash: digest.toString('hex'),
      provider: 'built_in',
      tsa: expect.stringContaining('Time-Stamping Authority'),
    });
    expect(r.provider_description).toContain('not an accredited');
    expect(new Date(r.gen_time).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(r.serial).toMatch(/^[0-9a-f]+$/);
    const v = await opensslTsVerify(Buffer.from(r.stamp, 'base64'), { digestHex: digest.toString('hex') }, serviceRootPem);
    expect(v.output).toContain('Verification: OK');
    expect(v.ok).toBe(true);
    // Not against the PSC's root: the chain decides.
    expect((await opensslTsVerify(Buffer.from(r.stamp, 'base64'), { digestHex: digest.toString('hex') }, psc.rootPem)).ok).toBe(false);
  });

  it('takes the hash in Base64 too, and refuses anything else naming the field', async () => {
    const digest = sha256(Buffer.from('otro'));
    expect((await s.client.stampHash(digest.toString('base64'))).hash).toBe(digest.toString('hex'));
    for (const bad of ['', 'abc', digest.toString('hex').slice(2), `${sha256(Buffer.from('x')).toString('hex')}00`, 'z'.repeat(64)]) {
      const e = await apiError(s.client.stampHash(bad));
      expect([e.status, e.code]).toEqual([400, 'INVALID_INPUT']);
      expect(e.message).toMatch(/^hash: /);
    }
    const e = await apiError(s.client.request('POST', '/api/timestamp', {}));
    expect(e.message).toMatch(/^hash: /);
  });
});

describe('POST /api/timestamp/validate', () => {
  it('says valid for the right hash or file, and why not otherwise', async () => {
    s.deps.nom151Psc = undefined;
    const file = Buffer.from('el contrato firmado');
    const stamp = (await s.client.stampHash(sha256(file).toString('hex'))).stamp;
    const ok = await s.client.validateTimestamp({ file: file.toString('base64'), timestamp: stamp });
    expect(ok).toMatchObject({ valid: true, problem: null, provider: 'built_in', hash: sha256(file).toString('hex') });
    expect(Object.values(ok.checks).every(Boolean)).toBe(true);

    const other = await s.client.validateTimestamp({ hash: sha256(Buffer.from('otro')).toString('hex'), timestamp: stamp });
    expect(other).toMatchObject({ valid: false, checks: { well_formed: true, imprint_matches: false, signature_valid: true } });
    expect(other.problem).toContain('another hash');

    const garbage = await s.client.validateTimestamp({
      hash: sha256(file).toString('hex'),
      timestamp: Buffer.from('not a token').toString('base64'),
    });
    expect(garbage).toMatchObject({ valid: false, checks: { well_formed: false } });

    const tampered = Buffer.from(stamp, 'base64');
    tampered[tampered.length - 5] ^= 0x01; // inside the signature value
    const bad = await s.client.validateTimestamp({ hash: sha256(file).toString('hex'), timestamp: tampered.toString('base64') });
    expect(bad).toMatchObject({ valid: false, checks: { signature_valid: false } });

    const both = await apiError(s.client.validateTimestamp({ hash: sha256(file).toString('hex'), file: 'AA==', timestamp: stamp }));
    expect(both.status).toBe(400);
  });

  it("recognizes a stamp of an earlier TSA certificate of the service (one replaced since) as the service's own", async () => {
    s.deps.nom151Psc = undefined;
    const pki = s.deps.pki.pki;
    // A second time-stamping certificate under the service's issuing CA, as a renewal or a roll makes.
    const earlier = await issueTsaCertificate(
      { certificate: pki.issuing.certificate, key: pki.issuing.key },
      { organization: 'Sello', baseUrl: s.baseUrl, now: new Date(), validityDays: 30 },
    );
    const tsa = {
      certificateDer: earlier.certificateDer,
      certificate: parseCertificate(earlier.certificateDer),
      key: await softwareServiceKey(await importPrivateKey(earlier.privateKeyPkcs8!), 'an earlier TSA key'),
    };
    expect(tsa.certificateDer.equals(pki.tsa.certificateDer)).toBe(false);
    const digest = sha256(Buffer.from('sellado antes'));
    const token = await createTimeStampToken(
      { ...pki, tsa },
      { hash: 'SHA-256', hashedMessage: digest, certReq: true },
      { now: new Date(), serialNumber: randomSerialHex(), policyOid: '1.3.6.1.4.1.99999.1.1' },
    );
    const r = await s.client.validateTimestamp({ hash: digest.toString('hex'), timestamp: token.toString('base64') });
    expect(r).toMatchObject({ valid: true, provider: 'built_in', checks: { chain_trusted: true, authority_recognized: true } });
  });

  it('does not recognize a genuine token from an authority the service does not trust', async () => {
    const digest = sha256(Buffer.from('rogue'));
    const reply = await psc.pki.tamperedTimestamp('untrusted-tsa')(digest, Uint8Array.from([1, 2, 3]));
    const r = await s.client.validateTimestamp({ hash: digest.toString('hex'), timestamp: Buffer.from(reply).toString('base64') });
    expect(r).toMatchObject({
      valid: false,
      provider: null,
      checks: { signature_valid: true, chain_trusted: false, authority_recognized: false },
    });
  });
});

describe('an external provider (PSC)', () => {
  it('stamps through the PSC: the token chains to its root, and validates as psc', async () => {
    configurePsc();
    const before = psc.requests;
    const digest = sha256(Buffer.from('psc'));
    const r = await s.client.stampHash(digest.toString('hex'));
    expect(psc.requests).toBe(before + 1);
    expect(r).toMatchObject({ provider: 'psc', tsa: expect.stringContaining('Sello Test TSA') });
    const v = await opensslTsVerify(Buffer.from(r.stamp, 'base64'), { digestHex: digest.toString('hex') }, psc.rootPem);
    expect(v.output).toContain('Verification: OK');
    const check = await s.client.validateTimestamp({ hash: digest.toString('hex'), timestamp: r.stamp });
    expect(check).toMatchObject({ valid: true, provider: 'psc' });
  });

  it('sends HTTP basic credentials and asks for the configured policy', async () => {
    psc.credentials = { user: 'sello', password: 's3cret' };
    try {
      configurePsc(psc.rootPem, { user: 'sello', password: 'wrong' });
      const e = await apiError(s.client.stampHash(sha256(Buffer.from('a')).toString('hex')));
      expect([e.status, e.code]).toEqual([503, 'STAMP_PROVIDER_UNAVAILABLE']);
      expect(e.message).toContain('HTTP 401');
      configurePsc(psc.rootPem, { user: 'sello', password: 's3cret', policyOid: '1.3.6.1.4.1.99999.1.2' });
      const r = await s.client.stampHash(sha256(Buffer.from('a')).toString('hex'));
      expect(r.provider).toBe('psc');
    } finally {
      psc.credentials = undefined;
    }
  });

  it('refuses a token from an authority outside the configured trust, and stores nothing', async () => {
    configurePsc();
    psc.mode = 'rogue';
    try {
      const n = await stampCount();
      const e = await apiError(s.client.stampHash(sha256(Buffer.from('b')).toString('hex')));
      expect([e.status, e.code]).toEqual([503, 'STAMP_REFUSED']);
      expect(e.message).toContain('does not chain to a trusted root');
      expect(await stampCount()).toBe(n);
    } finally {
      psc.mode = 'up';
    }
  });

  it("another authority under the PSC's own root: chain trusted but authority not recognized, when the PSC is named by certificate or name", async () => {
    // A genuine token from "Sello Test Other TSA", under the same root as the PSC's "Sello Test TSA".
    const digest = sha256(Buffer.from('otra autoridad'));
    const ask = async () => {
      const res = await fetch(psc.url, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query' },
        body: new Uint8Array(createTimeStampRequest(digest, randomNonce(), true)),
      });
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer()).toString('base64');
    };
    psc.mode = 'other-tsa';
    const other = await ask();
    psc.mode = 'up';
    const own = await ask();
    const validate = (timestamp: string) => s.client.validateTimestamp({ hash: digest.toString('hex'), timestamp });
    try {
      // Named by certificate: the trust file holds the root and the PSC's own TSA certificate.
      configurePsc(psc.rootPem + psc.tsaPem);
      const byCert = await validate(other);
      expect(byCert).toMatchObject({
        valid: false,
        provider: null,
        tsa: expect.stringContaining('Sello Test Other TSA'),
        checks: { well_formed: true, imprint_matches: true, signature_valid: true, chain_trusted: true, authority_recognized: false },
      });
      expect(byCert.problem).toMatch(/Sello Test Other TSA, neither the service's own time-stamp authority nor the configured PSC/);
      expect(await validate(own)).toMatchObject({
        valid: true,
        provider: 'psc',
        checks: { chain_trusted: true, authority_recognized: true },
      });
      // The same authority is refused when it answers a stamp request: nothing stored.
      const n = await stampCount();
      psc.mode = 'other-tsa';
      const refused = await apiError(s.client.stampHash(digest.toString('hex')));
      expect([refused.status, refused.code]).toEqual([503, 'STAMP_REFUSED']);
      expect(refused.message).toMatch(/Sello Test Other TSA, not by the configured PSC's authority/);
      expect(await stampCount()).toBe(n);
      psc.mode = 'up';

      // Named by SELLO_NOM151_TSA_NAME, the trust file holding the root alone.
      configurePsc(psc.rootPem, { tsaName: 'Sello Test TSA' });
      expect((await validate(other)).checks).toMatchObject({ chain_trusted: true, authority_recognized: false });
      expect((await validate(own)).checks).toMatchObject({ chain_trusted: true, authority_recognized: true });

      // Not named: every authority under the PSC's roots is taken for the PSC (docs/configuration.md).
      configurePsc(psc.rootPem);
      expect(await validate(other)).toMatchObject({
        valid: true,
        provider: 'psc',
        checks: { chain_trusted: true, authority_recognized: true },
      });

      // The built-in authority is its certificate: its token stays recognized whatever the PSC.
      s.deps.nom151Psc = undefined;
      const builtIn = (await s.client.stampHash(digest.toString('hex'))).stamp;
      configurePsc(psc.rootPem + psc.tsaPem);
      expect(await validate(builtIn)).toMatchObject({ valid: true, provider: 'built_in' });
    } finally {
      psc.mode = 'up';
    }
  });

  it('is down: 503 with a clear message, nothing stored; an HTTP error is the same', async () => {
    configurePsc();
    const n = await stampCount();
    for (const mode of ['down', 'http-500'] as const) {
      psc.mode = mode;
      const e = await apiError(s.client.stampHash(sha256(Buffer.from('c')).toString('hex')));
      expect([e.status, e.code]).toEqual([503, 'STAMP_PROVIDER_UNAVAILABLE']);
      expect(e.message).toMatch(/NOM-151 provider (did not answer|answered HTTP 500).*nothing was stamped/);
      const pdf = await apiError(s.client.stampPdf(signedPdf));
      expect(pdf.status).toBe(503);
    }
    psc.mode = 'up';
    expect(await stampCount()).toBe(n);
  });
});

describe('POST /api/nom151/stamp and /api/nom151/validate', () => {
  it('applies a document time stamp: the earlier signature stays valid (pdfsig), qpdf --check passes, openssl verifies', async () => {
    s.deps.nom151Psc = undefined;
    const r = await s.client.stampPdf(signedPdf);
    const out = Buffer.from(r.pdf, 'base64');
    expect(out.subarray(0, signedPdf.length).equals(signedPdf)).toBe(true);
    expect(r.pdf_sha256).toBe(sha256(out).toString('hex'));
    expect(out.toString('latin1')).toMatch(/\/Type \/DocTimeStamp[\s\S]*\/SubFilter \/ETSI\.RFC3161/);

    const sig = await pdfsig(out, psc.rootPem);
    expect(sig.signatures).toHaveLength(2);
    expect(sig.signatures[0]).toMatchObject({ field: 'Sello-Ana', valid: true, trusted: true });
    // Poppler lists the document time stamp (its /SubFilter ETSI.RFC3161 shows as "unknown" and it
    // does not verify such tokens: "Unable to validate this type of signature"); openssl does, below.
    expect(sig.signatures[1]).toMatchObject({ field: 'Timestamp_1', commonName: expect.stringContaining('Time-Stamping Authority') });
    expect(sig.signatures[1].totalDocumentSigned).toBe(true);
    expect((await qpdfCheckAsync(out)).ok).toBe(true);

    // The token attests SHA-256 of the bytes its /ByteRange covers: `hash`.
    const range = /\/ByteRange \[(\d+) (\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(out.subarray(signedPdf.length).toString('latin1'))!;
    const [a, b, c, d] = range.slice(1).map(Number);
    const covered = Buffer.concat([out.subarray(a, a + b), out.subarray(c, c + d)]);
    expect(sha256(covered).toString('hex')).toBe(r.hash);
    const v = await opensslTsVerify(Buffer.from(r.stamp, 'base64'), { data: covered }, serviceRootPem);
    expect(v.output).toContain('Verification: OK');

    const check = await s.client.validatePdfStamps(out);
    expect(check.valid).toBe(true);
    expect(check.stamps).toHaveLength(1);
    expect(check.stamps[0]).toMatchObject({
      valid: true,
      provider: 'built_in',
      hash: r.hash,
      covers_revision: true,
      revision: check.revisions,
      modified_after_stamp: false,
      modifications: [],
      changes_after: { changed: false, only_signatures_dss_timestamps: true, revisions: [] },
    });
  });

  it('validate tells a later signature from a later change of the content', async () => {
    s.deps.nom151Psc = undefined;
    const stamped = Buffer.from((await s.client.stampPdf(await makePdf([A4]))).pdf, 'base64');
    const signer = await psc.pki.issueSigner({ cn: 'Bruno', email: 'bruno@example.com' });
    const thenSigned = (
      await signPdf({
        pdf: stamped,
        fieldName: 'Sello-Bruno',
        boxes: [{ page: 0, rect: { lx: 300, ly: 60, tx: 500, ty: 130 } }],
        appearance: { signerName: 'Bruno', signedAt: new Date(), authorityLabel: 'Email link', locale: 'es' },
        signer,
        timestamp: psc.pki.timestamp,
        trustedRootsDer: [psc.pki.rootDer],
        now: () => new Date(),
      })
    ).pdf;
    const afterSign = await s.client.validatePdfStamps(thenSigned);
    expect(afterSign.stamps[0]).toMatchObject({ valid: true, changes_after: { changed: true, only_signatures_dss_timestamps: true } });
    // Bruno's certificate comes from an authority this service does not recognize: the signature
    // verifier counts a signature drawn on the page that nobody trusted vouches for as a change of
    // the stamped content (the "sneaky signature" pattern), and names it.
    expect(afterSign.stamps[0].modified_after_stamp).toBe(true);
    expect(afterSign.stamps[0].modifications.map((m) => m.description).join(' ')).toMatch(
      /sneaky signature: signature field Sello-Bruno added/,
    );
    expect(afterSign.stamps[0].changes_after.revisions[0]).toMatchObject({ signatures: ['Sello-Bruno'], other: [] });

    const edit = await PDF.load(stamped);
    edit.getPage(0)!.drawText('added after the stamp', { x: 50, y: 400, size: 14 });
    const edited = Buffer.from(await edit.save({ incremental: true }));
    const afterEdit = await s.client.validatePdfStamps(edited);
    expect(afterEdit.stamps[0].valid).toBe(true); // the stamp itself still covers its revision
    expect(afterEdit.stamps[0].changes_after).toMatchObject({ changed: true, only_signatures_dss_timestamps: false });
    expect(afterEdit.stamps[0].changes_after.revisions[0].other.join(' ')).toContain('page 1 changed');
    // The signature verifier's verdict on the same file: the stamped content was modified after it.
    expect(afterEdit.stamps[0].modified_after_stamp).toBe(true);
    expect(afterEdit.stamps[0].modifications.length).toBeGreaterThan(0);
    expect(afterEdit.stamps[0].modifications.every((m) => m.revision === 3)).toBe(true);
  });

  describe("a stamp's structure is judged by the signature verifier", () => {
    /** A PDF closed by a document time stamp written by hand, its token from the built-in authority. */
    async function handStamped(extraSigDict = '') {
      s.deps.nom151Psc = undefined;
      const signer = await psc.pki.issueSigner({ cn: 'Unused', email: 'unused@example.com' });
      return HandPdf.base().sign(psc.pki, {
        signer,
        field: 'Timestamp_1',
        extraSigDict,
        documentTimestamp: async (digest) => Buffer.from((await s.client.stampHash(digest.toString('hex'))).stamp, 'base64'),
      });
    }
    /** Writes `text` into the /Contents hex string, past the token (the bytes no digest covers). */
    function afterToken(bytes: Buffer, text: string): Buffer {
      const str = bytes.toString('latin1');
      const a = str.lastIndexOf('/Contents <') + '/Contents <'.length;
      const hex = str.slice(a, str.indexOf('>', a));
      const lengthBytes = Number.parseInt(hex.slice(2, 4), 16) & 0x7f;
      const der = 2 + lengthBytes + Number.parseInt(hex.slice(4, 4 + 2 * lengthBytes), 16);
      const out = Buffer.from(bytes);
      out.write(text, a + der * 2 + 64, 'latin1');
      return out;
    }

    it('a well-formed stamp is valid (the control)', async () => {
      const check = await s.client.validatePdfStamps((await handStamped()).bytes);
      expect(check.valid).toBe(true);
      expect(check.stamps[0]).toMatchObject({ valid: true, rule: null, problem: null, covers_revision: true, provider: 'built_in' });
    });

    it('non-zero data after the token in /Contents: valid, as what is signed is the same (the bytes lie outside the /ByteRange)', async () => {
      const bytes = afterToken((await handStamped()).bytes, 'CAFEBABE');
      const check = await s.client.validatePdfStamps(bytes);
      expect(check.valid).toBe(true);
      expect(check.stamps[0]).toMatchObject({ valid: true, rule: null, problem: null, covers_revision: true });
      expect(Object.values(check.stamps[0].checks).every(Boolean)).toBe(true);
    });

    it('a /ByteRange key given twice: not valid', async () => {
      const check = await s.client.validatePdfStamps((await handStamped('/ByteRange [0 1 2 3] ')).bytes);
      expect(check.valid).toBe(false);
      expect(check.stamps[0]).toMatchObject({ valid: false, rule: 'byte-range-duplicated', covers_revision: false });
      expect(check.stamps[0].problem).toContain('more than once');
    });
  });

  it('a PDF without stamps is not valid; a malformed one is 422', async () => {
    const none = await s.client.validatePdfStamps(signedPdf);
    expect(none).toMatchObject({ valid: false, stamps: [] });
    const broken = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
    for (const call of [s.client.stampPdf(broken), s.client.validatePdfStamps(broken)]) {
      const e = await apiError(call);
      expect(e.status).toBe(422);
    }
    const notPdf = await apiError(s.client.stampPdf(Buffer.from('hello')));
    expect(notPdf.status).toBe(422);
  });
});
