// A SAT signer on the signer page in a real Chromium: picks the .cer and .key of their e.firma,
// types the password and signs. Every request body the page sends is recorded: none carries the
// key (DER, PEM or Base64) or the password. Before signing, the page shows the certificate as the
// service checked it (holder, RFC, validity, the SAT's revocation status) for the signer to confirm.
// A wrong password, the .cer picked as the .key, and the service's refusals are explained in the
// page's language.
import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
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
async function open(url: string, locale = 'es-MX') {
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

async function pickFiles(page: Page, password: string, cred: SatCredential = maria) {
  await page.locator('#efirma-cer').setInputFiles({ name: 'maria.cer', mimeType: 'application/pkix-cert', buffer: cred.cer });
  await page.locator('#efirma-key').setInputFiles({ name: 'maria.key', mimeType: 'application/octet-stream', buffer: cred.key });
  await page.locator('#efirma-password').fill(password);
  await page.locator('#efirma-consent').check();
}

/** The certificate the page shows for confirmation, field by field. */
async function shownCertificate(page: Page) {
  const card = page.getByTestId('efirma-certificate');
  await card.waitFor({ timeout: 30_000 });
  const field = (name: string) => card.locator(`[data-field="${name}"]`).textContent();
  return {
    status: await card.getAttribute('data-status'),
    name: await field('name'),
    rfc: await field('rfc'),
    number: await field('number'),
    validity: await field('validity'),
    statusText: await field('status'),
  };
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
    // The certificate as the service checked it, before anything is signed.
    const shown = await shownCertificate(page);
    const x509 = new X509Certificate(maria.cer);
    const day = (d: string) => new Intl.DateTimeFormat('es-ES', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(d));
    expect(shown).toMatchObject({ status: 'good', name: MARIA.name, rfc: MARIA.rfc, number: maria.certificateNumber });
    expect(shown.validity).toBe(`Del ${day(x509.validFrom)} al ${day(x509.validTo)}`);
    expect(shown.statusText).toMatch(/^Vigente: el SAT confirma que no está revocado/);
    expect(sent.map((r) => new URL(r.url).pathname).filter((p) => p.endsWith('/sat/finish'))).toEqual([]);
    await page.getByRole('button', { name: 'Confirmar y firmar' }).click();
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

  it('says the .cer picked as the .key (and the .key as the .cer) is not a private key, in Spanish and English, and sends nothing', async () => {
    const { url } = await satSignerUrl();
    for (const lang of [
      { locale: 'es-MX', sign: 'Firmar con e.firma', key: /es un certificado, no una llave privada/, cer: /es una llave privada/ },
      { locale: 'en-GB', sign: 'Sign with e.firma', key: /is a certificate, not a private key/, cer: /is a private key/ },
    ]) {
      const { page, sent, problems } = await open(url, lang.locale);
      await page.locator('#efirma-cer').waitFor();
      const banner = page.getByTestId('error-banner');
      // Both files are DER and lie side by side: the certificate chosen twice.
      await pickFiles(page, maria.password, { ...maria, key: maria.cer });
      await page.getByRole('button', { name: lang.sign }).click();
      await expect.poll(() => banner.getAttribute('data-code')).toBe('EFIRMA_KEY_IS_CERTIFICATE');
      expect(await banner.textContent()).toMatch(lang.key);
      await pickFiles(page, maria.password, { ...maria, cer: maria.key });
      await page.getByRole('button', { name: lang.sign }).click();
      await expect.poll(() => banner.getAttribute('data-code')).toBe('EFIRMA_CER_IS_KEY');
      expect(await banner.textContent()).toMatch(lang.cer);
      expect(sent).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });

  it("says the service's refusals (untrusted issuer, revoked) in the page's language, and signs nothing", async () => {
    const rogue = await sat.issue({ ...MARIA, rogue: true, password: 'clave-ajena-1' });
    const revoked = await sat.issue({ ...MARIA, password: 'clave-revocada-1' });
    sat.revoke(revoked.serialHex);
    const cases = [
      { locale: 'es-MX', sign: 'Firmar con e.firma', cred: rogue, text: /no fue emitido por las autoridades certificadoras del SAT/ },
      { locale: 'es-MX', sign: 'Firmar con e.firma', cred: revoked, text: /El SAT informa que este certificado está revocado/ },
      { locale: 'en-GB', sign: 'Sign with e.firma', cred: revoked, text: /The SAT reports this certificate revoked/ },
    ];
    for (const c of cases) {
      const { doc, url } = await satSignerUrl();
      const { page, problems } = await open(url, c.locale);
      await page.locator('#efirma-cer').waitFor();
      await pickFiles(page, c.cred.password, c.cred);
      await page.getByRole('button', { name: c.sign }).click();
      const banner = page.getByTestId('error-banner');
      await expect.poll(() => banner.getAttribute('data-code')).toBe('SAT_CERTIFICATE_REFUSED');
      // The explanation in the page's language comes first; the service's own words only as the detail.
      const explanation = await banner.locator('p').nth(1).textContent();
      expect(explanation).toMatch(c.text);
      expect(await page.getByTestId('efirma-certificate').count()).toBe(0);
      const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
      expect(listed.signers[0].status).not.toBe('signed');
      // The browser logs the refusal's 422 itself; nothing else went wrong.
      expect(problems.filter((p) => !/status of 422/.test(p))).toEqual([]);
      await page.context().close();
    }
  });

  it('cancelling at the certificate signs nothing; the form is back', async () => {
    const { doc, url } = await satSignerUrl();
    const { page, sent, problems } = await open(url);
    await page.locator('#efirma-cer').waitFor();
    await pickFiles(page, maria.password);
    await page.getByRole('button', { name: 'Firmar con e.firma' }).click();
    await shownCertificate(page);
    await page.getByRole('button', { name: 'Cancelar' }).click();
    await page.getByRole('button', { name: 'Firmar con e.firma' }).waitFor();
    expect(sent.map((r) => new URL(r.url).pathname).filter((p) => p.endsWith('/sat/finish'))).toEqual([]);
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
    expect(listed.signers[0].status).not.toBe('signed');
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
    expect((await shownCertificate(page)).rfc).toBe(MARIA.rfc);
    await page.getByRole('button', { name: 'Confirmar y firmar' }).click();
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
