// A CSC signer on the signer page in a real Chromium: agrees, continues to their trust service
// provider (simulated on loopback, csc-provider.ts), approves there, and comes back to their page
// with the document signed by the provider's credential; pdfsig trusts the signature. On a set
// link, one approval at the provider signs every document of the set and brings them back to the set.
// A SCAL2 credential (authMode oauth2code) takes the signer to the provider twice: the second
// approval is of the hash of what they sign.
import { X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { type CertTestPki, createCertTestPki } from '../helpers/cert-pki.js';
import { type CscProvider, startCscProvider } from '../helpers/csc-provider.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

const LUIS = { name: 'Luis Romero', email: 'luis@example.com' };
const MARTA = { name: 'Marta Ruiz', email: 'marta@example.com' };

let s: TestServer;
let browser: Browser;
let ca: CertTestPki;
let tsp: CscProvider;

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  ca = await createCertTestPki();
  tsp = await startCscProvider();
  const providers = [{ name: 'Test TSP', base_url: tsp.baseUrl, client_id: tsp.clientId, client_secret: tsp.clientSecret }];
  [s, browser] = await Promise.all([
    startTestServer({ env: { SELLO_CSC_PROVIDERS: JSON.stringify(providers), SELLO_CSC_TRUST_PEM: ca.trustPemPath } }),
    launchChromium(),
  ]);
  const c = await ca.issue(LUIS);
  tsp.add({
    credentialID: 'luis-1',
    user: 'luis',
    certificateDer: c.der,
    chainDer: [new X509Certificate(ca.rootPem).raw],
    privateKey: c.privateKey,
  });
  const m = await ca.issue(MARTA);
  tsp.add({ credentialID: 'marta-scal2', user: 'marta', certificateDer: m.der, chainDer: [], privateKey: m.privateKey, scal: '2' });
  tsp.signInAs('luis');
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await tsp?.close();
  await ca?.close();
});

describe('the signer page with remote signing (CSC)', () => {
  it('continues to the provider, approves there, and comes back signed; pdfsig trusts the signature', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Contrato',
      stickers: [{ authority: 'CSC', data: LUIS.email, name: 'Luis', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
    });
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(doc.stickers[0].signer_url);
    await page.getByRole('heading', { name: 'Sign with your signing provider' }).waitFor();
    await page.locator('#remote-consent').check();
    await page.getByRole('button', { name: 'Continue with my provider' }).click();
    await page.getByRole('heading', { name: 'Authorize signing' }).waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).origin).toBe(new URL(tsp.baseUrl).origin);
    await page.getByRole('link', { name: 'Approve' }).click();
    await page.getByTestId('signed-state').waitFor({ timeout: 60_000 });
    expect(page.url()).toBe(doc.stickers[0].signer_url);
    expect(problems).toEqual([]);
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: LUIS.name });
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0]).toMatchObject({ certType: 'CSC', downstreamData: { provider: 'Test TSP' } });
    await context.close();
  }, 120_000);

  it('on a set link, one approval at the provider signs both documents and comes back to the set page', async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta' });
    const tickets: string[] = [];
    for (const name of ['Contrato', 'Anexo']) {
      const doc = await s.client.createDocument({
        b64_doc: (await makePdf([A4])).toString('base64'),
        name,
        document_set: set.uuid,
        stickers: [{ authority: 'CSC', data: LUIS.email, name: 'Luis', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
      });
      tickets.push(doc.document_ticket);
    }
    const url = (await s.client.closeDocumentSet(set.uuid, { language: 'en' })).signers[0].signer_url;
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(url);
    await page.getByRole('heading', { name: 'Sign with your signing provider' }).waitFor();
    await page.locator('#remote-consent').check();
    await page.getByRole('button', { name: 'Continue with my provider' }).click();
    await page.getByRole('link', { name: 'Approve' }).click();
    const signed = page.getByTestId('signed-state');
    await signed.waitFor({ timeout: 60_000 });
    expect(page.url()).toBe(url);
    expect(await signed.getAttribute('data-set-status')).toBe('COMPLETED');
    expect(problems).toEqual([]);
    for (const ticket of tickets) {
      const checked = await pdfsig((await s.client.downloadDocument('original', ticket)).bytes, ca.rootPem);
      expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: LUIS.name });
    }
    await context.close();
  }, 120_000);

  it('a SCAL2 credential: the provider is visited twice, the second time to approve the hash; back signed, pdfsig trusts it', async () => {
    tsp.signInAs('marta');
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Contrato',
      stickers: [{ authority: 'CSC', data: MARTA.email, name: 'Marta', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
    });
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(doc.stickers[0].signer_url);
    await page.getByRole('heading', { name: 'Sign with your signing provider' }).waitFor();
    await page.locator('#remote-consent').check();
    await page.getByRole('button', { name: 'Continue with my provider' }).click();
    await page.waitForURL((u) => u.searchParams.get('scope') === 'service', { timeout: 30_000 });
    await page.getByRole('link', { name: 'Approve' }).click();
    await page.waitForURL((u) => u.searchParams.get('scope') === 'credential', { timeout: 60_000 });
    const second = new URL(page.url());
    expect([second.origin, second.searchParams.get('credentialID'), second.searchParams.get('numSignatures')]).toEqual([
      new URL(tsp.baseUrl).origin,
      'marta-scal2',
      '1',
    ]);
    expect((await s.client.signatureReport(doc.document_ticket)).firmas).toEqual([]);
    await page.getByRole('link', { name: 'Approve' }).click();
    await page.getByTestId('signed-state').waitFor({ timeout: 60_000 });
    expect(page.url()).toBe(doc.stickers[0].signer_url);
    expect(problems).toEqual([]);
    const checked = await pdfsig((await s.client.downloadDocument('original', doc.document_ticket)).bytes, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, trusted: true, commonName: MARTA.name });
    await context.close();
  }, 120_000);
});
