// Signing with the signer's own certificate (authority CERT), without a browser: the key read from
// the signer's PKCS#12 file (legacy encodings, as the page reads it), prepare, sign the returned
// bytes with node:crypto, finish. Judged by pdfsig trusting the test CA, the report and the
// universal rendition; then the create-time rules and every refusal.
import { spawnSync } from 'node:child_process';
import { type KeyObject, constants, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiError } from '../helpers/api-error.js';
import { type CertCredential, type CertTestPki, type LeafKey, createCertTestPki } from '../helpers/cert-pki.js';
import { firstSignature, opensslCmsVerify } from '../helpers/openssl-cms.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { publicCall } from '../helpers/public-call.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { dssOf } from '../helpers/universal.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

const ANA = { name: 'Ana Garcia', email: 'ana@example.com', serialNumber: 'IDCES-12345678Z', uid: 'ana.garcia' };

let s: TestServer;
let jobs: JobRunner;
let ca: CertTestPki;
let pdf: string;
let ana: CertCredential;

beforeAll(async () => {
  ca = await createCertTestPki();
  s = await startTestServer({ env: { SELLO_CERT_TRUST_PEM: ca.trustPemPath } });
  jobs = jobRunner(s.connectionString, s.deps);
  pdf = (await makePdf([A4])).toString('base64');
  ana = await ca.issue(ANA);
}, 90_000);
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  await ca?.close();
});

const call = (method: string, path: string, body?: unknown) => publicCall(s.baseUrl, method, path, body);
const box = { page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } };

async function certDocument(sticker: Record<string, unknown> = {}) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [{ authority: 'CERT', data: ANA.email, name: 'Ana', ...box, ...sticker } as never],
  });
  return { doc, token: doc.stickers[0].signer_url.split('/').pop()! };
}

const prepare = (token: string, der: Buffer) =>
  call('POST', `/sign/api/${token}/certificate/prepare`, { certificate: der.toString('base64'), consent: true, language: 'en' });
const finish = (token: string, id: string, signature: string) =>
  call('POST', `/sign/api/${token}/certificate/finish`, { preparation_id: id, signature });

/** The certificate and key in a PKCS#12 file, read the way the signer page reads it (node-forge). */
function openP12(bytes: Buffer, password: string) {
  const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(bytes.toString('binary')), password);
  const key = p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag]![0].key!;
  const certs = p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag]!.map((b) => b.cert!);
  const leaf = certs.find((c) => (c.publicKey as forge.pki.rsa.PublicKey).n.equals((key as forge.pki.rsa.PrivateKey).n))!;
  return {
    der: Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(leaf)).getBytes(), 'binary'),
    keyPem: forge.pki.privateKeyToPem(key),
  };
}

async function signWith(token: string, der: Buffer, keyPem: string) {
  const prepared = await prepare(token, der);
  expect(prepared.status, JSON.stringify(prepared.json)).toBe(200);
  const value = sign('sha256', Buffer.from(prepared.json.signed_attributes, 'base64'), keyPem).toString('base64');
  return { prepared, done: await finish(token, prepared.json.preparation_id, value) };
}

describe('signing with an own certificate (CERT)', () => {
  it('a legacy PKCS#12 (RC2-40, 3DES, SHA-1 MAC) signs: valid and trusted in pdfsig, CERT in the report, universal rendition B-LTA', async () => {
    const { doc, token } = await certDocument();
    const opened = openP12(ana.p12Legacy, ana.password);
    expect(opened.der.equals(ana.der)).toBe(true);
    const { prepared, done } = await signWith(token, opened.der, opened.keyPem);
    expect(prepared.json.certificate).toMatchObject({
      name: ANA.name,
      emails: [ANA.email],
      serial: ana.serialHex,
      status: 'good',
    });
    expect(prepared.json.certificate.issuer).toContain('Sello Test Signers CA');
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    expect(done.json).toMatchObject({ status: 'signed', document_status: 'completed' });

    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures, checked.output).toHaveLength(1);
    expect(checked.signatures[0]).toMatchObject({ valid: true, trusted: true, type: 'ETSI.CAdES.detached', commonName: ANA.name });
    expect(checked.signatures[0].totalDocumentSigned).toBe(true);
    expect((await qpdfCheckAsync(file)).output).toMatch(/No syntax or stream encoding errors found/);

    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0]).toMatchObject({
      certType: 'CERT',
      validSignature: true,
      signCertificateSerial: ana.serialHex,
      downstreamData: { authority: 'CERT', dataType: 'email', subject: ANA.email },
      ocsp: { certStatus: 'good', signatureValid: true },
    });
    expect(report.firmas[0].certificados[0]).toMatchObject({ commonName: ANA.name, issuerCommonName: 'Sello Test Signers CA' });

    const before = ca.ocspRequests;
    await jobs.runDue();
    const universal = (await s.client.downloadDocument('universal', doc.document_ticket)).bytes;
    expect(universal.subarray(0, file.length).equals(file)).toBe(true);
    expect(ca.ocspRequests).toBeGreaterThan(before);
    const u = await pdfsig(universal, ca.rootPem);
    expect(u.signatures.filter((x) => x.type === 'ETSI.CAdES.detached')[0], u.output).toMatchObject({ valid: true, trusted: true });
    expect((await dssOf(universal)).ocsps.length).toBeGreaterThan(0);
    const verified = await s.client.verifyPdf(universal);
    expect(verified.firmas.find((f) => f.signCertificateSerial === ana.serialHex)).toMatchObject({
      certType: 'CERT',
      level: 'B-LTA',
      validationData: 'embedded',
    });
  }, 120_000);

  it('a node-forge PKCS#12 (3DES) and a PEM key sign as well', async () => {
    const a = await certDocument();
    const fromForge = openP12(ana.p12Forge, ana.password);
    expect((await signWith(a.token, fromForge.der, fromForge.keyPem)).done.status).toBe(200);
    const b = await certDocument();
    const keyPem = forge.pki.privateKeyToPem(forge.pki.decryptRsaPrivateKey(ana.keyPem, ana.password));
    expect((await signWith(b.token, ana.der, keyPem)).done.status).toBe(200);
  }, 60_000);

  it('certificate_match: the subject serialNumber or uid decides instead of the email', async () => {
    const bySerial = await certDocument({
      data: 'someone-else@example.com',
      certificate_match: { field: 'serialNumber', value: ANA.serialNumber },
    });
    expect((await signWith(bySerial.token, ana.der, ana.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)).done.status).toBe(
      200,
    );
    const wrongUid = await certDocument({ certificate_match: { field: 'uid', value: 'not.ana' } });
    const refused = await prepare(wrongUid.token, ana.der);
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: 'CERTIFICATE_REFUSED', details: { reason: 'name_mismatch' } });
  }, 60_000);

  it('create: CERT data must be an email; certificate_match is checked and named by sticker index', async () => {
    const bad = (stickers: unknown[]) => apiError(s.client.createDocument({ b64_doc: pdf, name: 'x', stickers: stickers as never }));
    const notEmail = await bad([{ authority: 'CERT', data: 'GOLM800101AB1', ...box }]);
    expect([notEmail.status, notEmail.code]).toEqual([400, 'INVALID_STICKER']);
    expect(notEmail.details).toMatchObject({ sticker_index: 0, field: 'data' });
    const badField = await bad([
      { authority: 'EMAIL_LINK', data: 'x@example.com', ...box },
      { authority: 'CERT', data: ANA.email, certificate_match: { field: 'cn', value: 'x' }, ...box },
    ]);
    expect([badField.status, badField.code]).toEqual([400, 'INVALID_STICKER']);
    expect(badField.details).toMatchObject({ sticker_index: 1, field: 'certificate_match.field' });
    expect(badField.message).toMatch(/stickers\[1\]\.certificate_match\.field/);
    const notCert = await bad([
      { authority: 'EMAIL_LINK', data: 'x@example.com', certificate_match: { field: 'uid', value: 'x' }, ...box },
    ]);
    expect(notCert.details).toMatchObject({ sticker_index: 0, field: 'certificate_match' });
  });

  it('refuses another email, an untrusted CA, a key usage without signing, an expired, an Ed25519 and a revoked certificate', async () => {
    const { token } = await certDocument();
    const reason = async (der: Buffer) => {
      const r = await prepare(token, der);
      expect(r.status, JSON.stringify(r.json)).toBe(422);
      expect(r.json.error.code).toBe('CERTIFICATE_REFUSED');
      return r.json.error.details.reason;
    };
    expect(await reason((await ca.issue({ ...ANA, email: 'other@example.com' })).der)).toBe('name_mismatch');
    expect(await reason((await ca.issue({ ...ANA, rogue: true })).der)).toBe('untrusted');
    expect(await reason((await ca.issue({ ...ANA, keyUsage: 'keyEncipherment' })).der)).toBe('key_usage');
    expect(await reason((await ca.issue({ ...ANA, days: -1 })).der)).toBe('expired');
    expect(await reason((await ca.issue({ ...ANA, key: 'ed25519' })).der)).toBe('unsupported_key');
    const revoked = await ca.issue(ANA);
    await ca.revoke(revoked.serialHex);
    expect(await reason(revoked.der)).toBe('revoked');
  }, 120_000);

  it('refuses a signature value made with another key, and a drawn signature posted to /sign', async () => {
    const { token } = await certDocument();
    const prepared = await prepare(token, ana.der);
    const other = await ca.issue(ANA);
    const wrong = sign('sha256', Buffer.from(prepared.json.signed_attributes, 'base64'), other.privateKey).toString('base64');
    const refused = await finish(token, prepared.json.preparation_id, wrong);
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('CERTIFICATE_SIGNATURE_INVALID');
    const drawn = await call('POST', `/sign/api/${token}/sign`, { consent: true, signature: { type: 'typed', text: 'Ana' } });
    expect(drawn.status).toBe(409);
    expect(drawn.json.error).toMatchObject({ code: 'CERTIFICATE_REQUIRED', details: { authority: 'CERT' } });
    const info = await call('GET', `/sign/api/${token}`);
    expect(info.json.signer).toMatchObject({ authority: 'CERT', proof: 'certificate', status: 'viewed' });
  }, 60_000);
});

/** The CMS as `openssl cms -cmsout -print` shows it: the SignerInfo's algorithms are read from there. */
function cmsPrint(dir: string, der: Buffer): string {
  const file = join(dir, 'print.p7s');
  writeFileSync(file, der);
  const r = spawnSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', file], { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`;
}

/** RSASSA-PSS-params as openssl prints them: SHA-256, MGF1 with SHA-256, a salt of 32 (0x20) bytes. */
const PSS_SHA256_SALT_32 =
  /algorithm: rsassaPss[^\n]*\n\s*parameter: SEQUENCE:[\s\S]*?:sha256[\s\S]*?:mgf1[\s\S]*?:sha256[\s\S]*?cont \[ 2 \][^\n]*\n[^\n]*INTEGER\s*:20\n/;

/** The signerInfos part of the printout (the certificates carry algorithms of their own). */
const signerInfoPart = (printed: string) => printed.slice(printed.indexOf('signerInfos:'));

describe('own certificates with ECDSA and RSA-PSS keys', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sello-cert-keys-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // As a browser's WebCrypto makes them: ECDSA as r || s, PSS with the salt prepare names.
  const webCryptoSign = (key: KeyObject, prepared: Record<string, unknown>) => {
    const data = Buffer.from(prepared.signed_attributes as string, 'base64');
    const hash = (prepared.hash as string).replace('-', '').toLowerCase();
    if (prepared.signature_algorithm === 'ECDSA') {
      return sign(hash, data, { key, dsaEncoding: 'ieee-p1363' });
    }
    if (prepared.signature_algorithm === 'RSA-PSS') {
      return sign(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: prepared.salt_length as number });
    }
    return sign(hash, data, key);
  };

  // pdfsig (poppler over NSS) does not verify a CMS whose certificate's key is id-RSASSA-PSS, made
  // by whichever signer: for that key openssl is the independent check. An RSA key signing with PSS
  // (the last test) pdfsig verifies.
  const cases: { key: LeafKey; answer: Record<string, unknown>; cmsAlgorithm: RegExp; digest: RegExp; pdfsig: boolean }[] = [
    {
      key: 'ec-p256',
      answer: { signature_algorithm: 'ECDSA', hash: 'SHA-256', named_curve: 'P-256' },
      cmsAlgorithm: /signatureAlgorithm:\s*\n\s*algorithm: ecdsa-with-SHA256/,
      digest: /digestAlgorithm:\s*\n\s*algorithm: sha256/,
      pdfsig: true,
    },
    {
      key: 'ec-p384',
      answer: { signature_algorithm: 'ECDSA', hash: 'SHA-384', named_curve: 'P-384' },
      cmsAlgorithm: /signatureAlgorithm:\s*\n\s*algorithm: ecdsa-with-SHA384/,
      digest: /digestAlgorithm:\s*\n\s*algorithm: sha384/,
      pdfsig: true,
    },
    {
      key: 'rsa-pss',
      answer: { signature_algorithm: 'RSA-PSS', hash: 'SHA-256', salt_length: 32 },
      cmsAlgorithm: PSS_SHA256_SALT_32,
      digest: /digestAlgorithm:\s*\n\s*algorithm: sha256/,
      pdfsig: false,
    },
  ];

  for (const c of cases) {
    it(`a ${c.key} key: prepare asks for ${c.answer.signature_algorithm}; openssl cms${c.pdfsig ? ' and pdfsig' : ''} verify it; CERT in the report`, async () => {
      const holder = await ca.issue({ ...ANA, key: c.key });
      const { doc, token } = await certDocument();
      const prepared = await prepare(token, holder.der);
      expect(prepared.status, JSON.stringify(prepared.json)).toBe(200);
      expect(prepared.json).toMatchObject(c.answer);
      const value = webCryptoSign(holder.privateKey, prepared.json).toString('base64');
      const done = await finish(token, prepared.json.preparation_id, value);
      expect(done.status, JSON.stringify(done.json)).toBe(200);

      const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
      const sig = firstSignature(file);
      const verified = opensslCmsVerify(dir, c.key, sig, ca.rootPem);
      expect(verified.out).toMatch(/CMS Verification successful/);
      expect(verified.ok).toBe(true);
      if (c.pdfsig) {
        const checked = await pdfsig(file, ca.rootPem);
        expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: ANA.name });
      }
      const printed = signerInfoPart(cmsPrint(dir, sig.der));
      expect(printed).toMatch(c.cmsAlgorithm);
      expect(printed).toMatch(c.digest);
      const report = await s.client.signatureReport(doc.document_ticket);
      expect(report.firmas[0]).toMatchObject({ certType: 'CERT', validSignature: true, signCertificateSerial: holder.serialHex });
    }, 90_000);
  }

  it('an RSA key may answer with PSS: the CMS says rsassaPss with the salt it used; openssl cms verifies it', async () => {
    const { doc, token } = await certDocument();
    const prepared = await prepare(token, ana.der);
    expect(prepared.json).toMatchObject({ signature_algorithm: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });
    const data = Buffer.from(prepared.json.signed_attributes, 'base64');
    const value = sign('sha256', data, { key: ana.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
    const done = await finish(token, prepared.json.preparation_id, value.toString('base64'));
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const sig = firstSignature(file);
    const verified = opensslCmsVerify(dir, 'rsa-with-pss', sig, ca.rootPem);
    expect(verified.out).toMatch(/CMS Verification successful/);
    expect(signerInfoPart(cmsPrint(dir, sig.der))).toMatch(PSS_SHA256_SALT_32);
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true });
  }, 60_000);

  it('refuses an ECDSA value made with another key, and an ECDSA value of the wrong length', async () => {
    const holder = await ca.issue({ ...ANA, key: 'ec-p256' });
    const other = await ca.issue({ ...ANA, key: 'ec-p256' });
    const { token } = await certDocument();
    const prepared = await prepare(token, holder.der);
    const wrong = webCryptoSign(other.privateKey, prepared.json);
    const refused = await finish(token, prepared.json.preparation_id, wrong.toString('base64'));
    expect([refused.status, refused.json.error.code]).toEqual([422, 'CERTIFICATE_SIGNATURE_INVALID']);
    const right = webCryptoSign(holder.privateKey, prepared.json);
    const cut = await finish(token, prepared.json.preparation_id, right.subarray(1).toString('base64'));
    expect([cut.status, cut.json.error.code]).toEqual([422, 'CERTIFICATE_SIGNATURE_INVALID']);
  }, 60_000);
});
