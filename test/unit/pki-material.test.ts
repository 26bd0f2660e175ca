// The service PKI and signer certificates, checked by OpenSSL (x509 -text, verify -purpose), not
// by the code that made them. The clock is the real one, read once: OpenSSL checks validity against
// it, so the injected `now` has to agree with it.
import { spawnSync } from 'node:child_process';
import { X509Certificate, createPrivateKey, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PkiError } from '../../src/pki/errors.js';
import { generateServicePki, importPki } from '../../src/pki/material.js';
import type { LoadedPki, PkiMaterial } from '../../src/pki/material-types.js';
import { pkiUrls } from '../../src/pki/pki-urls.js';
import { loadPkiFromPem, loadPkiFromPkcs12 } from '../../src/pki/operator-material.js';
import { certificatesToPem, derToPem, pemToDer } from '../../src/pki/pem.js';
import { randomSerialHex, subtle } from '../../src/pki/primitives.js';
import { openPkiMaterial, sealPkiMaterial } from '../../src/pki/sealed-material.js';
import { createSecretBox } from '../../src/pki/secret-box.js';
import { keyMatchesCertificate } from '../../src/pki/service-key.js';
import { SIGNER_CERT_DAYS, issueSignerCertificate } from '../../src/pki/signer-certificate.js';

const NOW = new Date();
const BASE = 'https://sign.example.test';
const dir = mkdtempSync(join(tmpdir(), 'sello-pki-material-'));

function openssl(...args: string[]): { ok: boolean; out: string } {
  const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  return { ok: result.status === 0, out: `${result.stdout}${result.stderr}` };
}
const write = (name: string, der: Uint8Array) => writeFileSync(join(dir, name), derToPem(der, 'CERTIFICATE'));
const text = (name: string) => openssl('x509', '-in', name, '-noout', '-text').out;
/** The lines of `openssl x509 -text` from an extension's name to the next extension. */
const extension = (dump: string, name: string) => {
  const lines = dump.split('\n');
  const at = lines.findIndex((line) => line.includes(name));
  const body = at < 0 ? [] : lines.slice(at + 1);
  const end = body.findIndex((line) => !/^ {16}/.test(line));
  return at < 0 ? '' : [lines[at], ...body.slice(0, end < 0 ? undefined : end)].map((l) => l.trim()).join('\n');
};

let material: PkiMaterial;
let pki: LoadedPki;

beforeAll(async () => {
  material = await generateServicePki({ organization: 'Sello Test, Inc.', country: 'FR', baseUrl: `${BASE}/`, now: NOW });
  pki = await importPki(material);
  write('root.pem', material.root.certificateDer);
  write('issuing.pem', material.issuing.certificateDer);
  write('tsa.pem', material.tsa.certificateDer);
  write('ocsp.pem', material.ocsp.certificateDer);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generated service PKI', () => {
  it('has an RSA-3072 self-signed root CA', () => {
    const dump = text('root.pem');
    expect(dump).toContain('Subject: C = FR, O = "Sello Test, Inc.", CN = "Sello Test, Inc. Root CA"');
    expect(dump).toContain('Public-Key: (3072 bit)');
    expect(dump).toContain('Signature Algorithm: sha256WithRSAEncryption');
    expect(extension(dump, 'X509v3 Basic Constraints')).toMatch(/critical\s+CA:TRUE$/);
    expect(extension(dump, 'X509v3 Key Usage')).toMatch(/critical\s+Certificate Sign, CRL Sign$/);
    expect(openssl('verify', '-CAfile', 'root.pem', 'root.pem').out).toContain('root.pem: OK');
  });

  it('has an issuing CA with pathlen 0 under the root, its status in the root CRL', () => {
    const dump = text('issuing.pem');
    expect(dump).toContain('Issuer: C = FR, O = "Sello Test, Inc.", CN = "Sello Test, Inc. Root CA"');
    expect(extension(dump, 'X509v3 Basic Constraints')).toMatch(/critical\s+CA:TRUE, pathlen:0$/);
    expect(extension(dump, 'X509v3 CRL Distribution Points')).toContain(`URI:${BASE}/pki/root-crl`);
    expect(dump).toContain('X509v3 Authority Key Identifier');
    expect(openssl('verify', '-CAfile', 'root.pem', 'issuing.pem').out).toContain('issuing.pem: OK');
  });

  it('has a TSA certificate with a critical timeStamping EKU, accepted for timestampsign', () => {
    const dump = text('tsa.pem');
    expect(dump).toContain('Issuer: C = FR, O = "Sello Test, Inc.", CN = "Sello Test, Inc. Signing CA"');
    expect(extension(dump, 'X509v3 Extended Key Usage')).toMatch(/critical\s+Time Stamping$/);
    expect(extension(dump, 'X509v3 Key Usage')).toMatch(/critical\s+Digital Signature$/);
    expect(extension(dump, 'Authority Information Access')).toContain(`OCSP - URI:${BASE}/pki/ocsp`);
    const verified = openssl('verify', '-purpose', 'timestampsign', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem', 'tsa.pem');
    expect(verified.out).toContain('tsa.pem: OK');
  });

  it('has a delegated OCSP responder certificate with ocsp-nocheck', () => {
    const dump = text('ocsp.pem');
    expect(dump).toContain('CN = "Sello Test, Inc. OCSP Responder"');
    expect(extension(dump, 'X509v3 Extended Key Usage')).toMatch(/OCSP Signing$/);
    expect(dump).toContain('OCSP No Check');
    const verified = openssl('verify', '-purpose', 'ocsphelper', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem', 'ocsp.pem');
    expect(verified.out).toContain('ocsp.pem: OK');
  });

  it('opens keys in this process that sign for their own certificates, and exposes the chain', async () => {
    const pairs = [
      [pki.root.key!, material.root.certificateDer],
      [pki.issuing.key, material.issuing.certificateDer],
      [pki.tsa.key, material.tsa.certificateDer],
      [pki.ocsp.key, material.ocsp.certificateDer],
    ] as const;
    for (const [key, certificateDer] of pairs) {
      expect(key.location).toBe('software');
      expect(await keyMatchesCertificate(key, certificateDer)).toBe(true);
    }
    expect(await keyMatchesCertificate(pki.tsa.key, material.ocsp.certificateDer)).toBe(false);
    expect(pki.chainDer).toEqual([material.issuing.certificateDer, material.root.certificateDer]);
    expect(pkiUrls(`${BASE}/`).crl).toBe(`${BASE}/pki/crl`);
  });

  it('seals the keys for storage and opens them again only with the master key', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = sealPkiMaterial(material, box);
    const json = JSON.stringify(sealed);
    expect(json).not.toContain(material.issuing.privateKeyPkcs8!.toString('base64').slice(0, 40));
    const opened = openPkiMaterial(JSON.parse(json), box);
    expect(opened.issuing.privateKeyPkcs8?.equals(material.issuing.privateKeyPkcs8!)).toBe(true);
    expect(opened.root.privateKeyPkcs8?.equals(material.root.privateKeyPkcs8!)).toBe(true);
    expect(() => openPkiMaterial(sealed, createSecretBox(randomBytes(32)))).toThrow();
  });

  it('refuses inconsistent material', async () => {
    const swapped = { ...material, tsa: { certificateDer: material.tsa.certificateDer, privateKeyPkcs8: material.ocsp.privateKeyPkcs8! } };
    await expect(importPki(swapped)).rejects.toThrow(/TSA private key does not match/);
    const wrongTsa = { ...material, tsa: material.ocsp };
    await expect(importPki(wrongTsa)).rejects.toThrow(/timeStamping/);
    const notChained = { ...material, root: { certificateDer: material.issuing.certificateDer } };
    await expect(importPki(notChained)).rejects.toBeInstanceOf(PkiError);
  });
});

describe('signer certificates', () => {
  const urls = pkiUrls(BASE);
  const issue = (overrides: Partial<Parameters<typeof issueSignerCertificate>[1]> = {}) =>
    issueSignerCertificate(pki, {
      name: 'Zoé Lefèvre',
      email: 'zoe@exemple.fr',
      phone: '+33 6 12 34 56 78',
      serialNumber: randomSerialHex(),
      now: NOW,
      ocspUrl: urls.ocsp,
      crlUrl: urls.crl,
      caIssuersUrl: urls.issuingCer,
      ...overrides,
    });

  it('names the signer, carries the usages NSS and Acrobat want, and verifies to the root', async () => {
    const signer = await issue();
    write('signer.pem', signer.certificateDer);
    const dump = text('signer.pem');
    expect(dump).toContain('Subject: CN = Zo\\C3\\A9 Lef\\C3\\A8vre');
    expect(dump).toContain(`Serial Number:`);
    expect(extension(dump, 'X509v3 Key Usage')).toMatch(/critical\s+Digital Signature, Non Repudiation$/);
    expect(extension(dump, 'X509v3 Extended Key Usage')).toMatch(/E-mail Protection$/);
    expect(extension(dump, 'X509v3 Subject Alternative Name')).toContain('email:zoe@exemple.fr, URI:tel:+33612345678');
    const aia = extension(dump, 'Authority Information Access');
    expect(aia).toContain(`OCSP - URI:${BASE}/pki/ocsp`);
    expect(aia).toContain(`CA Issuers - URI:${BASE}/pki/issuing.cer`);
    expect(extension(dump, 'X509v3 CRL Distribution Points')).toContain(`URI:${BASE}/pki/crl`);
    expect(dump).toContain('Public-Key: (2048 bit)');

    writeFileSync(join(dir, 'chain.pem'), certificatesToPem(signer.chainDer.slice(0, -1)));
    const verified = openssl('verify', '-purpose', 'smimesign', '-CAfile', 'root.pem', '-untrusted', 'chain.pem', 'signer.pem');
    expect(verified.out).toContain('signer.pem: OK');
    expect(signer.chainDer).toEqual(pki.chainDer);
    expect(signer.keyType).toBe('RSA');
    expect(signer.signatureAlgorithm).toBe('RSASSA-PKCS1-v1_5');
  });

  it('lives SIGNER_CERT_DAYS (or the days asked), never past the issuing CA, tolerates a few minutes of skew, and keeps its serial', async () => {
    const serial = randomSerialHex();
    const signer = await issue({ serialNumber: serial });
    const cert = new X509Certificate(signer.certificateDer);
    expect(cert.serialNumber.toLowerCase()).toBe(serial);
    expect(signer.serialHex).toBe(serial);
    expect(NOW.getTime() - signer.notBefore.getTime()).toBeLessThanOrEqual(5 * 60_000 + 1000);
    const days = (d: Date) => Math.round((d.getTime() - NOW.getTime()) / 86_400_000);
    expect(days(signer.notAfter)).toBe(SIGNER_CERT_DAYS);
    expect(new Date(cert.validTo).getTime()).toBe(signer.notAfter.getTime());
    expect(days((await issue({ validityDays: 30 })).notAfter)).toBe(30);
    // Ten years asked of a CA that ends sooner: the certificate ends with the CA.
    const issuerEnd = pki.issuing.certificate.notAfter.value;
    const near = new Date(issuerEnd.getTime() - 100 * 86_400_000);
    const clipped = await issue({ now: near, validityDays: 3650 });
    expect(clipped.notAfter.getTime()).toBe(Math.floor(issuerEnd.getTime() / 1000) * 1000);
    await expect(issue({ now: new Date(issuerEnd.getTime() + 1000) })).rejects.toThrow(/issuing CA has expired/);
  });

  it('generates a non-extractable key per certificate that signs for that certificate', async () => {
    const first = await issue();
    const second = await issue();
    expect(first.privateKey.extractable).toBe(false);
    await expect(subtle.exportKey('pkcs8', first.privateKey)).rejects.toThrow();
    const data = Buffer.from('document digest');
    const signature = Buffer.from(await subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, first.privateKey, data));
    expect(verify('sha256', data, new X509Certificate(first.certificateDer).publicKey, signature)).toBe(true);
    expect(verify('sha256', data, new X509Certificate(second.certificateDer).publicKey, signature)).toBe(false);
  });

  it('issues ECDSA P-256 certificates on request, and e-mail-only or phone-only ones', async () => {
    const ec = await issue({ keyAlgorithm: 'ecdsa-p256', phone: undefined });
    write('signer-ec.pem', ec.certificateDer);
    const dump = text('signer-ec.pem');
    expect(dump).toContain('ASN1 OID: prime256v1');
    expect(extension(dump, 'X509v3 Subject Alternative Name')).toMatch(/email:zoe@exemple.fr$/);
    expect(openssl('verify', '-purpose', 'smimesign', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem', 'signer-ec.pem').out).toContain(
      ': OK',
    );
    const phoneOnly = await issue({ email: undefined });
    write('signer-tel.pem', phoneOnly.certificateDer);
    expect(extension(text('signer-tel.pem'), 'X509v3 Subject Alternative Name')).toMatch(/URI:tel:\+33612345678$/);
  });

  it('refuses weak serials, missing contacts and malformed phone numbers', async () => {
    await expect(issue({ serialNumber: '01' })).rejects.toThrow(/64 random bits/);
    await expect(issue({ email: undefined, phone: undefined })).rejects.toThrow(/e-mail address or a phone/);
    await expect(issue({ phone: '06 12 34 56 78' })).rejects.toThrow(/international form/);
    await expect(issue({ email: 'not-an-address' })).rejects.toThrow(/mailbox/);
    await expect(issue({ validityDays: 3651 })).rejects.toThrow(/validityDays/);
    await expect(issue({ validityDays: 0.5 })).rejects.toThrow(/validityDays/);
  });
});

describe('operator-provided material', () => {
  beforeAll(() => {
    writeFileSync(
      join(dir, 'ca.cnf'),
      [
        '[issuing]',
        'basicConstraints=critical,CA:TRUE,pathlen:0',
        'keyUsage=critical,keyCertSign,cRLSign',
        'subjectKeyIdentifier=hash',
        'authorityKeyIdentifier=keyid',
      ].join('\n'),
    );
    const steps = [
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'op-root.key',
        '-out',
        'op-root.pem',
        '-subj',
        '/C=DE/O=Operator GmbH/CN=Operator Root',
        '-days',
        '3650',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ],
      [
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'op-issuing.key',
        '-out',
        'op-issuing.csr',
        '-subj',
        '/C=DE/O=Operator GmbH/CN=Operator Issuing',
      ],
      [
        'x509',
        '-req',
        '-in',
        'op-issuing.csr',
        '-CA',
        'op-root.pem',
        '-CAkey',
        'op-root.key',
        '-CAcreateserial',
        '-out',
        'op-issuing.pem',
        '-days',
        '365',
        '-extfile',
        'ca.cnf',
        '-extensions',
        'issuing',
      ],
      ['pkey', '-in', 'op-issuing.key', '-aes256', '-passout', 'pass:k3y pass', '-out', 'op-issuing.enc.key'],
      [
        'pkcs12',
        '-export',
        '-inkey',
        'op-issuing.key',
        '-in',
        'op-issuing.pem',
        '-certfile',
        'op-root.pem',
        '-out',
        'op.p12',
        '-passout',
        'pass:p12 pässword',
      ],
      [
        'pkcs12',
        '-export',
        '-legacy',
        '-inkey',
        'op-issuing.key',
        '-in',
        'op-issuing.pem',
        '-certfile',
        'op-root.pem',
        '-out',
        'op-legacy.p12',
        '-passout',
        'pass:x',
      ],
    ];
    for (const step of steps) {
      const result = openssl(...step);
      expect(result.ok, result.out).toBe(true);
    }
  });
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  const complete = { organization: 'Operator GmbH', country: 'DE', baseUrl: BASE, now: NOW };

  async function expectWorking(loaded: LoadedPki, prefix: string) {
    const signer = await issueSignerCertificate(loaded, {
      name: 'Max Mustermann',
      email: 'max@example.de',
      serialNumber: randomSerialHex(),
      now: NOW,
      ocspUrl: `${BASE}/pki/ocsp`,
      crlUrl: `${BASE}/pki/crl`,
    });
    write(`${prefix}-signer.pem`, signer.certificateDer);
    write(`${prefix}-tsa.pem`, loaded.tsa.certificateDer);
    // The issuer name is copied byte for byte from the operator's certificate.
    const issuerOf = (der: Uint8Array) => Buffer.from(pkijs.Certificate.fromBER(new Uint8Array(der)).issuer.toSchema().toBER(false));
    const subjectOf = (der: Uint8Array) => Buffer.from(pkijs.Certificate.fromBER(new Uint8Array(der)).subject.toSchema().toBER(false));
    expect(issuerOf(signer.certificateDer).equals(subjectOf(loaded.issuing.certificateDer))).toBe(true);
    expect(
      openssl('verify', '-purpose', 'smimesign', '-CAfile', 'op-root.pem', '-untrusted', 'op-issuing.pem', `${prefix}-signer.pem`).out,
    ).toContain(': OK');
    expect(
      openssl('verify', '-purpose', 'timestampsign', '-CAfile', 'op-root.pem', '-untrusted', 'op-issuing.pem', `${prefix}-tsa.pem`).out,
    ).toContain(': OK');
    expect(text(`${prefix}-signer.pem`)).toContain('Signature Algorithm: ecdsa-with-SHA256');
  }

  it('loads a CA from PEM (encrypted EC key) and issues the missing TSA and OCSP certificates under it', async () => {
    const material = await loadPkiFromPem(
      {
        rootCertificatePem: read('op-root.pem'),
        issuingCertificatePem: read('op-issuing.pem') + read('op-root.pem'),
        issuingKeyPem: read('op-issuing.enc.key'),
        keyPassphrase: 'k3y pass',
      },
      complete,
    );
    expect(material.root.privateKeyPkcs8).toBeUndefined();
    expect(material.intermediatesDer).toEqual([]);
    const loaded = await importPki(material);
    expect(loaded.chainDer).toEqual([pemToDer(read('op-issuing.pem'), 'CERTIFICATE'), pemToDer(read('op-root.pem'), 'CERTIFICATE')]);
    await expectWorking(loaded, 'pem');
  });

  it('loads a CA from PKCS#12 (OpenSSL 3 defaults) and refuses a wrong password and legacy encryption', async () => {
    const der = readFileSync(join(dir, 'op.p12'));
    const loaded = await importPki(await loadPkiFromPkcs12({ issuing: { der, password: 'p12 pässword' } }, complete));
    await expectWorking(loaded, 'p12');
    await expect(loadPkiFromPkcs12({ issuing: { der, password: 'wrong' } }, complete)).rejects.toMatchObject({ code: 'bad_password' });
    const legacy = readFileSync(join(dir, 'op-legacy.p12'));
    await expect(loadPkiFromPkcs12({ issuing: { der: legacy, password: 'x' } }, complete)).rejects.toThrow(/re-export/);
  });

  it('refuses a key that does not belong to the CA certificate', async () => {
    const input = {
      rootCertificatePem: read('op-root.pem'),
      issuingCertificatePem: read('op-issuing.pem'),
      issuingKeyPem: read('op-root.key'),
    };
    await expect(loadPkiFromPem(input, complete)).rejects.toThrow(/issuing CA private key does not match/);
  });

  it('refuses material whose private key is not PKCS#8', async () => {
    await expect(
      loadPkiFromPem(
        { rootCertificatePem: read('op-root.pem'), issuingCertificatePem: read('op-issuing.pem'), issuingKeyPem: 'nope' },
        complete,
      ),
    ).rejects.toMatchObject({ code: 'bad_material' });
    expect(createPrivateKey(read('op-issuing.key')).asymmetricKeyType).toBe('ec');
  });
});
