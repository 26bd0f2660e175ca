// The set page in a real Chromium at a phone's size: a two-document set signed in one visit — both
// documents listed and viewable (drawn by pdf.js with the signer's box), one consent, one signature,
// one click — then each signed PDF offered for download and judged by pdfsig. A set that asks a
// signer to verify their identity shows the capture step first (the document photos chosen as files,
// the selfie taken with Chromium's fake camera), once for all the documents; approved, the pad.
import { execFileSync } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';
import { eventKinds } from '../helpers/events.js';
import { testPng } from '../helpers/images.js';

const PHONE = { width: 360, height: 740 };

let s: TestServer;
let browser: Browser;
let rootPem: string;

beforeAll(async () => {
  // `npm test` builds the page first; this makes a direct `vitest run` work too (a no-op when fresh).
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  // The fake camera (a generated test pattern) stands in for the selfie's camera.
  [s, browser] = await Promise.all([
    startTestServer(),
    launchChromium(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']),
  ]);
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('set page', { timeout: 180_000 }, () => {
  it('signs a two-document set in one visit and offers each signed PDF', async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta de cliente' });
    const pdf = (await makePdf([A4, A4])).toString('base64');
    const tickets: string[] = [];
    for (const name of ['Contrato', 'Anexo']) {
      const doc = await s.client.createDocument({
        b64_doc: pdf,
        name,
        document_set: set.uuid,
        stickers: [
          { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 1, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
          { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', page: 1, rect: { lx: 320, ly: 60, tx: 520, ty: 130 } },
        ],
      });
      tickets.push(doc.document_ticket);
    }
    const closed = await s.client.closeDocumentSet(set.uuid, { language: 'es' });
    const url = closed.signers.find((x) => x.data === 'ana@example.com')!.signer_url;

    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, locale: 'es-ES' });
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(url);

    // Both documents are listed with their page count; the first one opens in the viewer.
    const items = page.getByTestId('set-document');
    await items.first().waitFor();
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).textContent()).toContain('Contrato');
    expect(await items.nth(1).textContent()).toContain('2 páginas');
    expect(await page.locator('h1').textContent()).toBe('Alta de cliente');
    // Who asks (the account's name) and as whom Ana signs.
    const account = await s.deps.db.selectFrom('accounts').select('name').where('web_id', '=', s.creds.webId).executeTakeFirstOrThrow();
    expect(await page.getByTestId('sender-name').textContent()).toBe(`${account.name} te pide firmar estos documentos`);
    expect(await page.getByTestId('signing-as').textContent()).toBe('Firmas como Ana García · ana@example.com');
    await items.nth(0).getByRole('button', { name: /Ver/ }).click();
    await page.waitForSelector('canvas.page-canvas[data-rendered="true"]');
    await expect.poll(() => page.locator('.box-highlight').first().isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    // One typed signature, one consent, one click for both documents.
    const signButton = page.getByRole('button', { name: 'Firmar los 2 documentos' });
    expect(await signButton.isDisabled()).toBe(true);
    await page.getByRole('tab', { name: 'Escribir' }).click();
    await page.locator('#typed-signature').fill('Ana García');
    await page.getByLabel(/Acepto firmar estos documentos/).check();
    await signButton.click();
    const signed = page.getByTestId('signed-state');
    await signed.waitFor();
    expect(await signed.getAttribute('data-set-status')).toBe('CLOSED');
    expect(await page.getByTestId('live-status').textContent()).toMatch(/Has firmado los documentos/);

    const links = page.getByTestId('download-link');
    expect(await links.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(new URL((await links.nth(i).getAttribute('href'))!, s.baseUrl));
      expect(res.headers.get('content-type')).toBe('application/pdf');
      const report = await pdfsig(Buffer.from(await res.arrayBuffer()), rootPem);
      expect(report.signatures, report.output).toHaveLength(1);
      expect(report.signatures[0]).toMatchObject({ valid: true, trusted: true, commonName: 'Ana García' });
    }
    const got = await s.client.getDocumentSet(set.uuid);
    expect(got.signers.map((x) => x.status)).toEqual(['signed', 'invited']);
    expect(got.documents.map((d) => d.document_ticket)).toEqual(tickets);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('asks for the identity verification once for the whole set before the pad; approved, one click signs both', async () => {
    const set = await s.client.createDocumentSet({ name: 'Crédito' });
    const pdf = (await makePdf([A4])).toString('base64');
    const tickets: string[] = [];
    for (const [name, verify] of [
      ['Solicitud', true],
      ['Pagaré', false],
    ] as const) {
      const doc = await s.client.createDocument({
        b64_doc: pdf,
        name,
        document_set: set.uuid,
        stickers: [
          {
            authority: 'EMAIL_LINK',
            data: 'ines@example.com',
            name: 'Inés Camacho',
            page: 0,
            rect: { lx: 60, ly: 60, tx: 260, ty: 130 },
            requireIdentityVerification: verify,
          },
        ],
      });
      tickets.push(doc.document_ticket);
    }
    const closed = await s.client.closeDocumentSet(set.uuid, { language: 'es' });
    const context = await browser.newContext({
      viewport: PHONE,
      deviceScaleFactor: 2,
      isMobile: true,
      locale: 'es-ES',
      permissions: ['camera'],
    });
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(closed.signers[0].signer_url);
    await page.getByRole('heading', { name: 'Verifica tu identidad' }).waitFor();
    expect(await page.getByText(/una sola vez para todos/).count()).toBe(1);
    expect(await page.getByTestId('set-document').count()).toBe(2);
    expect(await page.getByRole('button', { name: 'Firmar los 2 documentos' }).count()).toBe(0);

    const photo = (name: string, png: Buffer) => ({ name, mimeType: 'image/png', buffer: png });
    await page.locator('#identity-front').setInputFiles(photo('frente.png', testPng(1200, 760, [210, 190, 160])));
    await expect.poll(() => page.locator('.identity-field .badge').count()).toBe(1);
    await page.locator('#identity-back').setInputFiles(photo('reverso.png', testPng(1200, 760, [160, 190, 210])));
    await expect.poll(() => page.locator('.identity-field .badge').count()).toBe(2);
    await page.getByRole('button', { name: 'Usar la cámara: Selfie' }).click();
    const preview = page.getByLabel('Vista de la cámara: Selfie');
    await preview.waitFor();
    await expect.poll(() => preview.evaluate((v: HTMLVideoElement) => v.videoWidth)).toBeGreaterThan(0);
    const frame = await preview.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight]);
    await page.getByRole('button', { name: 'Tomar foto: Selfie' }).click();
    await expect.poll(() => page.locator('.identity-field .badge').count()).toBe(3);
    await page.getByRole('button', { name: 'Enviar a revisión' }).click();
    await page.getByTestId('identity-pending').waitFor();
    expect(await page.getByRole('button', { name: 'Firmar los 2 documentos' }).count()).toBe(0);

    // One review for the set, naming both documents; the selfie is the camera's frame.
    const review = (await s.client.listIdentityReviews({ status: 'pending' })).reviews.find((r) => r.document_set?.uuid === set.uuid)!;
    expect(review.document_set?.documents.map((d) => d.document_ticket)).toEqual(tickets);
    const selfie = (await s.client.getIdentityReview(review.id)).evidence.find((e) => e.kind === 'selfie')!;
    expect([selfie.content_type, selfie.width, selfie.height]).toEqual(['image/jpeg', ...frame]);
    await s.client.decideIdentityReview(review.id, { decision: 'approve' });

    await page.reload();
    const signButton = page.getByRole('button', { name: 'Firmar los 2 documentos' });
    await signButton.waitFor();
    await page.getByRole('tab', { name: 'Escribir' }).click();
    await page.locator('#typed-signature').fill('Inés Camacho');
    await page.getByLabel(/Acepto firmar estos documentos/).check();
    await signButton.click();
    await page.locator('[data-testid="signed-state"][data-set-status="COMPLETED"]').waitFor({ timeout: 90_000 });
    for (const ticket of tickets) {
      expect(await eventKinds(s.deps.db, ticket)).toEqual(['identity_verification_passed', 'original_signed', 'document_completed']);
      const report = await pdfsig((await s.client.downloadDocument('original', ticket)).bytes, rootPem);
      expect(report.signatures.map((x) => [x.valid, x.trusted])).toEqual([[true, true]]);
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it('in an ordered set, a signer asked to verify can send the images before their turn; the pad waits for it', async () => {
    const set = await s.client.createDocumentSet({ name: 'En orden' });
    const pdf = (await makePdf([A4])).toString('base64');
    await s.client.createDocument({
      b64_doc: pdf,
      name: 'Solicitud',
      document_set: set.uuid,
      stickers: [
        { authority: 'EMAIL_LINK', data: 'olga@example.com', name: 'Olga Ruiz', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
        {
          authority: 'EMAIL_LINK',
          data: 'pablo@example.com',
          name: 'Pablo Núñez',
          page: 0,
          rect: { lx: 320, ly: 60, tx: 520, ty: 130 },
          requireIdentityVerification: true,
        },
      ],
    });
    const closed = await s.client.closeDocumentSet(set.uuid, { language: 'en', ordered: true });
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, locale: 'en-GB' });
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(closed.signers.find((x) => x.data === 'pablo@example.com')!.signer_url);
    await page.getByRole('heading', { name: 'Not your turn yet' }).waitFor();
    await page.getByRole('heading', { name: 'Verify your identity' }).waitFor();
    expect(await page.getByText(/once for all the documents/).count()).toBe(1);
    const photo = (name: string, png: Buffer) => ({ name, mimeType: 'image/png', buffer: png });
    await page.locator('#identity-front').setInputFiles(photo('front.png', testPng(1200, 760, [210, 190, 160])));
    await expect.poll(() => page.locator('.identity-field .badge').count()).toBe(1);
    await page.locator('#identity-back').setInputFiles(photo('back.png', testPng(1200, 760, [160, 190, 210])));
    await expect.poll(() => page.locator('.identity-field .badge').count()).toBe(2);
    await page.locator('#identity-selfie').setInputFiles(photo('selfie.png', testPng(720, 960, [230, 200, 180])));
    await expect.poll(() => page.locator('.identity-field .badge').count()).toBe(3);
    await page.getByRole('button', { name: 'Send for review' }).click();
    await page.getByTestId('identity-pending').waitFor();
    const review = (await s.client.listIdentityReviews({ status: 'pending' })).reviews.find((r) => r.document_set?.uuid === set.uuid);
    expect(review?.signer.name).toBe('Pablo Núñez');
    await s.client.decideIdentityReview(review!.id, { decision: 'approve' });
    // Verified and still not due: the page says so, with no pad.
    await page.reload();
    await page.getByRole('heading', { name: 'Not your turn yet' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Verify your identity' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Sign/ }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('serves /sign/set/{token} with the page headers and shows a clear page for a link that is not valid', async () => {
    const res = await fetch(`${s.baseUrl}/sign/set/${'x'.repeat(43)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const context = await browser.newContext({ viewport: PHONE, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${s.baseUrl}/sign/set/${'x'.repeat(43)}`);
    await page.getByTestId('closed-state').waitFor();
    expect(await page.getByRole('heading', { name: 'Link not valid' }).isVisible()).toBe(true);
    await context.close();
  });
});
