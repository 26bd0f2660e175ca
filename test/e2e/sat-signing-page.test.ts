// A SAT signer on the signer page in a real Chromium: picks the .cer and .key of their e.firma,
// types the password and signs. Every request body the page sends is recorded: none carries the
// key (DER, PEM or Base64) or the password. A wrong password is explained and nothing is sent.
import { execFileSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type SatCredential, type SatTestPki, createSatTestPki } from '../helpers/sat-pki.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

const MARIA = { rfc: 'GOLM800101AB1', curp: 'GOLM800101MDFMPR09', name: 'MARIA GOMEZ LOPEZ' };

let s: TestServer;
let browser: Browser;
let sat: SatTestPki;
let ocsp: Awaited<ReturnType<SatTestPki['ocspResponder']>>;
let maria: SatCredential;
let pdf: string;

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  sat = await createSatTestPki();
  ocsp = await sat.ocspResponder();
  [s, browser, maria] = await Promise.all([
    startTestServer({ env: { SELLO_SAT_TRUST_PEM: sat.trustPemPath, SELLO_SAT_OCSP_URL: ocsp.url } }),
    launchChromium(),
    sat.issue({ ...MARIA, password: 'Clave#SAT2026' }),
  ]);
  pdf = (await makePdf([A4])).toString('base64');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await ocsp?.close();
  sat?.dispose();
});

async function satSignerUrl() {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [{ authority: 'SAT', data: MARIA.rfc, name: 'María Gómez', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
  });
  return { doc, url: doc.stickers[0].signer_url };
}

/** Opens the page recording every body it sends; script errors are problems. */
async function open(url: string) {
  const context = await browser.newContext({ locale: 'es-MX' });
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

async function pickFiles(page: Page, password: string) {
  await page.locator('#efirma-cer').setInputFiles({ name: 'maria.cer', mimeType: 'application/pkix-cert', buffer: maria.cer });
  await page.locator('#efirma-key').setInputFiles({ name: 'maria.key', mimeType: 'application/octet-stream', buffer: maria.key });
  await page.locator('#efirma-password').fill(password);
  await page.locator('#efirma-consent').check();
}

/** Every form the key or the password could take in a request body. */
function secrets(): string[] {
  const plain = createPrivateKey({ key: maria.key, format: 'der', type: 'pkcs8', passphrase: maria.password });
  const pkcs8 = plain.export({ format: 'der', type: 'pkcs8' });
  const pkcs1 = plain.export({ format: 'der', type: 'pkcs1' });
  const pem = plain.export({ format: 'pem', type: 'pkcs8' }).toString();
  const forms = [maria.password, pem.split('\n').slice(-4, -3)[0]];
  for (const der of [maria.key, pkcs8, pkcs1]) {
    // Runs from the end of each encoding, where the private exponent and primes lie (the start of
    // an unencrypted key holds the modulus, which the certificate rightly carries too).
    const n = der.length;
    forms.push(der.subarray(n - 96, n - 32).toString('latin1'));
    for (const encoding of ['base64', 'base64url', 'hex'] as const) {
      forms.push(der.toString(encoding).slice(-160, -80));
    }
  }
  return forms;
}

describe('the signer page with a SAT e.firma', () => {
  it('signs with the files and password; no request carries the key or the password; pdfsig trusts it', async () => {
    const { doc, url } = await satSignerUrl();
    const { page, sent, problems } = await open(url);
    await page.getByRole('heading', { name: 'Firmar con tu e.firma del SAT' }).waitFor();
    await pickFiles(page, maria.password);
    await page.getByRole('button', { name: 'Firmar con e.firma' }).click();
    await page.getByTestId('signed-state').waitFor({ timeout: 30_000 });
    expect(problems).toEqual([]);

    const posts = sent.map((r) => new URL(r.url).pathname);
    expect(posts.some((p) => p.endsWith('/sat/prepare'))).toBe(true);
    expect(posts.some((p) => p.endsWith('/sat/finish'))).toBe(true);
    for (const request of sent) {
      const text = request.body.toString('latin1');
      for (const secret of secrets()) {
        expect(text.includes(secret), `${request.url} carries a form of the key or the password`).toBe(false);
      }
    }
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const checked = await pdfsig(file, sat.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: MARIA.name });
    await page.context().close();
  });

  it('explains a wrong password and sends nothing', async () => {
    const { url } = await satSignerUrl();
    const { page, sent, problems } = await open(url);
    await page.getByRole('heading', { name: 'Firmar con tu e.firma del SAT' }).waitFor();
    await pickFiles(page, 'otra-clave');
    await page.getByRole('button', { name: 'Firmar con e.firma' }).click();
    const banner = page.getByTestId('error-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/La contraseña no abre la llave privada/);
    expect(await banner.getAttribute('data-code')).toBe('EFIRMA_WRONG_PASSWORD');
    expect(sent).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("explains a key of another certificate, a seal certificate (CSD), another person's RFC and an expired one, and sends nothing", async () => {
    const other = await sat.issue({ rfc: 'PELJ750505XY2', curp: 'PELJ750505HDFRPN01', name: 'JUAN PEREZ LOPEZ', password: 'otra-clave-1' });
    const csd = await sat.issue({ ...MARIA, kind: 'CSD', password: 'clave-csd-1' });
    const expired = await sat.issue({ ...MARIA, days: 0, password: 'clave-vieja' });
    const cases = [
      { cer: maria.cer, key: other.key, password: other.password, code: 'EFIRMA_KEY_MISMATCH', text: /no corresponde a este certificado/ },
      { cer: csd.cer, key: csd.key, password: csd.password, code: 'EFIRMA_CSD', text: /sello/i },
      { cer: other.cer, key: other.key, password: other.password, code: 'EFIRMA_RFC_MISMATCH', text: /RFC/ },
      { cer: expired.cer, key: expired.key, password: expired.password, code: 'EFIRMA_EXPIRED', text: /vencido/ },
    ];
    const { url } = await satSignerUrl();
    const { page, sent, problems } = await open(url);
    await page.getByRole('heading', { name: 'Firmar con tu e.firma del SAT' }).waitFor();
    for (const c of cases) {
      await page.locator('#efirma-cer').setInputFiles({ name: 'f.cer', mimeType: 'application/pkix-cert', buffer: c.cer });
      await page.locator('#efirma-key').setInputFiles({ name: 'f.key', mimeType: 'application/octet-stream', buffer: c.key });
      await page.locator('#efirma-password').fill(c.password);
      if (!(await page.locator('#efirma-consent').isChecked())) {
        await page.locator('#efirma-consent').check();
      }
      await page.getByRole('button', { name: 'Firmar con e.firma' }).click();
      const banner = page.getByTestId('error-banner');
      await expect.poll(() => banner.getAttribute('data-code')).toBe(c.code);
      expect(await banner.textContent()).toMatch(c.text);
    }
    expect(sent).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('rejects without the e.firma: the personal link is the proof of a refusal', async () => {
    const { doc, url } = await satSignerUrl();
    const { page, problems } = await open(url);
    await page.getByRole('heading', { name: 'Firmar con tu e.firma del SAT' }).waitFor();
    await page.getByRole('button', { name: 'Rechazar', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Rechazar el documento' });
    await dialog.getByLabel('Motivo del rechazo').fill('No reconozco este contrato');
    await dialog.getByRole('button', { name: 'Rechazar documento' }).click();
    await page.getByRole('heading', { name: 'Has rechazado el documento' }).waitFor();
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
    expect(listed.status).toBe('rejected');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('on a set link, opens the e.firma once and signs every document of the set; no request carries the key', async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta de cliente' });
    const tickets: string[] = [];
    for (const name of ['Contrato', 'Anexo']) {
      const doc = await s.client.createDocument({
        b64_doc: pdf,
        name,
        document_set: set.uuid,
        stickers: [{ authority: 'SAT', data: MARIA.rfc, name: 'María Gómez', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
      });
      tickets.push(doc.document_ticket);
    }
    const closed = await s.client.closeDocumentSet(set.uuid, { language: 'es' });
    const { page, sent, problems } = await open(closed.signers[0].signer_url);
    await page.getByRole('heading', { name: 'Firmar con tu e.firma del SAT' }).waitFor();
    await pickFiles(page, maria.password);
    await page.getByRole('button', { name: 'Firmar con e.firma' }).click();
    const signed = page.getByTestId('signed-state');
    await signed.waitFor({ timeout: 30_000 });
    expect(await signed.getAttribute('data-set-status')).toBe('COMPLETED');
    expect(problems).toEqual([]);
    const posts = sent.map((r) => new URL(r.url).pathname);
    expect(posts.filter((p) => p.endsWith('/sat/prepare'))).toHaveLength(2);
    expect(posts.filter((p) => p.endsWith('/sat/finish'))).toHaveLength(2);
    for (const request of sent) {
      const text = request.body.toString('latin1');
      for (const secret of secrets()) {
        expect(text.includes(secret), `${request.url} carries a form of the key or the password`).toBe(false);
      }
    }
    for (const ticket of tickets) {
      const file = (await s.client.downloadDocument('original', ticket)).bytes;
      const checked = await pdfsig(file, sat.rootPem);
      expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: MARIA.name });
    }
    await page.context().close();
  });
});
