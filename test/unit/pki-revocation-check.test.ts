// What the universal rendition checks before it embeds revocation data and reads out of a CMS
// (pki/revocation-check.ts, pki/cms/cms-material.ts): answers made by the service's own responder and
// CA, then altered, misdirected or refused, each refused for its own reason.
import * as pkijs from 'pkijs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  certificateUrls,
  checkCrl,
  checkOcspResponse,
  createCrl,
  createOcspErrorResponse,
  createOcspRequest,
  createOcspResponse,
  createTimeStampReply,
  crlRevokes,
  generateServicePki,
  hasOcspNoCheck,
  importPki,
  isSelfIssued,
  issueSignerCertificate,
  pkiUrls,
  randomSerialHex,
  readCmsMaterial,
  timeStampTokenFromReply,
  type LoadedPki,
  type SignerCertificate,
} from '../../src/pki/index.js';
import { toArrayBuffer } from '../../src/pki/primitives.js';
import { createTimeStampRequest } from '../../src/pki/tsa-request.js';

const NOW = new Date();
const urls = pkiUrls('https://sello.example');
let pki: LoadedPki;
let ana: SignerCertificate;
let bruno: SignerCertificate;

const signer = (name: string) =>
  issueSignerCertificate(pki, {
    name,
    email: `${name.toLowerCase()}@example.com`,
    serialNumber: randomSerialHex(),
    now: NOW,
    ocspUrl: urls.ocsp,
    crlUrl: urls.crl,
    caIssuersUrl: urls.issuingCer,
  });

const ocspFor = (cert: SignerCertificate, status: 'good' | 'revoked' = 'good') =>
  createOcspResponse(pki, createOcspRequest({ certificateDer: cert.certificateDer, issuerDer: pki.issuing.certificateDer }), {
    now: NOW,
    lookup: async () => (status === 'good' ? { status: 'good' } : { status: 'revoked', revokedAt: NOW, reason: 1 }),
  });

beforeAll(async () => {
  pki = await importPki(await generateServicePki({ organization: 'Sello Unit', baseUrl: 'https://sello.example', now: NOW }));
  ana = await signer('Ana');
  bruno = await signer('Bruno');
});

describe('checkOcspResponse', () => {
  it('accepts a good answer of the delegated responder and hands back its certificate', async () => {
    const checked = checkOcspResponse(await ocspFor(ana), { certificateDer: ana.certificateDer, issuerDer: pki.issuing.certificateDer });
    expect(checked.certStatus).toBe('good');
    expect(checked.responderCertificatesDer.some((c) => c.equals(pki.ocsp.certificateDer))).toBe(true);
    expect(checked.thisUpdate.getTime()).toBeLessThanOrEqual(NOW.getTime());
  });

  it('reports a revoked certificate as revoked', async () => {
    const checked = checkOcspResponse(await ocspFor(ana, 'revoked'), {
      certificateDer: ana.certificateDer,
      issuerDer: pki.issuing.certificateDer,
    });
    expect(checked.certStatus).toBe('revoked');
  });

  it('refuses an answer about another certificate, an altered signature, and an error status', async () => {
    const o = { certificateDer: ana.certificateDer, issuerDer: pki.issuing.certificateDer };
    expect(() => checkOcspResponse(ocspForSync.bruno, o)).toThrow(/not about this certificate/);
    // A byte of the signature value itself, then one of the responder certificate that follows it.
    const response = pkijs.OCSPResponse.fromBER(toArrayBuffer(ocspForSync.ana));
    const basic = pkijs.BasicOCSPResponse.fromBER(toArrayBuffer(response.responseBytes!.response.valueBlock.valueHexView));
    const signature = Buffer.from(basic.signature.valueBlock.valueHexView);
    const altered = Buffer.from(ocspForSync.ana);
    altered[altered.indexOf(signature) + 10] ^= 0xff;
    expect(() => checkOcspResponse(altered, o)).toThrow(/signature does not verify/);
    const otherResponder = Buffer.from(ocspForSync.ana);
    otherResponder[otherResponder.length - 5] ^= 0xff;
    expect(() => checkOcspResponse(otherResponder, o)).toThrow(/did not authorise/);
    expect(() => checkOcspResponse(createOcspErrorResponse('tryLater'), o)).toThrow(/responseStatus 3/);
    // Asked about the issuing CA as if the root had answered: the responder is not the root's.
    expect(() => checkOcspResponse(ocspForSync.ana, { certificateDer: ana.certificateDer, issuerDer: pki.root.certificateDer })).toThrow();
  });
});

const ocspForSync = {} as { ana: Buffer; bruno: Buffer };
beforeAll(async () => {
  ocspForSync.ana = await ocspFor(ana);
  ocspForSync.bruno = await ocspFor(bruno);
});

describe('checkCrl and crlRevokes', () => {
  it('reads a CRL signed by its CA and tells which certificates it lists', async () => {
    const crl = await createCrl(pki, {
      revoked: [{ serialHex: ana.serialHex, revokedAt: NOW, reason: 1 }],
      thisUpdate: NOW,
      nextUpdate: new Date(NOW.getTime() + 86_400_000),
      crlNumber: 7,
    });
    const checked = checkCrl(crl, { issuerDer: pki.issuing.certificateDer });
    expect(crlRevokes(checked, ana.certificateDer)).toBe(true);
    expect(crlRevokes(checked, bruno.certificateDer)).toBe(false);
  });

  it("refuses another CA's CRL and an altered one", async () => {
    const root = await createCrl(pki, {
      issuer: 'root',
      revoked: [],
      thisUpdate: NOW,
      nextUpdate: new Date(NOW.getTime() + 1000),
      crlNumber: 1,
    });
    expect(checkCrl(root, { issuerDer: pki.root.certificateDer }).revokedSerials.size).toBe(0);
    expect(() => checkCrl(root, { issuerDer: pki.issuing.certificateDer })).toThrow(/another CA/);
    const altered = Buffer.from(root);
    altered[altered.length - 3] ^= 0xff;
    expect(() => checkCrl(altered, { issuerDer: pki.root.certificateDer })).toThrow(/signature does not verify/);
  });
});

describe('certificate addresses and kinds', () => {
  it('reads the OCSP, issuer and CRL addresses; knows the responder and the root', () => {
    expect(certificateUrls(ana.certificateDer)).toEqual({ ocsp: [urls.ocsp], caIssuers: [urls.issuingCer], crl: [urls.crl] });
    expect(certificateUrls(pki.root.certificateDer)).toEqual({ ocsp: [], caIssuers: [], crl: [] });
    expect(hasOcspNoCheck(pki.ocsp.certificateDer)).toBe(true);
    expect(hasOcspNoCheck(ana.certificateDer)).toBe(false);
    expect(isSelfIssued(pki.root.certificateDer)).toBe(true);
    expect(isSelfIssued(pki.issuing.certificateDer)).toBe(false);
  });
});

describe('readCmsMaterial', () => {
  it("finds a time-stamp token's signer among its certificates, padding or not", async () => {
    const imprint = new Uint8Array(32).fill(7);
    const reply = await createTimeStampReply(pki, createTimeStampRequest(imprint, new Uint8Array([1, 2, 3])), {
      now: NOW,
      serialNumber: randomSerialHex(),
      policyOid: '1.2.3.4',
    });
    const token = timeStampTokenFromReply(reply);
    for (const bytes of [token, Buffer.concat([token, Buffer.alloc(4096)])]) {
      const m = readCmsMaterial(bytes);
      expect(m.signerCertificateDer.equals(pki.tsa.certificateDer)).toBe(true);
      expect(m.certificatesDer.some((c) => c.equals(pki.issuing.certificateDer))).toBe(true);
      expect(m.timeStampTokensDer).toEqual([]);
    }
    expect(() => readCmsMaterial(Buffer.from('not cms'))).toThrow(/not DER CMS|SignedData/);
  });
});
