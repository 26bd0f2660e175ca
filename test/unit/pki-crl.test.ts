// CRLs of the issuing CA and of the root, read and verified by `openssl crl` and used by
// `openssl verify -crl_check`. The clock is read once; OpenSSL checks nextUpdate against the real one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCrl } from '../../src/pki/crl.js';
import { generateServicePki, importPki } from '../../src/pki/material.js';
import type { LoadedPki } from '../../src/pki/material-types.js';
import { pkiUrls } from '../../src/pki/pki-urls.js';
import { derToPem } from '../../src/pki/pem.js';
import { integerToSerialHex, randomSerialHex } from '../../src/pki/primitives.js';
import { issueSignerCertificate, type SignerCertificate } from '../../src/pki/signer-certificate.js';

const NOW = new Date();
const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'sello-pki-crl-'));

function openssl(...args: string[]): { ok: boolean; out: string } {
  const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  return { ok: result.status === 0, out: `${result.stdout}${result.stderr}` };
}
const put = (name: string, data: Uint8Array | string) => writeFileSync(join(dir, name), data);
const read = (name: string) => readFileSync(join(dir, name), 'utf8');

let pki: LoadedPki;
let kept: SignerCertificate;
let lost: SignerCertificate;

beforeAll(async () => {
  pki = await importPki(await generateServicePki({ organization: 'Sello CRL Test', baseUrl: 'https://crl.example.test', now: NOW }));
  const urls = pkiUrls('https://crl.example.test');
  const issue = (name: string) =>
    issueSignerCertificate(pki, {
      name,
      email: 'a@example.test',
      serialNumber: randomSerialHex(),
      now: NOW,
      ocspUrl: urls.ocsp,
      crlUrl: urls.crl,
    });
  [kept, lost] = await Promise.all([issue('Kept'), issue('Lost')]);
  put('root.pem', derToPem(pki.root.certificateDer, 'CERTIFICATE'));
  put('issuing.pem', derToPem(pki.issuing.certificateDer, 'CERTIFICATE'));
  put('kept.pem', derToPem(kept.certificateDer, 'CERTIFICATE'));
  put('lost.pem', derToPem(lost.certificateDer, 'CERTIFICATE'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const window = { thisUpdate: NOW, nextUpdate: new Date(NOW.getTime() + DAY) };

describe('createCrl', () => {
  it('lists the revoked serials with reasons, CRL number and AKI, and verifies under the issuing CA', async () => {
    const crl = await createCrl(pki, {
      ...window,
      crlNumber: 42,
      revoked: [
        { serialHex: lost.serialHex, revokedAt: new Date(NOW.getTime() - 60_000), reason: 1 },
        { serialHex: '0A:0B:0C:0D:0E:0F:10:11', revokedAt: NOW },
      ],
    });
    put('issuing.crl', crl);
    const text = openssl('crl', '-inform', 'DER', '-in', 'issuing.crl', '-noout', '-text').out;
    expect(text).toContain('Version 2 (0x1)');
    expect(text).toContain('Issuer: O = Sello CRL Test, CN = Sello CRL Test Signing CA');
    expect(text).toMatch(/X509v3 CRL Number:\s+42/);
    expect(text).toContain('X509v3 Authority Key Identifier');
    expect(text).toMatch(
      new RegExp(
        `Serial Number: ${lost.serialHex.toUpperCase()}\\s+Revocation Date: .*GMT\\s+CRL entry extensions:\\s+X509v3 CRL Reason Code:\\s+Key Compromise`,
      ),
    );
    expect(text).toMatch(/Serial Number: 0A0B0C0D0E0F1011\s+Revocation Date: .*GMT\s+(Serial|Signature)/); // no reason: unspecified is omitted
    expect(text).toContain('Signature Algorithm: sha256WithRSAEncryption');
    expect(openssl('crl', '-inform', 'DER', '-in', 'issuing.crl', '-CAfile', 'issuing.pem', '-noout').out).toContain('verify OK');
    expect(openssl('crl', '-inform', 'DER', '-in', 'issuing.crl', '-CAfile', 'root.pem', '-noout').out).not.toContain('verify OK');
  });

  it('makes openssl verify -crl_check refuse the revoked certificate and accept the other', () => {
    expect(openssl('crl', '-inform', 'DER', '-in', 'issuing.crl', '-out', 'issuing-crl.pem').ok).toBe(true);
    const base = ['verify', '-crl_check', '-CRLfile', 'issuing-crl.pem', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem'];
    expect(openssl(...base, 'kept.pem').out).toContain('kept.pem: OK');
    const refused = openssl(...base, 'lost.pem');
    expect(refused.ok).toBe(false);
    expect(refused.out).toContain('certificate revoked');
  });

  it('omits the revoked list when nothing is revoked', async () => {
    put('empty.crl', await createCrl(pki, { ...window, crlNumber: 1n, revoked: [] }));
    const text = openssl('crl', '-inform', 'DER', '-in', 'empty.crl', '-noout', '-text').out;
    expect(text).toContain('No Revoked Certificates.');
    expect(text).toMatch(/X509v3 CRL Number:\s+1\b/);
  });

  it('signs the root CRL, which covers the issuing CA for crl_check_all', async () => {
    put('root.crl', await createCrl(pki, { ...window, crlNumber: 7, issuer: 'root', revoked: [] }));
    expect(openssl('crl', '-inform', 'DER', '-in', 'root.crl', '-CAfile', 'root.pem', '-noout').out).toContain('verify OK');
    expect(openssl('crl', '-inform', 'DER', '-in', 'root.crl', '-out', 'root-crl.pem').ok).toBe(true);
    put('crls.pem', read('root-crl.pem') + read('issuing-crl.pem'));
    const all = ['verify', '-crl_check_all', '-CRLfile', 'crls.pem', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem'];
    expect(openssl(...all, 'kept.pem').out).toContain('kept.pem: OK');

    const issuingSerial = integerToSerialHex(pki.issuing.certificate.serialNumber);
    put(
      'root-revoking.crl',
      await createCrl(pki, { ...window, crlNumber: 8, issuer: 'root', revoked: [{ serialHex: issuingSerial, revokedAt: NOW, reason: 2 }] }),
    );
    expect(openssl('crl', '-inform', 'DER', '-in', 'root-revoking.crl', '-noout', '-text').out).toContain('CA Compromise');
    expect(openssl('crl', '-inform', 'DER', '-in', 'root-revoking.crl', '-out', 'root-revoking-crl.pem').ok).toBe(true);
    put('crls-revoking.pem', read('root-revoking-crl.pem') + read('issuing-crl.pem'));
    const refused = openssl(
      'verify',
      '-crl_check_all',
      '-CRLfile',
      'crls-revoking.pem',
      '-CAfile',
      'root.pem',
      '-untrusted',
      'issuing.pem',
      'kept.pem',
    );
    expect(refused.ok).toBe(false);
    expect(refused.out).toContain('certificate revoked');
  });

  it('refuses bad arguments and a root CRL without the root key', async () => {
    await expect(createCrl(pki, { ...window, crlNumber: 1, revoked: [{ serialHex: '01', revokedAt: NOW, reason: 7 }] })).rejects.toThrow(
      /reason code 7/,
    );
    await expect(createCrl(pki, { thisUpdate: NOW, nextUpdate: NOW, crlNumber: 1, revoked: [] })).rejects.toThrow(/nextUpdate/);
    await expect(createCrl(pki, { ...window, crlNumber: -1, revoked: [] })).rejects.toThrow(/crlNumber/);
    const offline: LoadedPki = { ...pki, root: { ...pki.root, key: undefined } };
    await expect(createCrl(offline, { ...window, crlNumber: 1, issuer: 'root', revoked: [] })).rejects.toMatchObject({
      code: 'missing_key',
    });
  });
});
