// The OCSP responder, fed requests made by `openssl ocsp` and checked by `openssl ocsp -respin`.
// The clock is read once; OpenSSL checks thisUpdate/nextUpdate against the real one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateServicePki, importPki } from '../../src/pki/material.js';
import type { LoadedPki } from '../../src/pki/material-types.js';
import { pkiUrls } from '../../src/pki/pki-urls.js';
import { createOcspRequest, createOcspResponse, decodeOcspGetRequest, type OcspCertStatus } from '../../src/pki/ocsp.js';
import { derToPem } from '../../src/pki/pem.js';
import { integerToSerialHex, randomSerialHex } from '../../src/pki/primitives.js';
import { issueSignerCertificate, type SignerCertificate } from '../../src/pki/signer-certificate.js';

const NOW = new Date();
const dir = mkdtempSync(join(tmpdir(), 'sello-pki-ocsp-'));

function openssl(...args: string[]): { ok: boolean; out: string } {
  const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  return { ok: result.status === 0, out: `${result.stdout}${result.stderr}` };
}
const file = (name: string) => readFileSync(join(dir, name));
const put = (name: string, data: Uint8Array | string) => writeFileSync(join(dir, name), data);

let pki: LoadedPki;
let good: SignerCertificate;
let revoked: SignerCertificate;
let unknown: SignerCertificate;
const statuses = new Map<string, OcspCertStatus>();
const lookups: string[] = [];
const lookup = async (serialHex: string): Promise<OcspCertStatus> => {
  lookups.push(serialHex);
  return statuses.get(serialHex) ?? { status: 'unknown' };
};
const respond = async (requestFile: string, responseFile: string) => {
  const der = await createOcspResponse(pki, file(requestFile), { now: NOW, lookup });
  put(responseFile, der);
  return der;
};
/** `openssl ocsp -respin` with our root as the only trust anchor. */
const check = (responseFile: string, ...args: string[]) =>
  openssl('ocsp', '-respin', responseFile, '-issuer', 'issuing.pem', '-CAfile', 'root.pem', '-resp_text', ...args);

beforeAll(async () => {
  pki = await importPki(await generateServicePki({ organization: 'Sello OCSP Test', baseUrl: 'https://ocsp.example.test', now: NOW }));
  const urls = pkiUrls('https://ocsp.example.test');
  const issue = (name: string) =>
    issueSignerCertificate(pki, {
      name,
      email: 'a@example.test',
      serialNumber: randomSerialHex(),
      now: NOW,
      ocspUrl: urls.ocsp,
      crlUrl: urls.crl,
    });
  [good, revoked, unknown] = await Promise.all([issue('Good'), issue('Revoked'), issue('Unknown')]);
  statuses.set(good.serialHex, { status: 'good' });
  statuses.set(revoked.serialHex, { status: 'revoked', revokedAt: new Date(NOW.getTime() - 60_000), reason: 1 });
  put('root.pem', derToPem(pki.root.certificateDer, 'CERTIFICATE'));
  put('issuing.pem', derToPem(pki.issuing.certificateDer, 'CERTIFICATE'));
  put('good.pem', derToPem(good.certificateDer, 'CERTIFICATE'));
  put('revoked.pem', derToPem(revoked.certificateDer, 'CERTIFICATE'));
  put('unknown.pem', derToPem(unknown.certificateDer, 'CERTIFICATE'));
  put('tsa.pem', derToPem(pki.tsa.certificateDer, 'CERTIFICATE'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createOcspResponse, checked by openssl ocsp', () => {
  it('answers good for a request without nonce, signed by the delegated responder', async () => {
    expect(openssl('ocsp', '-issuer', 'issuing.pem', '-cert', 'good.pem', '-reqout', 'good.req', '-no_nonce').ok).toBe(true);
    await respond('good.req', 'good.resp');
    const result = check('good.resp', '-cert', 'good.pem', '-no_nonce');
    expect(result.out).toContain('Response verify OK');
    expect(result.out).toContain('good.pem: good');
    expect(result.out).toContain('OCSP Response Status: successful (0x0)');
    expect(result.out).toMatch(/Responder Id: [0-9A-F]{40}/); // byKey
    expect(result.out).toContain('Subject: O=Sello OCSP Test, CN=Sello OCSP Test OCSP Responder'); // the responder certificate travels along
    expect(result.out).toMatch(/This Update: .*GMT\s+Next Update: .*GMT/);
    expect(result.out).not.toContain('OCSP Nonce');
    expect(lookups).toContain(good.serialHex);
  });

  it('echoes the nonce, which openssl checks against its request', async () => {
    expect(openssl('ocsp', '-issuer', 'issuing.pem', '-cert', 'good.pem', '-reqout', 'nonce.req', '-nonce').ok).toBe(true);
    await respond('nonce.req', 'nonce.resp');
    const result = check('nonce.resp', '-reqin', 'nonce.req');
    expect(result.out).toContain('Response verify OK');
    expect(result.out).toContain('Cert Status: good');
    expect(result.out).toContain('OCSP Nonce');
    expect(result.out).not.toMatch(/WARNING|nonce verify error/i);
    const requestNonce = /OCSP Nonce:\s*\n\s*([0-9A-F]+)/.exec(openssl('ocsp', '-reqin', 'nonce.req', '-req_text').out)![1];
    expect(/OCSP Nonce:\s*\n\s*([0-9A-F]+)/.exec(result.out)![1]).toBe(requestNonce);
  });

  it('reports revoked with time and reason, and unknown for serials the store does not know', async () => {
    expect(
      openssl('ocsp', '-issuer', 'issuing.pem', '-cert', 'revoked.pem', '-cert', 'unknown.pem', '-reqout', 'two.req', '-no_nonce').ok,
    ).toBe(true);
    await respond('two.req', 'two.resp');
    const result = check('two.resp', '-cert', 'revoked.pem', '-cert', 'unknown.pem', '-no_nonce');
    expect(result.out).toContain('Response verify OK');
    expect(result.out).toMatch(/revoked\.pem: revoked[\s\S]*Reason: keyCompromise[\s\S]*Revocation Time: /);
    expect(result.out).toContain('unknown.pem: unknown');
  });

  it('answers for the TSA certificate too, which the same issuing CA signed', async () => {
    statuses.set(integerToSerialHex(pki.tsa.certificate.serialNumber), { status: 'good' });
    expect(openssl('ocsp', '-issuer', 'issuing.pem', '-cert', 'tsa.pem', '-reqout', 'tsa.req', '-no_nonce').ok).toBe(true);
    await respond('tsa.req', 'tsa.resp');
    const result = check('tsa.resp', '-cert', 'tsa.pem', '-no_nonce');
    expect(result.out).toContain('Response verify OK');
    expect(result.out).toContain('tsa.pem: good');
  });

  it('answers unauthorized for another issuer and malformedRequest for garbage', async () => {
    // The issuing CA's own status belongs to the root, not to this responder.
    expect(openssl('ocsp', '-issuer', 'root.pem', '-cert', 'issuing.pem', '-reqout', 'foreign.req', '-no_nonce').ok).toBe(true);
    await respond('foreign.req', 'foreign.resp');
    expect(openssl('ocsp', '-respin', 'foreign.resp', '-resp_text', '-noverify').out).toContain('Responder Error: unauthorized (6)');
    put('garbage.req', Buffer.from('definitely not DER'));
    await respond('garbage.req', 'garbage.resp');
    expect(openssl('ocsp', '-respin', 'garbage.resp', '-resp_text', '-noverify').out).toContain('Responder Error: malformedrequest (1)');
    put('trailing.req', Buffer.concat([file('good.req'), Buffer.from([0])]));
    await respond('trailing.req', 'trailing.resp');
    expect(openssl('ocsp', '-respin', 'trailing.resp', '-resp_text', '-noverify').out).toContain('Responder Error: malformedrequest (1)');
  });

  it('refuses nonces longer than 32 octets (RFC 8954)', async () => {
    const request = createOcspRequest({
      certificateDer: good.certificateDer,
      issuerDer: pki.issuing.certificateDer,
      nonce: new Uint8Array(33).fill(7),
    });
    put('long-nonce.resp', await createOcspResponse(pki, request, { now: NOW, lookup }));
    expect(openssl('ocsp', '-respin', 'long-nonce.resp', '-resp_text', '-noverify').out).toContain('malformedrequest');
  });
});

describe('OCSP helpers', () => {
  it('builds requests openssl reads and the responder answers, SHA-256 CertIDs included', async () => {
    const request = createOcspRequest({
      certificateDer: good.certificateDer,
      issuerDer: pki.issuing.certificateDer,
      nonce: new Uint8Array(16).fill(9),
      hash: 'SHA-256',
    });
    put('ours.req', request);
    const text = openssl('ocsp', '-reqin', 'ours.req', '-req_text').out;
    expect(text).toContain('Hash Algorithm: sha256');
    expect(text).toContain(`Serial Number: ${good.serialHex.toUpperCase()}`);
    await respond('ours.req', 'ours.resp');
    const result = check('ours.resp', '-reqin', 'ours.req');
    expect(result.out).toContain('Response verify OK');
    expect(result.out).toContain('Cert Status: good');
  });

  it('decodes the GET form of RFC 6960 Appendix A.1', () => {
    const request = file('good.req');
    const segment = encodeURIComponent(request.toString('base64'));
    expect(Buffer.from(decodeOcspGetRequest(segment)!).equals(request)).toBe(true);
    expect(Buffer.from(decodeOcspGetRequest(request.toString('base64url'))!).equals(request)).toBe(true);
    expect(decodeOcspGetRequest('%%%')).toBeUndefined();
    expect(decodeOcspGetRequest('not base64!')).toBeUndefined();
  });
});
