// A CERT signer on the signer page in a real Chromium: picks the PKCS#12 file their CA issued (in
// the legacy encodings: RC2-40 certificates, a 3DES key, a SHA-1 MAC, as `openssl pkcs12 -legacy`
// writes them), types the password, checks the certificate the page shows as the service checked it,
// and signs. Every request body the page sends is recorded: none carries the key or the password.
// A PEM certificate with its key in a second file signs too; a wrong password and the service's
// refusal of another person's certificate are explained. ECDSA (P-256, in a legacy PKCS#12) and
// RSASSA-PSS keys (PEM) sign through WebCrypto as well: openssl cms verifies what they signed. On a
// set link, one look at the certificate signs every document of the set, one prepare and finish each.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { type CertCredential, type CertTestPki, createCertTestPki } from '../helpers/cert-pki.js';
import { firstSignature, opensslCmsVerify } from '../helpers/openssl-cms.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

const ANA = { name: 'Ana Garcia', email: 'ana@example.com' };

let s: TestServer;
let browser: Browser;
let ca: CertTestPki;
let ana: CertCredential;
let pdf: string;

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  ca = await createCertTestPki();
  [s, browser, ana] = await Promise.all([
    startTestServer({ env: { SELLO_CERT_TRUST_PEM: ca.trustPemPath } }),
    launchChromium(),
    ca.issue({ ...ANA, password: 'Clave#Propia2026' }),
  ]);
  pdf = (await makePdf([A4])).toString('base64');
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await ca?.close();
});

async function certSignerUrl() {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [{ authority: 'CERT', data: ANA.email, name: 'Ana', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
  });
  return { doc, url: doc.stickers[0].signer_url };
}

/** Opens the page recording every body it sends; script errors are problems. */
async function open(url: string, locale = 'en-GB') {
  const context = await browser.newContext({ locale });
  const page = await context.newPage();
  const sent: { url: string; body: Buffer }[] = [];
  const problems: string[] = [];
  page.on('request', (r) => {
    const body = r.postDataBuffer();
    if (body) {
      sent.push({ url: r.url(), body });
    }
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') {
      problems.push(`console: ${m.text()}`);
    }
  });
  await page.goto(url);
  return { page, sent, problems };
}

async function pick(page: Page, o: { file: Buffer; name: string; key?: Buffer; password: string }) {
  await page.locator('#cert-file').setInputFiles({ name: o.name, mimeType: 'application/octet-stream', buffer: o.file });
  if (o.key) {
    await page.locator('#cert-key').setInputFiles({ name: 'key.pem', mimeType: 'application/x-pem-file', buffer: o.key });
  }
  await page.locator('#cert-password').fill(o.password);
  if (!(await page.locator('#cert-consent').isChecked())) {
    await page.locator('#cert-consent').check();
  }
  await page.getByRole('button', { name: 'Sign with my certificate' }).click();
}

/** Forms the key or the password could take in a body: the password, and the end of the key's PEM body. */
function secrets(): string[] {
  const pem = ana.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const der = ana.privateKey.export({ format: 'der', type: 'pkcs8' });
  const pkcs1 = ana.privateKey.export({ format: 'der', type: 'pkcs1' });
  const forms = [ana.password, pem.split('\n').slice(-4, -3)[0]];
  for (const d of [der, pkcs1, ana.p12Legacy]) {
    forms.push(d.subarray(d.length - 96, d.length - 32).toString('latin1'));
    for (const encoding of ['base64', 'base64url', 'hex'] as const) {
      forms.push(d.toString(encoding).slice(-160, -80));
    }
  }
  return forms;
}

async function confirmShown(page: Page) {
  const card = page.getByTestId('own-certificate');
  await card.waitFor({ timeout: 30_000 });
  const field = (name: string) => card.locator(`[data-field="${name}"]`).textContent();
  const shown = {
    status: await card.getAttribute('data-status'),
    name: await field('name'),
    emails: await field('emails'),
    issuer: await field('issuer'),
    serial: await field('serial'),
  };
  await page.getByRole('button', { name: 'Confirm and sign' }).click();
  await page.getByTestId('signed-state').waitFor({ timeout: 30_000 });
  return shown;
}

describe('the signer page with an own certificate (CERT)', () => {
  it('signs with a legacy PKCS#12 and its password; no request carries the key or the password; pdfsig trusts it', async () => {
    const { doc, url } = await certSignerUrl();
    const { page, sent, problems } = await open(url);
    await page.getByRole('heading', { name: 'Sign with your certificate' }).waitFor();
    await pick(page, { file: ana.p12Legacy, name: 'ana.p12', password: ana.password });
    const shown = await confirmShown(page);
    expect(shown).toMatchObject({ status: 'good', name: ANA.name, emails: ANA.email, serial: ana.serialHex });
    expect(shown.issuer).toContain('Sello Test Signers CA');
    expect(problems).toEqual([]);
    const posts = sent.map((r) => new URL(r.url).pathname);
    expect(posts.filter((p) => /\/certificate\/(prepare|finish)$/.test(p)).map((p) => p.split('/').pop())).toEqual(['prepare', 'finish']);
    for (const request of sent) {
      const text = request.body.toString('latin1');
      for (const secret of secrets()) {
        expect(text.includes(secret), `${request.url} carries a form of the key or the password`).toBe(false);
      }
    }
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: ANA.name });
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0]).toMatchObject({ certType: 'CERT', validSignature: true });
    await page.context().close();
  });

  it('signs with a PEM certificate and its encrypted key in a second file', async () => {
    const { doc, url } = await certSignerUrl();
    const { page, problems } = await open(url);
    await page.getByRole('heading', { name: 'Sign with your certificate' }).waitFor();
    await pick(page, { file: Buffer.from(ana.certPem), name: 'ana.pem', key: Buffer.from(ana.keyPem), password: ana.password });
    expect((await confirmShown(page)).name).toBe(ANA.name);
    expect(problems).toEqual([]);
    const checked = await pdfsig((await s.client.downloadDocument('original', doc.document_ticket)).bytes, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true });
    await page.context().close();
  });

  it("explains a wrong password (nothing sent) and the service's refusal of another person's certificate, in Spanish", async () => {
    const other = await ca.issue({ name: 'Otro', email: 'otro@example.com', password: 'otra-clave-1' });
    const { url } = await certSignerUrl();
    const { page, sent, problems } = await open(url, 'es-ES');
    await page.getByRole('heading', { name: 'Firmar con tu certificado' }).waitFor();
    const banner = page.getByTestId('error-banner');
    await page.locator('#cert-file').setInputFiles({ name: 'ana.p12', mimeType: 'application/x-pkcs12', buffer: ana.p12Forge });
    await page.locator('#cert-password').fill('no-es-la-clave');
    await page.locator('#cert-consent').check();
    await page.getByRole('button', { name: 'Firmar con mi certificado' }).click();
    await expect.poll(() => banner.getAttribute('data-code')).toBe('CERTIFICATE_WRONG_PASSWORD');
    expect(await banner.textContent()).toMatch(/La contraseña no abre el archivo/);
    expect(sent).toEqual([]);
    await page.locator('#cert-file').setInputFiles({ name: 'otro.p12', mimeType: 'application/x-pkcs12', buffer: other.p12Legacy });
    await page.locator('#cert-password').fill(other.password);
    await page.getByRole('button', { name: 'Firmar con mi certificado' }).click();
    await expect.poll(() => banner.getAttribute('data-code')).toBe('CERTIFICATE_REFUSED');
    // In the page's language, with the service's own words (naming the certificate's address) underneath.
    expect(await banner.textContent()).toMatch(/El certificado no es de la persona que debe firmar/);
    expect(await banner.textContent()).toMatch(/otro@example\.com/);
    expect(problems.filter((p) => !/status of 422/.test(p))).toEqual([]);
    await page.context().close();
  });

  it('signs with an ECDSA P-256 key in a legacy PKCS#12 and an RSASSA-PSS key in PEM; openssl cms and pdfsig verify them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-cert-page-'));
    try {
      const ec = await ca.issue({ ...ANA, key: 'ec-p256', password: 'Clave#EC-2026' });
      const pss = await ca.issue({ ...ANA, key: 'rsa-pss', password: 'Clave#PSS-2026' });
      for (const [label, o, pdfsigChecks] of [
        ['ec', { file: ec.p12Legacy, name: 'ana-ec.p12', password: ec.password }, true],
        ['pss', { file: Buffer.from(pss.certPem), name: 'ana-pss.pem', key: Buffer.from(pss.keyPem), password: pss.password }, false],
      ] as const) {
        const { doc, url } = await certSignerUrl();
        const { page, problems } = await open(url);
        await page.getByRole('heading', { name: 'Sign with your certificate' }).waitFor();
        await pick(page, o);
        expect((await confirmShown(page)).serial).toBe(label === 'ec' ? ec.serialHex : pss.serialHex);
        expect(problems).toEqual([]);
        const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
        const verified = opensslCmsVerify(dir, label, firstSignature(file), ca.rootPem);
        expect(verified.out).toMatch(/CMS Verification successful/);
        // pdfsig (poppler over NSS) does not verify signatures of id-RSASSA-PSS keys: openssl does above.
        if (pdfsigChecks) {
          const checked = await pdfsig(file, ca.rootPem);
          expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: ANA.name });
        }
        const report = await s.client.signatureReport(doc.document_ticket);
        expect(report.firmas[0]).toMatchObject({ certType: 'CERT', validSignature: true });
        await page.context().close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('signs both documents of a set with one PKCS#12 through the set link; pdfsig trusts each signature', async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta de proveedor' });
    const tickets: string[] = [];
    for (const name of ['Contrato', 'Anexo']) {
      const doc = await s.client.createDocument({
        b64_doc: pdf,
        name,
        document_set: set.uuid,
        stickers: [{ authority: 'CERT', data: ANA.email, name: 'Ana', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
      });
      tickets.push(doc.document_ticket);
    }
    const closed = await s.client.closeDocumentSet(set.uuid, { language: 'en' });
    const { page, sent, problems } = await open(closed.signers[0].signer_url);
    await page.getByRole('heading', { name: 'Sign with your certificate' }).waitFor();
    await pick(page, { file: ana.p12Legacy, name: 'ana.p12', password: ana.password });
    // One confirmation for the set: the same certificate signs every document.
    expect((await confirmShown(page)).serial).toBe(ana.serialHex);
    expect(await page.getByTestId('signed-state').getAttribute('data-set-status')).toBe('COMPLETED');
    expect(problems).toEqual([]);
    const steps = sent.map((r) => new URL(r.url).pathname).filter((p) => /\/certificate\/(prepare|finish)$/.test(p));
    expect(steps.map((p) => p.replace(/^\/sign\/api\/set\/[^/]+\//, ''))).toEqual([
      'certificate/prepare',
      'certificate/finish',
      'certificate/prepare',
      'certificate/finish',
    ]);
    expect(sent.filter((r) => /certificate\/prepare$/.test(r.url)).map((r) => JSON.parse(r.body.toString()).document_ticket)).toEqual(
      tickets,
    );
    for (const request of sent) {
      for (const secret of secrets()) {
        expect(request.body.toString('latin1').includes(secret), `${request.url} carries a form of the key or the password`).toBe(false);
      }
    }
    for (const ticket of tickets) {
      const file = (await s.client.downloadDocument('original', ticket)).bytes;
      const checked = await pdfsig(file, ca.rootPem);
      expect(checked.signatures, checked.output).toHaveLength(1);
      expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: ANA.name });
      expect((await s.client.signatureReport(ticket)).firmas[0]).toMatchObject({ certType: 'CERT', validSignature: true });
    }
    expect((await s.client.getDocumentSet(set.uuid)).signers.map((x) => x.status)).toEqual(['signed']);
    await page.context().close();
  }, 120_000);
});
