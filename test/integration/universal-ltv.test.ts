// The universal rendition (PAdES B-LTA) where long-term validation matters: judged with the
// service gone and its signer certificates ended, from the embedded data alone; and with an
// external time-stamp authority, whose validation data comes from its certificates' addresses.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Deps } from '../../src/domain/deps.js';
import { checkFileSignatures } from '../../src/domain/documents/signature-report.js';
import { verifyPdf } from '../../src/pdf/verify/verify-pdf.js';
import { derToPem, pemCertificates } from '../../src/pki/index.js';
import type { SignatureReport } from '../../src/schemas/report.js';
import { apiError } from '../helpers/api-error.js';
import { DAY, movableClock } from '../helpers/flow-clock.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { opensslTsVerify } from '../helpers/openssl-ts.js';
import { dssOf, opensslLtaCheck, opensslVerifyFromDss, pdfsigShifted, signatureTimestamps, signedDocument } from '../helpers/universal.js';
import { expectLta, history, retryNow } from '../helpers/universal-checks.js';
import { pdfsig } from '../helpers/validators.js';

let s: TestServer;
let jobs: JobRunner;
let rootPem: string;
let pdf: string;

beforeAll(async () => {
  s = await startTestServer();
  jobs = jobRunner(s.connectionString, s.deps);
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
});

describe('universal rendition validated offline, after the signer certificates ended', () => {
  it('built with the clock past the signer certificates; checks out with the OCSP and CRL endpoints gone', async () => {
    const own = movableClock();
    // Signer certificates of one day (the default is five years), so that they can end in the test.
    const t = await startTestServer({ clock: own, env: { SELLO_SIGNER_CERT_DAYS: '1' } });
    const runner = jobRunner(t.connectionString, t.deps);
    let universal: Buffer;
    let original: Buffer;
    let root: string;
    let signedAt: Date;
    let judgedAt: Date;
    let report: SignatureReport;
    let inProcessReport: SignatureReport;
    try {
      root = await (await fetch(`${t.baseUrl}/pki/ca.pem`)).text();
      const ticket = await signedDocument(t, pdf, ['Elena Sol']);
      signedAt = own.now();
      // The job runs two days later (say, after retries): the signer certificate (one day) has ended.
      own.advance(2 * DAY);
      await runner.runDue();
      universal = (await t.client.downloadDocument('universal', ticket)).bytes;
      original = (await t.client.downloadDocument('original', ticket)).bytes;

      // The OCSP responder and both CRL endpoints switched off, nothing fetched from anywhere, and
      // the service's clock a year past the signer certificate's end: its own verifier (POST
      // /api/report) judges the rendition from what the file embeds.
      const off = async (): Promise<never> => {
        throw new Error('switched off');
      };
      t.deps.pki.ocsp = off;
      t.deps.pki.crl = off;
      t.deps.fetchPkiData = off;
      for (const path of ['/pki/crl', '/pki/root-crl']) {
        expect((await fetch(`${t.baseUrl}${path}`)).status).toBe(500);
      }
      const ocspPost = await fetch(`${t.baseUrl}/pki/ocsp`, {
        method: 'POST',
        headers: { 'content-type': 'application/ocsp-request' },
        body: new Uint8Array([0x30, 0x00]),
      });
      expect(ocspPost.status).toBe(500);
      own.advance(365 * DAY);
      judgedAt = own.now();
      report = await t.client.verifyPdf(universal);
      // The same function in this process, its PDF reader included, with the process clock moved
      // too: nothing in it may judge a certificate at the real "now" (the signer's has ended then).
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(judgedAt);
      try {
        expect(Date.now()).toBe(judgedAt.getTime());
        const inProcess = { ...t.deps, clock: own, pdfJail: { verifyPdf } as unknown as Deps['pdfJail'] };
        inProcessReport = (await checkFileSignatures(inProcess, universal, [])).report;
      } finally {
        vi.useRealTimers();
      }
    } finally {
      await runner.close();
      await t.close(); // the service is gone: its OCSP responder, CRLs and TSA with it
    }
    const signer = (await dssOf(universal)).certs.find((c) => new X509Certificate(c).subject.includes('Elena Sol'))!;
    const signerNotAfter = new Date(new X509Certificate(signer).validTo);
    const late = new Date(signedAt.getTime() + 2 * DAY);
    expect(signerNotAfter.getTime()).toBeLessThan(late.getTime());
    expect(signerNotAfter.getTime()).toBeLessThan(judgedAt.getTime());

    // The whole document, as the service's verifier judged it offline a year on: intact, no attack,
    // the signature valid and trusted at B-LTA from the embedded data (the document time stamp,
    // which no later one covers, at B-LT).
    expect(report).toMatchObject({ documentIntegrity: 'intact', attacks: [] });
    expect(report.firmas.map((f) => [f.campoFirma.startsWith('Sello-Archive') ? 'archive' : 'signature', f.validSignature])).toEqual([
      ['signature', true],
      ['archive', true],
    ]);
    expect(report.firmas.map((f) => [f.modifiedAfterSigning, f.timestampValid, f.level, f.validationData, f.ocsp.signatureValid])).toEqual([
      [false, true, 'B-LTA', 'embedded', true],
      [false, true, 'B-LT', 'embedded', true],
    ]);
    expect(inProcessReport).toEqual(report);
    // A check that judges the signer's certificate at that time instead of the signature's refuses it.
    expect(await opensslVerifyFromDss(universal, root, signer, { at: judgedAt, crlCheck: false })).toMatch(/certificate has expired/);

    // Each signature's own time-stamp token, taken from the CMS unsigned attributes, verifies with
    // openssl against the root alone (the DSS's certificates complete the path), at that late time.
    const dssPem = (await dssOf(universal)).certs.map((c) => derToPem(c, 'CERTIFICATE')).join('');
    const tokens = await signatureTimestamps(universal);
    expect(tokens).toHaveLength(1);
    for (const ts of tokens) {
      const v = await opensslTsVerify(ts.token, { digestHex: ts.imprintHex }, root, { untrustedPem: dssPem, at: judgedAt });
      expect(v.output, ts.fieldName).toMatch(/^Verification: OK$/m);
      // The same token does not cover another signature value.
      const other = await opensslTsVerify(ts.token, { digestHex: 'ab'.repeat(32) }, root, { untrustedPem: dssPem, at: judgedAt });
      expect(other.ok).toBe(false);
    }

    // Everything verified at the time of the document time stamp, from the file alone; the OCSP
    // answers were given after the signature (they vouch for the certificate past its use).
    const { lta } = await expectLta(universal, original, root, 1, late);
    for (const o of lta.ocsp) {
      const thisUpdate = Date.parse(`${/This Update: (.*)/.exec(o.text)?.[1]}`);
      expect(thisUpdate).toBeGreaterThan(signedAt.getTime());
    }
    // The signer's path at the signature time, and the CA's revocation at the archive time, with
    // the DSS's certificates and CRLs only.
    expect(await opensslVerifyFromDss(universal, root, signer, { at: signedAt, crlCheck: false })).toMatch(/leaf.pem: OK/);
    const issuing = (await dssOf(universal)).certs.find(
      (c) => new X509Certificate(c).ca && new X509Certificate(c).subject !== new X509Certificate(c).issuer,
    )!;
    expect(await opensslVerifyFromDss(universal, root, issuing, { at: late, crlCheck: true })).toMatch(/leaf.pem: OK/);
    // pdfsig on a machine whose clock is past the signer certificate's end: the signature itself
    // still verifies. poppler 22.12 judges the certificate at its own "now" and reads no DSS, so it
    // calls it expired: the long-term checks above are openssl's, from the DSS.
    const shifted = await pdfsigShifted(universal, root, '+3d');
    expect(shifted).toMatch(/Signature Validation: Signature is Valid\./);
    expect(shifted).toMatch(/Certificate has Expired/);
  });
});

describe('universal rendition with an external time-stamp authority (SELLO_TSA_URL)', () => {
  it("gathers the external TSA's chain and revocation data from its certificates' addresses; refuses when they fail", async () => {
    const other = await startTestServer({ freshPki: true });
    const otherRoot = await (await fetch(`${other.baseUrl}/pki/ca.pem`)).text();
    // The other service's certificates name http://127.0.0.1/...; its endpoints are on its own port.
    let fail = false;
    const fetched: string[] = [];
    s.deps.fetchPkiData = async (url, init) => {
      fetched.push(String(url));
      if (fail) {
        return new Response('down', { status: 503 });
      }
      return fetch(String(url).replace('http://127.0.0.1/', `${other.baseUrl}/`), init);
    };
    s.deps.externalTsa = { url: `${other.baseUrl}/tsa`, trustedRootsDer: pemCertificates(otherRoot) };
    try {
      fail = true;
      const refused = await signedDocument(s, pdf, ['Fernando Gil']);
      await jobs.runDue();
      const err = await apiError(s.client.downloadDocument('universal', refused));
      expect(err.details).toMatchObject({ universal_status: 'pending' }); // retried: pending, with the reason
      expect(String((err.details as { reason: string }).reason)).toMatch(/Time-Stamping Authority.*HTTP 503/);
      expect((await history(s, refused)).map((h) => h.action)).toContain('universal_failed');

      fail = false;
      fetched.length = 0;
      await retryNow(s);
      await jobs.runDue();
      const universal = (await s.client.downloadDocument('universal', refused)).bytes;
      const original = (await s.client.downloadDocument('original', refused)).bytes;
      expect(fetched.some((u) => u.endsWith('/pki/ocsp'))).toBe(true);
      expect(fetched.some((u) => u.endsWith('/pki/crl'))).toBe(true);
      // The signatures chain to this service's root, the time stamps to the other's.
      const report = await pdfsig(universal, rootPem);
      expect(report.signatures.filter((x) => x.type === 'ETSI.CAdES.detached').map((x) => x.valid)).toEqual([true]);
      expect(universal.subarray(0, original.length).equals(original)).toBe(true);
      const lta = await opensslLtaCheck(universal, otherRoot);
      expect(lta.tsVerify).toMatch(/Verification: OK/);
      for (const o of lta.ocsp) {
        expect(o.status).toBe('good');
      }
      const dss = await dssOf(universal);
      expect(dss.certs.some((c) => c.equals(other.deps.pki.pki.tsa.certificateDer))).toBe(true);
      expect(dss.certs.some((c) => c.equals(other.deps.pki.pki.root.certificateDer))).toBe(true);
      expect(dss.crls).toHaveLength(4); // each service's issuing CA and root
    } finally {
      s.deps.externalTsa = undefined;
      s.deps.fetchPkiData = undefined;
      await other.close();
    }
  });
});
