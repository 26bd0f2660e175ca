// The public PKI endpoints, exercised with openssl as the client and the judge.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derToPem, issueSignerCertificate, pkiUrls, randomSerialHex } from '../../src/pki/index.js';
import { recordIssuedCertificate, revokeCertificate } from '../../src/store/pki-repo.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let dir: string;
const file = (name: string) => join(dir, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
// openssl as an OCSP client talks to the server in this very process: it must run without
// blocking the event loop, or the server could never answer it.
// Both streams: openssl reports verification results ("verify OK", "Response verify OK") on stderr.
const opensslAsync = async (...args: string[]) => {
  try {
    const r = await promisify(execFile)('openssl', args, { encoding: 'utf8' });
    return r.stdout + r.stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}[exit non-zero]`;
  }
};

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'sello-pki-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function download(path: string, name: string) {
  const res = await fetch(s.baseUrl + path);
  expect(res.status).toBe(200);
  writeFileSync(file(name), Buffer.from(await res.arrayBuffer()));
  return res;
}

async function signer(name: string, opts: { record?: boolean } = {}) {
  const pki = s.deps.pki.pki;
  const urls = pkiUrls(s.baseUrl);
  const cert = await issueSignerCertificate(pki, {
    name,
    email: `${name.toLowerCase()}@example.com`,
    serialNumber: randomSerialHex(),
    now: new Date(),
    ocspUrl: urls.ocsp,
    crlUrl: urls.crl,
    caIssuersUrl: urls.issuingCer,
  });
  if (opts.record !== false) {
    await recordIssuedCertificate(s.deps.db, {
      serialHex: cert.serialHex,
      kind: 'signer',
      subject: name,
      notBefore: cert.notBefore,
      notAfter: cert.notAfter,
    });
  }
  writeFileSync(file(`${name}.pem`), derToPem(cert.certificateDer, 'CERTIFICATE'));
  return cert;
}

describe('certificates', () => {
  it('serves the root and the chain; a signer certificate verifies against them', async () => {
    const ca = await download('/pki/ca.pem', 'root.pem');
    expect(ca.headers.get('content-type')).toMatch(/pem/);
    await download('/pki/chain.pem', 'chain.pem');
    await download('/pki/issuing.cer', 'issuing.cer');
    openssl('x509', '-inform', 'DER', '-in', file('issuing.cer'), '-out', file('issuing.pem'));
    expect(openssl('x509', '-in', file('root.pem'), '-noout', '-text')).toMatch(/CA:TRUE/);
    await signer('Ana');
    expect(openssl('verify', '-CAfile', file('root.pem'), '-untrusted', file('chain.pem'), file('Ana.pem'))).toMatch(/Ana\.pem: OK/);
  });
});

describe('OCSP', () => {
  it('answers good, then revoked, over POST to the URL in the certificate', async () => {
    const cert = await signer('Bruno');
    const args = [
      'ocsp',
      '-url',
      `${s.baseUrl}/pki/ocsp`,
      '-issuer',
      file('issuing.pem'),
      '-cert',
      file('Bruno.pem'),
      '-CAfile',
      file('root.pem'),
    ];
    let out = await opensslAsync(...args);
    expect(out).toMatch(/Bruno\.pem: good/);
    await revokeCertificate(s.deps.db, cert.serialHex, new Date(), 1);
    out = await opensslAsync(...args, '-resp_text');
    expect(out).toMatch(/Bruno\.pem: revoked/);
    expect(out).toMatch(/Revocation Reason: keyCompromise/);
    expect(out).toMatch(/Response verify OK/);
  });
  it('answers unknown for a serial it has no record of', async () => {
    await signer('Carla', { record: false });
    const out = await opensslAsync(
      'ocsp',
      '-url',
      `${s.baseUrl}/pki/ocsp`,
      '-issuer',
      file('issuing.pem'),
      '-cert',
      file('Carla.pem'),
      '-CAfile',
      file('root.pem'),
    );
    expect(out).toMatch(/Carla\.pem: unknown/);
  });
  it('answers unauthorized for a certificate of another issuer', async () => {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      file('x.key'),
      '-out',
      file('x.pem'),
      '-subj',
      '/CN=stranger',
      '-days',
      '1',
    );
    const out = await opensslAsync(
      'ocsp',
      '-url',
      `${s.baseUrl}/pki/ocsp`,
      '-issuer',
      file('x.pem'),
      '-cert',
      file('x.pem'),
      '-CAfile',
      file('root.pem'),
    );
    expect(out).toMatch(/Responder Error: unauthorized/);
  });
});

describe('CRL', () => {
  it('serves a CRL signed by the issuing CA that lists the revoked certificate', async () => {
    await download('/pki/crl', 'issuing.crl');
    const text = await opensslAsync('crl', '-inform', 'DER', '-in', file('issuing.crl'), '-noout', '-text', '-CAfile', file('chain.pem'));
    expect(text).toMatch(/verify OK/);
    expect(text).toMatch(/Revoked Certificates:/);
    expect(text).toMatch(/Key Compromise/);
    expect(text).not.toMatch(/exit non-zero/);
    await download('/pki/root-crl', 'root.crl');
    expect(await opensslAsync('crl', '-inform', 'DER', '-in', file('root.crl'), '-noout', '-CAfile', file('root.pem'))).toMatch(
      /verify OK/,
    );
  });
});

describe('time-stamp authority', () => {
  it('answers an RFC 3161 query that openssl verifies, and refuses a changed file', async () => {
    writeFileSync(file('data.txt'), 'contract bytes');
    openssl('ts', '-query', '-data', file('data.txt'), '-sha256', '-cert', '-out', file('q.tsq'));
    const res = await fetch(`${s.baseUrl}/tsa`, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query' },
      body: readFileSync(file('q.tsq')),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/timestamp-reply');
    writeFileSync(file('r.tsr'), Buffer.from(await res.arrayBuffer()));
    expect(openssl('ts', '-reply', '-in', file('r.tsr'), '-text')).toMatch(/Status: Granted/);
    expect(
      openssl(
        'ts',
        '-verify',
        '-data',
        file('data.txt'),
        '-in',
        file('r.tsr'),
        '-CAfile',
        file('root.pem'),
        '-untrusted',
        file('chain.pem'),
      ),
    ).toMatch(/Verification: OK/);
    writeFileSync(file('data.txt'), 'contract bytes, changed');
    expect(() =>
      openssl(
        'ts',
        '-verify',
        '-data',
        file('data.txt'),
        '-in',
        file('r.tsr'),
        '-CAfile',
        file('root.pem'),
        '-untrusted',
        file('chain.pem'),
      ),
    ).toThrow();
  });
  it('refuses a request of the wrong media type', async () => {
    const res = await fetch(`${s.baseUrl}/tsa`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(res.status).toBe(415);
  });
});
