// The signer page in a real Chromium at a phone's size: the PDF drawn by pdf.js with the signer's
// boxes, signing with the mouse and with the keyboard alone, rejecting with an emoji reason, both
// languages, and the signed PDF judged by pdfsig.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { listChannelMessages } from '../../src/store/channel-messages-repo.js';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signerPageRoutes } from '../../src/http/routes/signer-page.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { blur, readPng, writeJpeg } from '../helpers/image-ops.js';
import { testPng } from '../helpers/images.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

const PHONE = { width: 360, height: 740 };

let s: TestServer;
let browser: Browser;
let rootPem: string;
let pdf: string;
const tmp = mkdtempSync(join(tmpdir(), 'sello-e2e-'));

beforeAll(async () => {
  // `npm test` builds the page first; this makes a direct `vitest run` work too (a no-op when fresh).
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  [s, browser] = await Promise.all([startTestServer(), launchChromium()]);
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const box = (page: number, x = 60) => ({ page, rect: { lx: x, ly: 60, tx: x + 200, ty: 130 } });

async function twoSigners(workflow?: Record<string, unknown>) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0) },
      { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', ...box(1, 320) },
    ],
    ...(workflow ? { workflow } : {}),
  });
  return { doc, ana: doc.stickers[0].signer_url, bruno: doc.stickers[1].signer_url };
}

/** A one-page "Pagaré" signed by Ana through the API, then endorsed to Elisa Mora by `endorser`. */
async function endorsedPagare(endorser: { name: string; authority: 'EMAIL' | 'EMAIL_LINK'; data: string }) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Pagaré',
    stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0) }],
  });
  const signed = await fetch(`${s.baseUrl}/sign/api/${doc.stickers[0].signer_url.split('/').pop()}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signature: { type: 'typed', text: 'Ana García' }, consent: true }),
  });
  expect(signed.status).toBe(200);
  const endorsement = await s.client.endorseDocument(doc.document_ticket, {
    endorsement: { type: 'propiedad', text: 'Páguese a la orden de Elisa Mora' },
    endorser,
    endorsee: { name: 'Elisa Mora', email: 'elisa@example.com' },
  });
  return { doc, endorsement };
}

/** A phone-sized page; every script error or console error fails the test that opened it. */
async function phone(url: string, locale = 'es-ES'): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, locale });
  const page = await context.newPage();
  const problems = pageProblems(page);
  await page.goto(url);
  return { page, problems };
}

/** Presses Tab until the element matching `selector` has focus (the way a keyboard user gets there). */
async function tabTo(page: Page, selector: string, max = 25) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) {
      return;
    }
  }
  throw new Error(`${selector} never took the focus`);
}

describe('signer page', () => {
  it('shows the PDF and the box on a phone, signs with a drawn signature, and offers the signed PDF', async () => {
    const { ana } = await twoSigners();
    const { page, problems } = await phone(ana);

    // The first page is drawn by pdf.js: a canvas as wide as the screen, with dark text on it.
    const canvas = page.locator('canvas.page-canvas').first();
    await page.waitForSelector('canvas.page-canvas[data-rendered="true"]');
    const ink = await canvas.evaluate((el: HTMLCanvasElement) => {
      const data = el.getContext('2d')!.getImageData(0, 0, el.width, el.height).data;
      let dark = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] > 0 && data[i] < 100 && data[i + 1] < 100 && data[i + 2] < 100) {
          dark++;
        }
      }
      return { dark, width: el.width };
    });
    expect(ink.dark).toBeGreaterThan(100);
    const pageBox = (await page.locator('.page').first().boundingBox())!;
    expect(pageBox.width).toBeLessThanOrEqual(PHONE.width);
    expect(pageBox.width).toBeGreaterThan(300);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    // The box (60,60)–(260,130) in points from the lower-left corner, where the page shows it.
    const highlight = page.locator('.page').first().locator('.box-highlight');
    await expect.poll(() => highlight.isVisible()).toBe(true);
    const hb = (await highlight.boundingBox())!;
    const k = pageBox.width / A4.width;
    expect(hb.x - pageBox.x).toBeCloseTo(60 * k, 0);
    expect(hb.y - pageBox.y).toBeCloseTo((A4.height - 130) * k, 0);
    expect(hb.width).toBeCloseTo(200 * k, 0);
    expect(hb.height).toBeCloseTo(70 * k, 0);
    expect(await page.locator('html').getAttribute('lang')).toBe('es');

    // Sign stays disabled until there is a signature and consent.
    const signButton = page.getByRole('button', { name: 'Firmar', exact: true });
    expect(await signButton.isDisabled()).toBe(true);
    const pad = page.getByTestId('signature-pad');
    await pad.scrollIntoViewIfNeeded();
    const pb = (await pad.boundingBox())!;
    await page.mouse.move(pb.x + 30, pb.y + 100);
    await page.mouse.down();
    for (let i = 1; i <= 20; i++) {
      await page.mouse.move(pb.x + 30 + i * 12, pb.y + 100 - Math.sin(i / 3) * 40);
    }
    await page.mouse.up();
    await expect.poll(() => page.getByText('Firma dibujada.').isVisible()).toBe(true);
    expect(await signButton.isDisabled()).toBe(true);
    await page.getByLabel(/Acepto firmar este documento/).check();
    expect(await signButton.isDisabled()).toBe(false);

    const shot = join(tmp, 'phone.png');
    await page.screenshot({ path: shot });
    const png = readFileSync(shot);
    expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([PHONE.width * 2, PHONE.height * 2]);

    await signButton.click();
    const signed = page.getByTestId('signed-state');
    await signed.waitFor();
    expect(await signed.getAttribute('data-document-status')).toBe('pending');
    expect(await page.getByTestId('live-status').textContent()).toMatch(/Has firmado el documento/);

    const href = (await page.getByTestId('download-link').getAttribute('href'))!;
    const res = await fetch(new URL(href, s.baseUrl));
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const report = await pdfsig(Buffer.from(await res.arrayBuffer()), rootPem);
    expect(report.signatures, report.output).toHaveLength(1);
    expect(report.signatures[0]).toMatchObject({ valid: true, trusted: true, commonName: 'Ana García' });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('lets the second signer sign with the keyboard alone (typed signature): the document completes', async () => {
    const { doc, ana, bruno } = await twoSigners();
    await fetch(`${s.baseUrl}/sign/api/${ana.split('/').pop()}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signature: { type: 'typed', text: 'Ana García' }, consent: true }),
    });
    const { page, problems } = await phone(bruno);
    await page.getByRole('tab', { name: 'Escribir' }).waitFor();

    await tabTo(page, '#tab-type');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('typed-signature');
    await page.keyboard.type('Bruno Díaz');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('consent');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Firmar');
    await page.keyboard.press('Enter');

    const signed = page.getByTestId('signed-state');
    await signed.waitFor();
    expect(await signed.getAttribute('data-document-status')).toBe('completed');
    // The success heading takes the focus, so a screen reader reads it out.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('outcome-title');
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
    expect(listed.status).toBe('completed');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('asks an EMAIL signer for the code sent by email before the pad, then signs', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      stickers: [{ authority: 'EMAIL', data: 'carla@example.com', name: 'Carla', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
    });
    const { page, problems } = await phone(doc.stickers[0].signer_url);
    await page.getByRole('button', { name: 'Enviar código' }).click();
    await page.getByLabel('Código de 6 dígitos').waitFor();
    // Carla's code email, by recipient and kind: an email of an earlier test queued late cannot stand in for it.
    const codeMail = (await listMessages(s.deps, 50)).find((m) => m.recipient === 'carla@example.com' && m.kind === 'otp')!;
    const code = /\b(\d{6})\b/.exec(codeMail.body_text)![1];
    await page.getByLabel('Código de 6 dígitos').fill(code);
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.getByRole('tab', { name: 'Escribir' }).click();
    await page.locator('#typed-signature').fill('Carla');
    await page.locator('#consent').check();
    await page.getByRole('button', { name: 'Firmar' }).click();
    // Waited for as one selector, and on failure the page's text says what it showed instead.
    await page
      .locator('[data-testid="signed-state"][data-document-status="completed"]')
      .waitFor()
      .catch(async (err: Error) => {
        throw new Error(`${err.message}\npage showed: ${(await page.locator('body').innerText()).slice(0, 2000)}`);
      });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('asks SMS and WhatsApp signers for the code sent to their phone before the pad, then signs', async () => {
    const phoneOf = { SMS: '+5215512345678', WHATSAPP: '+5215587654321' } as const;
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      stickers: [
        { authority: 'SMS', data: phoneOf.SMS, name: 'Diego', page: 0, rect: { lx: 40, ly: 60, tx: 240, ty: 130 } },
        { authority: 'WHATSAPP', data: phoneOf.WHATSAPP, name: 'Elena', page: 0, rect: { lx: 300, ly: 60, tx: 500, ty: 130 } },
      ],
    });
    for (const [i, authority] of (['SMS', 'WHATSAPP'] as const).entries()) {
      const { page, problems } = await phone(doc.stickers[i].signer_url);
      const heading = authority === 'SMS' ? 'Confirma tu teléfono' : 'Confirma tu WhatsApp';
      await page.getByRole('heading', { name: heading }).waitFor();
      await page.getByRole('button', { name: 'Enviar código' }).click();
      await page.getByLabel('Código de 6 dígitos').waitFor();
      // Without a provider configured the message waits in the outbox, where the operator reads it.
      const sent = (await listChannelMessages(s.deps, 500)).filter((m) => m.recipient === phoneOf[authority] && m.kind === 'otp');
      expect(sent.map((r) => r.channel)).toEqual([authority === 'SMS' ? 'sms' : 'whatsapp']);
      // The page names the number only by its last digits.
      const said = (await page.getByRole('status').filter({ hasText: 'Enviamos un código' }).textContent()) ?? '';
      expect(said).toContain(`${phoneOf[authority].slice(0, 3)}*********${phoneOf[authority].slice(-2)}`);
      expect(said).not.toContain(phoneOf[authority].slice(3, 11));
      const code = /\b(\d{6})\b/.exec(sent[0].body_text)![1];
      await page.getByLabel('Código de 6 dígitos').fill(code);
      await page.getByRole('button', { name: 'Verificar' }).click();
      await page.getByRole('tab', { name: 'Escribir' }).click();
      await page.locator('#typed-signature').fill(authority === 'SMS' ? 'Diego' : 'Elena');
      await page.locator('#consent').check();
      await page.getByRole('button', { name: 'Firmar' }).click();
      const signed = page.getByTestId('signed-state');
      await signed.waitFor();
      expect(await signed.getAttribute('data-document-status')).toBe(i === 0 ? 'pending' : 'completed');
      expect(problems).toEqual([]);
      await page.context().close();
    }
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const checked = await pdfsig(file, rootPem);
    expect(checked.signatures.map((x) => [x.valid, x.trusted])).toEqual([
      [true, true],
      [true, true],
    ]);
  });

  it('asks for the identity document and a selfie before the pad; signs once approved, never once rejected', async () => {
    const images = [
      { name: 'frente.png', mimeType: 'image/png', buffer: testPng(1200, 760) },
      { name: 'reverso.png', mimeType: 'image/png', buffer: testPng(1200, 760, [150, 170, 200]) },
      { name: 'selfie.png', mimeType: 'image/png', buffer: testPng(720, 960, [230, 200, 180]) },
    ];
    const blurredFront = writeJpeg(blur(readPng(testPng(1200, 760)), 6), 85);
    const create = () =>
      s.client.createDocument({
        b64_doc: pdf,
        requireIdentityVerification: true,
        stickers: [
          { authority: 'EMAIL_LINK', data: 'ines@example.com', name: 'Inés', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
        ],
      });
    const review = async (ticket: string) =>
      (await s.client.listIdentityReviews({ status: 'pending' })).reviews.find((r) => r.document_ticket === ticket)!;

    for (const outcome of ['approve', 'reject'] as const) {
      const doc = await create();
      const { page, problems } = await phone(doc.stickers[0].signer_url);
      await page.getByRole('heading', { name: 'Verifica tu identidad' }).waitFor();
      expect(await page.locator('#signature-pad, #typed-signature').count()).toBe(0);
      // On a phone the fields open the camera: the document with the back one, the selfie with the front one.
      expect(await page.locator('#identity-front').getAttribute('capture')).toBe('environment');
      expect(await page.locator('#identity-selfie').getAttribute('capture')).toBe('user');
      if (outcome === 'approve') {
        // A blurred photo of the card is refused at once, and the page says what to do in Spanish.
        await page.locator('#identity-front').setInputFiles({ name: 'borrosa.jpg', mimeType: 'image/jpeg', buffer: blurredFront });
        const banner = page.getByTestId('error-banner');
        await banner.waitFor();
        expect(await banner.getAttribute('data-code')).toBe('IMAGE_QUALITY');
        expect(await banner.textContent()).toContain('La foto salió borrosa');
        expect(await page.locator('.identity-field .badge').count()).toBe(0);
        // The browser logs the refusal's 422 as a failed resource: expected here, and only this one.
        const refused = problems.findIndex((p) => /status of 422 .*\/identity\/front$/.test(p));
        expect(refused).toBeGreaterThanOrEqual(0);
        problems.splice(refused, 1);
      }
      for (const [i, kind] of (['front', 'back', 'selfie'] as const).entries()) {
        await page.locator(`#identity-${kind}`).setInputFiles(images[i]);
        await expect.poll(() => page.locator('.identity-field .badge').count()).toBe(i + 1);
      }
      await page.getByRole('button', { name: 'Enviar a revisión' }).click();
      await page.getByTestId('identity-pending').waitFor();

      const r = await review(doc.document_ticket);
      await s.client.decideIdentityReview(
        r.id,
        outcome === 'approve' ? { decision: 'approve' } : { decision: 'reject', reason: 'No coincide' },
      );
      await page.reload();
      if (outcome === 'approve') {
        await page.getByRole('tab', { name: 'Escribir' }).click();
        await page.locator('#typed-signature').fill('Inés');
        await page.locator('#consent').check();
        await page.getByRole('button', { name: 'Firmar' }).click();
        await page.getByTestId('signed-state').waitFor();
      } else {
        await page.getByTestId('identity-failed').waitFor();
        expect(await page.getByRole('button', { name: 'Firmar' }).count()).toBe(0);
      }
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });

  it('in English, rejects with an emoji reason counted as the user sees it; the reason is stored', async () => {
    const { doc, ana } = await twoSigners({ language: 'en' });
    // The browser says Spanish; the workflow's language wins.
    const { page, problems } = await phone(ana, 'es-ES');
    const rejectButton = page.getByRole('button', { name: 'Reject', exact: true });
    await rejectButton.waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.getByRole('button', { name: 'Sign', exact: true }).isDisabled()).toBe(true);

    // Escape closes the dialog and gives the focus back to the button that opened it.
    await rejectButton.click();
    const dialog = page.getByRole('dialog', { name: 'Reject the document' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Reject');

    await rejectButton.click();
    const reasonBox = dialog.getByLabel('Reason for rejecting');
    await reasonBox.fill('👍🏽'.repeat(301));
    expect(await dialog.getByTestId('reason-counter').textContent()).toBe('301 of 300 characters');
    expect(await dialog.getByRole('button', { name: 'Reject document' }).isDisabled()).toBe(true);
    // Focus stays in the dialog: Tab from the last control comes back to the first.
    await dialog.getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');

    const reason = 'No estoy de acuerdo 👍🏽 👨‍👩‍👧 ñandú';
    await reasonBox.fill(reason);
    expect(await dialog.getByTestId('reason-counter').textContent()).toBe('29 of 300 characters');
    await dialog.getByRole('button', { name: 'Reject document' }).click();
    await page.getByTestId('rejected-state').waitFor();
    expect(await page.getByRole('heading', { name: 'You rejected the document' }).isVisible()).toBe(true);

    const stored = await s.deps.db
      .selectFrom('notifications as n')
      .innerJoin('documents as d', 'd.id', 'n.document_id')
      .select('n.meta')
      .where('d.ticket', '=', doc.document_ticket)
      .where('n.kind', '=', 'document_rejected')
      .executeTakeFirstOrThrow();
    expect((stored.meta as { reason: string }).reason).toBe(reason);

    // The other signer's link now shows a clear page, not the pad.
    const other = await phone(doc.stickers[1].signer_url);
    const closed = other.page.getByTestId('closed-state');
    await closed.waitFor();
    expect(await closed.getAttribute('data-state')).toBe('rejected');
    expect(await other.page.getByRole('heading', { name: 'Document rejected' }).isVisible()).toBe(true);
    expect(await other.page.getByTestId('signature-pad').count()).toBe(0);
    expect([...problems, ...other.problems]).toEqual([]);
    await page.context().close();
    await other.page.context().close();
  });

  it('shows a clear page for a link that is not valid, in the browser language', async () => {
    const { page } = await phone(`${s.baseUrl}/sign/${'x'.repeat(43)}`, 'en-US');
    await page.getByTestId('closed-state').waitFor();
    expect(await page.getByRole('heading', { name: 'Link not valid' }).isVisible()).toBe(true);
    await page.context().close();
  });

  it('serves the page with safe headers and its assets with long caching', async () => {
    const res = await fetch(`${s.baseUrl}/sign/${'x'.repeat(43)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    const script = /<script type="module" crossorigin src="([^"]+)"/.exec(html)![1];
    const asset = await fetch(s.baseUrl + script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toMatch(/immutable/);
    expect([403, 404]).toContain((await fetch(`${s.baseUrl}/assets/..%2Fpackage.json`)).status);
  });

  it('answers 503 saying how to build the page when web/dist is missing', async () => {
    const app = Fastify();
    await app.register(signerPageRoutes({ distDir: join(tmp, 'no-such-dist') }));
    const res = await app.inject({ method: 'GET', url: `/sign/${'x'.repeat(43)}` });
    await app.close();
    expect(res.statusCode).toBe(503);
    expect(res.json().error.message).toMatch(/npm run build:web/);
  });
  it('shows an endorser the endorsement, asks the code of an EMAIL endorser, and signs the completed document', async () => {
    const { doc, endorsement } = await endorsedPagare({ name: 'Diana Ríos', authority: 'EMAIL', data: 'diana@example.com' });

    const { page, problems } = await phone(endorsement.signer_url);
    await page.getByTestId('endorsement-card').waitFor();
    expect(await page.getByTestId('endorsement-type').textContent()).toBe('Endoso en propiedad');
    expect(await page.getByTestId('endorsement-text').textContent()).toBe('Páguese a la orden de Elisa Mora');
    expect(await page.getByTestId('endorsement-to').textContent()).toBe('A favor de Elisa Mora');
    // The endorser's box is on the last page, the second.
    await expect.poll(() => page.locator('.page').nth(1).locator('.box-highlight').count()).toBe(1);
    expect(await page.locator('.page').first().locator('.box-highlight').count()).toBe(0);

    await page.getByRole('button', { name: 'Enviar código' }).click();
    await page.getByLabel('Código de 6 dígitos').waitFor();
    const codeMail = (await listMessages(s.deps, 50)).find((m) => m.recipient === 'diana@example.com' && m.kind === 'otp')!;
    await page.getByLabel('Código de 6 dígitos').fill(/\b(\d{6})\b/.exec(codeMail.body_text)![1]);
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.getByRole('tab', { name: 'Escribir' }).click();
    await page.locator('#typed-signature').fill('Diana Ríos');
    await page.locator('#consent').check();
    await page.getByRole('button', { name: 'Firmar' }).click();
    await page
      .locator('[data-testid="signed-state"][data-document-status="completed"]')
      .waitFor()
      .catch(async (err: Error) => {
        throw new Error(`${err.message}\npage showed: ${(await page.locator('body').innerText()).slice(0, 2000)}`);
      });
    expect(await page.getByTestId('document-status').textContent()).toBe('Has firmado el endoso: el documento ya lo incluye.');
    expect(problems).toEqual([]);
    await page.context().close();

    const final = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const checked = await pdfsig(final, rootPem);
    expect(checked.signatures.map((x) => [x.commonName, x.valid, x.trusted])).toEqual([
      ['Ana García', true, true],
      ['Diana Ríos', true, true],
    ]);
    expect((await s.client.listEndorsements(doc.document_ticket)).holder?.name).toBe('Elisa Mora');
  });

  it('tells an endorser the endorsement was withdrawn: when signing after it, and on opening the link, in Spanish and English', async () => {
    const { doc, endorsement } = await endorsedPagare({ name: 'Ana García', authority: 'EMAIL_LINK', data: 'ana@example.com' });

    // The page is open and the signature ready when the sender withdraws the endorsement.
    const { page, problems } = await phone(endorsement.signer_url);
    await page.getByTestId('endorsement-card').waitFor();
    await page.getByRole('tab', { name: 'Escribir' }).click();
    await page.locator('#typed-signature').fill('Ana García');
    await page.locator('#consent').check();
    await s.client.withdrawEndorsement(doc.document_ticket, endorsement.endorsement_id, 'Texto equivocado');
    await page.getByRole('button', { name: 'Firmar' }).click();
    const closed = page.getByTestId('closed-state');
    await closed.waitFor();
    expect(await closed.getAttribute('data-state')).toBe('endorsement-withdrawn');
    expect(await page.getByRole('heading', { name: 'Endoso retirado' }).isVisible()).toBe(true);
    expect(await closed.textContent()).toContain('Quien te envió este endoso lo retiró');
    expect(await page.getByTestId('signature-pad').count()).toBe(0);
    expect(await page.getByTestId('error-banner').count()).toBe(0);
    // The browser logs each refused request (the signature, the reload): nothing else went wrong.
    expect(problems.filter((p) => !/status of 409/.test(p))).toEqual([]);
    await page.context().close();

    const again = await phone(endorsement.signer_url, 'en-US');
    await again.page.getByTestId('closed-state').waitFor();
    expect(await again.page.getByRole('heading', { name: 'Endorsement withdrawn' }).isVisible()).toBe(true);
    expect(await again.page.getByTestId('closed-state').textContent()).toContain('The sender withdrew this endorsement');
    expect(await again.page.getByTestId('endorsement-card').count()).toBe(0);
    expect(again.problems.filter((p) => !/status of 409/.test(p))).toEqual([]);
    await again.page.context().close();
    expect((await s.client.listEndorsements(doc.document_ticket)).endorsements.map((e) => e.status)).toEqual(['withdrawn']);
  });
});
