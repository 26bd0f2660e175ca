// Renewal of the OCSP responder certificate, on a real database with an injected clock. The PKI is
// generated 340 days before the real time, so the real time is "340 days after generation" (the
// responder certificate, valid 365 days, then ends within the 30-day window) and `openssl ocsp`
// checks the responses at that same time; "100 days after generation" is a clock set back.
import { spawnSync } from 'node:child_process';
import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobHelpers } from 'graphile-worker';
import { sql } from 'kysely';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock, Deps } from '../../src/domain/deps.js';
import { loadPki } from '../../src/domain/pki/load-pki.js';
import { createPkiResponder } from '../../src/domain/pki/pki-responses.js';
import { renewOcspResponderIfDue } from '../../src/domain/pki/renew-ocsp-responder.js';
import { checkOcspResponderTask } from '../../src/jobs/check-ocsp-responder.js';
import { CHECK_OCSP_RESPONDER } from '../../src/jobs/payloads/check-ocsp-responder.js';
import { taskList } from '../../src/jobs/index.js';
import {
  certificateNotAfter,
  derToPem,
  generateServicePki,
  importPki,
  issueSignerCertificate,
  loadPkiFromPem,
  normalizeSerialHex,
  openPkiMaterial,
  pkiUrls,
  randomSerialHex,
  sealPkiMaterial,
  type LoadedPki,
  type PkiMaterial,
} from '../../src/pki/index.js';
import { createSecretBox, type SecretBox } from '../../src/pki/secret-box.js';
import { openDb, type DbHandle } from '../../src/store/db.js';
import { loadPkiMaterial, recordIssuedCertificate, replacePkiMaterial, storePkiMaterial } from '../../src/store/pki-repo.js';
import { createTestDatabase } from '../helpers/server.js';

const DAY = 86_400_000;
const BASE = 'http://127.0.0.1';
const settings = { organization: 'Sello Renewal Test' };
const realNow = Date.now();
const generatedAt = new Date(realNow - 340 * DAY);

let nowMs = realNow;
const clock: Clock = { now: () => new Date(nowMs) };
let database: { url: string; drop: () => Promise<void> };
let handle: DbHandle;
let secrets: SecretBox;
let material: PkiMaterial;
let dir: string;

const put = (name: string, data: Uint8Array | string) => writeFileSync(join(dir, name), data);
const openssl = (...args: string[]) => {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
};
const deps = () => ({ db: handle.db, secrets, clock });
const stored = async () => openPkiMaterial((await loadPkiMaterial(handle.db))!.sealed, secrets);
/** Puts the material generated 340 days ago back in the database, as it was before any renewal. */
const restoreOriginal = () => replacePkiMaterial(handle.db, 'generated', sealPkiMaterial(material, secrets));

/** The certificates an OCSP response carries (the responder's). */
function responseCertificates(der: Uint8Array): Buffer[] {
  const response = pkijs.OCSPResponse.fromBER(new Uint8Array(der));
  const basic = pkijs.BasicOCSPResponse.fromBER(new Uint8Array(response.responseBytes!.response.valueBlock.valueHexView));
  return (basic.certs ?? []).map((c) => Buffer.from((c as pkijs.Certificate).toSchema().toBER(false)));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sello-ocsp-renewal-'));
  database = await createTestDatabase();
  handle = openDb(database.url, 5);
  secrets = createSecretBox(randomBytes(32));
  material = await generateServicePki({ ...settings, baseUrl: BASE, now: generatedAt });
  await storePkiMaterial(handle.db, 'generated', sealPkiMaterial(material, secrets));
  put('root.pem', derToPem(material.root.certificateDer, 'CERTIFICATE'));
  put('issuing.pem', derToPem(material.issuing.certificateDer, 'CERTIFICATE'));
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('OCSP responder certificate renewal', () => {
  it('100 days after generation: nothing is renewed', async () => {
    nowMs = generatedAt.getTime() + 100 * DAY;
    const pki = await loadPki(deps(), settings, BASE);
    expect(pki.ocsp.certificateDer.equals(material.ocsp.certificateDer)).toBe(true);
    expect((await stored()).ocsp.certificateDer.equals(material.ocsp.certificateDer)).toBe(true);
    const responder = createPkiResponder(deps(), pki, '1.2.3.4', { ...settings, baseUrl: BASE });
    expect(await responder.checkOcspResponder()).toBe(false);
    expect((await renewOcspResponderIfDue(deps(), { ...settings, baseUrl: BASE })).outcome).toBe('current');
  });

  it('340 days after generation: the load renews it once, stores it and records it', async () => {
    nowMs = realNow;
    const before = certificateNotAfter(material.ocsp.certificateDer);
    expect(before.getTime() - realNow).toBeLessThan(30 * DAY);
    const pki = await loadPki(deps(), settings, BASE);
    const renewed = pki.ocsp.certificateDer;
    expect(renewed.equals(material.ocsp.certificateDer)).toBe(false);
    expect(certificateNotAfter(renewed).getTime()).toBeGreaterThan(before.getTime());
    expect(certificateNotAfter(renewed).getTime()).toBeGreaterThan(realNow + 364 * DAY);
    // Stored for the other processes, with the rest of the material unchanged.
    const now = await stored();
    expect(now.ocsp.certificateDer.equals(renewed)).toBe(true);
    expect(now.issuing.certificateDer.equals(material.issuing.certificateDer)).toBe(true);
    expect(now.tsa.certificateDer.equals(material.tsa.certificateDer)).toBe(true);
    expect((await loadPkiMaterial(handle.db))!.source).toBe('generated');
    // Issued by the issuing CA, named as before, and in the register the CRL and OCSP answer from.
    const x = new X509Certificate(renewed);
    expect(x.checkIssued(new X509Certificate(material.issuing.certificateDer))).toBe(true);
    expect(x.subject).toBe(new X509Certificate(material.ocsp.certificateDer).subject);
    const row = await sql<{
      kind: string;
    }>`select kind from issued_certificates where serial_hex = ${normalizeSerialHex(x.serialNumber)}`.execute(handle.db);
    expect(row.rows[0]?.kind).toBe('ocsp');
    // A second load (another process starting) takes it as it is.
    const again = await loadPki(deps(), settings, BASE);
    expect(again.ocsp.certificateDer.equals(renewed)).toBe(true);
  });

  it('of several processes renewing at once, one issues and the others take its certificate', async () => {
    nowMs = realNow;
    await restoreOriginal();
    const results = await Promise.all([1, 2, 3].map(() => renewOcspResponderIfDue(deps(), { ...settings, baseUrl: BASE })));
    expect(results.filter((r) => r.outcome === 'renewed')).toHaveLength(1);
    const winner = (await stored()).ocsp.certificateDer;
    for (const r of results) {
      expect(r.material.ocsp.certificateDer.equals(winner)).toBe(true);
    }
  });

  it('a running process takes up the renewed certificate at its next check, and openssl verifies its OCSP answers', async () => {
    nowMs = realNow;
    await restoreOriginal();
    // Two processes started before the renewal window, still using the first responder certificate.
    const old: LoadedPki = await importPki(material);
    const daily = createPkiResponder(deps(), old, '1.2.3.4', { ...settings, baseUrl: BASE });
    const serving = createPkiResponder(deps(), { ...old }, '1.2.3.4', { ...settings, baseUrl: BASE });
    // The daily job, as the runner would start it, renews and takes it up in its process.
    expect(Object.keys(taskList({ pki: daily } as unknown as Deps))).toContain(CHECK_OCSP_RESPONDER.task);
    await checkOcspResponderTask({ pki: daily } as unknown as Deps)({}, {} as JobHelpers);
    const renewed = (await stored()).ocsp.certificateDer;
    expect(renewed.equals(material.ocsp.certificateDer)).toBe(false);
    expect(daily.pki.ocsp.certificateDer.equals(renewed)).toBe(true);
    expect(await daily.checkOcspResponder()).toBe(false);

    // The other process answers its next OCSP request with the stored one.
    const signer = await issueSignerCertificate(old, {
      name: 'Ana',
      email: 'ana@example.com',
      serialNumber: randomSerialHex(),
      now: new Date(realNow),
      ocspUrl: pkiUrls(BASE).ocsp,
      crlUrl: pkiUrls(BASE).crl,
    });
    await recordIssuedCertificate(handle.db, {
      serialHex: signer.serialHex,
      kind: 'signer',
      subject: 'Ana',
      notBefore: signer.notBefore,
      notAfter: signer.notAfter,
    });
    put('ana.pem', derToPem(signer.certificateDer, 'CERTIFICATE'));
    expect(openssl('ocsp', '-issuer', 'issuing.pem', '-cert', 'ana.pem', '-reqout', 'ana.req', '-no_nonce').ok).toBe(true);
    const response = await serving.ocsp(readFileSync(join(dir, 'ana.req')));
    expect(serving.pki.ocsp.certificateDer.equals(renewed)).toBe(true);
    expect(responseCertificates(response).map((c) => c.equals(renewed))).toEqual([true]);
    put('ana.resp', response);
    const checked = openssl(
      'ocsp',
      '-respin',
      'ana.resp',
      '-issuer',
      'issuing.pem',
      '-cert',
      'ana.pem',
      '-CAfile',
      'root.pem',
      '-resp_text',
    );
    expect(checked.out).toMatch(/Response verify OK/);
    expect(checked.out).toMatch(/ana\.pem: good/);
    // The responder certificate itself chains to the root, valid now and for a year.
    put('responder.pem', derToPem(renewed, 'CERTIFICATE'));
    expect(openssl('verify', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem', 'responder.pem').out).toMatch(/responder\.pem: OK/);
  });

  it("leaves an operator's own responder certificate alone and warns that it is about to end", async () => {
    nowMs = realNow;
    const pem = (der: Buffer) => derToPem(der, 'CERTIFICATE');
    const keyPem = (pkcs8: Buffer | undefined) =>
      createPrivateKey({ key: pkcs8!, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }).toString();
    const operator = await loadPkiFromPem(
      {
        rootCertificatePem: pem(material.root.certificateDer),
        issuingCertificatePem: pem(material.issuing.certificateDer),
        issuingKeyPem: keyPem(material.issuing.privateKeyPkcs8),
        tsa: { certificatePem: pem(material.tsa.certificateDer), keyPem: keyPem(material.tsa.privateKeyPkcs8) },
        ocsp: { certificatePem: pem(material.ocsp.certificateDer), keyPem: keyPem(material.ocsp.privateKeyPkcs8) },
      },
      { ...settings, baseUrl: BASE, now: new Date(realNow) },
    );
    expect(operator.ocspFromOperator).toBe(true);
    await replacePkiMaterial(handle.db, 'operator', sealPkiMaterial(operator, secrets));
    expect((await stored()).ocspFromOperator).toBe(true);

    const check = await renewOcspResponderIfDue(deps(), { ...settings, baseUrl: BASE });
    expect(check.outcome).toBe('operator');
    const warnings: string[] = [];
    const responder = createPkiResponder({ ...deps(), warn: (m) => warnings.push(m) }, await importPki(operator), '1.2.3.4', {
      ...settings,
      baseUrl: BASE,
    });
    expect(await responder.checkOcspResponder()).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/OCSP responder certificate you supplied expires on/);
    expect(warnings[0]).toContain(certificateNotAfter(material.ocsp.certificateDer).toISOString());
    expect((await stored()).ocsp.certificateDer.equals(material.ocsp.certificateDer)).toBe(true);

    // A responder certificate the service issued under the operator's CA is renewed as usual.
    const completed = await loadPkiFromPem(
      {
        rootCertificatePem: pem(material.root.certificateDer),
        issuingCertificatePem: pem(material.issuing.certificateDer),
        issuingKeyPem: keyPem(material.issuing.privateKeyPkcs8),
        tsa: { certificatePem: pem(material.tsa.certificateDer), keyPem: keyPem(material.tsa.privateKeyPkcs8) },
      },
      { ...settings, baseUrl: BASE, now: generatedAt },
    );
    expect(completed.ocspFromOperator).toBe(false);
    await replacePkiMaterial(handle.db, 'operator', sealPkiMaterial(completed, secrets));
    expect((await renewOcspResponderIfDue(deps(), { ...settings, baseUrl: BASE })).outcome).toBe('renewed');
    expect((await loadPkiMaterial(handle.db))!.source).toBe('operator');
  });
});
