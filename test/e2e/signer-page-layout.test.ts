// The signer page as a new signer first sees it, in a real Chromium at a phone's size (360 px) and
// a laptop's (1280 × 800): who asks for the signature and as whom one signs, the action bar on the
// first screen, "next box (k of N)" taking the signer to each box, zoom, and the contract's words
// in pdf.js's text layer. Screenshots of both sizes are written to the directory printed at the
// end (SELLO_SCREENSHOT_DIR, else one under the system's temporary directory). Then the language:
// a browser language the page does not speak falls back to the service's default, the switch
// changes it, and the legend drawn into the PDF follows the page.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF } from '@libpdf/core';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/domain/accounts/update-account.js';
import { A4, pdfShownText } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SIZES = {
  phone: { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true },
  laptop: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false },
} as const;

/** A 4×2 PNG logo (one blue), inline so the test depends on no file. */
const LOGO = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAACCAIAAADwyuo0AAAAEElEQVR4nGOQ978IRwzIHAB8Ign5iw0w5wAAAABJRU5ErkJggg==', 'base64');

let s: TestServer;
let browser: Browser;
let pdf: string;
const tmp = mkdtempSync(join(tmpdir(), 'sello-e2e-layout-'));
const shots = process.env.SELLO_SCREENSHOT_DIR ?? join(tmpdir(), 'sello-signer-screenshots');

/** Two A4 pages of contract text in Helvetica, not embedded: pdf.js draws it from its standard font data. */
async function contractPdf(): Promise<Buffer> {
  const doc = PDF.create();
  const lines = [
    [
      'Service Agreement',
      'This Service Agreement is made between Acme Legal and the Client.',
      'The Provider delivers the Services described below.',
    ],
    ['Signatures', 'Both parties sign this Service Agreement electronically.'],
  ];
  lines.forEach((text, i) => {
    const page = doc.addPage({ width: A4.width, height: A4.height });
    text.forEach((line, j) => {
      page.drawText(line, { x: 50, y: A4.height - 80 - j * 28, size: j === 0 ? 22 : 13 });
    });
    page.drawText(`Page ${i + 1}`, { x: 50, y: 30, size: 10 });
  });
  return Buffer.from(await doc.save());
}

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  mkdirSync(shots, { recursive: true });
  [s, browser] = await Promise.all([startTestServer(), launchChromium()]);
  pdf = (await contractPdf()).toString('base64');
  await updateAccount(s.deps, { webId: s.creds.webId, name: 'Acme Legal', logoPng: LOGO });
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  rmSync(tmp, { recursive: true, force: true });
  console.log(`signer page screenshots in ${shots}`);
});

/** Ana has three boxes (two on page 1, one on page 2); Bruno one. */
async function contract(workflow?: Record<string, unknown>) {
  const box = (page: number, x: number, y: number) => ({ page, rect: { lx: x, ly: y, tx: x + 180, ty: y + 60 } });
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Service Agreement',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0, 60, 420) },
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0, 320, 120) },
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(1, 60, 300) },
      { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', ...box(1, 320, 300) },
    ],
    ...(workflow ? { workflow } : {}),
  });
  return { doc, ana: doc.stickers[0].signer_url };
}

async function open(
  url: string,
  size: keyof typeof SIZES,
  locale: string,
): Promise<{ page: Page; problems: string[]; fontData: string[] }> {
  const context = await browser.newContext({ ...SIZES[size], locale });
  const page = await context.newPage();
  const problems: string[] = [];
  const fontData: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // pdf.js warns when it falls back from its worker, or cannot load a standard font or a CMap.
    if (m.type() === 'error' || (m.type() === 'warning' && /fake worker|standard ?font|font data|cmap/i.test(m.text()))) {
      problems.push(`console ${m.type()}: ${m.text()}`);
    }
  });
  // Every request pdf.js makes for its data must succeed (fonts, CMaps) under the page's CSP.
  page.on('response', (r) => {
    if (r.url().includes('/assets/') && r.status() >= 400) {
      problems.push(`${r.status()} ${r.url()}`);
    }
    if (r.url().includes('/standard_fonts/') && r.ok()) {
      fontData.push(new URL(r.url()).pathname);
    }
  });
  await page.goto(url);
  return { page, problems, fontData };
}

/** Whether the element's box lies wholly inside the viewport. */
async function inViewport(page: Page, selector: string): Promise<boolean> {
  return page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth && r.height > 0;
    });
}

/** Waits until a smooth scroll has ended: the same scroll position over a few frames. */
async function settled(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        let last = -1;
        let same = 0;
        const tick = () => {
          same = window.scrollY === last ? same + 1 : 0;
          last = window.scrollY;
          if (same >= 5) {
            resolve();
          } else {
            requestAnimationFrame(tick);
          }
        };
        requestAnimationFrame(tick);
      }),
  );
}

const cssWidth = (page: Page) =>
  page
    .locator('canvas.page-canvas')
    .first()
    .evaluate((el) => el.getBoundingClientRect().width);

describe('signer page layout', () => {
  for (const size of ['phone', 'laptop'] as const) {
    it(`at ${SIZES[size].viewport.width} px: sender, signing as, action bar, next box, zoom and text layer`, async () => {
      const { ana } = await contract({ message: 'Please sign before Friday.\nThank you!', remind_every: 0 });
      const { page, problems, fontData } = await open(ana, size, 'en-GB');
      await page.waitForSelector('canvas.page-canvas[data-rendered="true"]');
      await page.waitForSelector('.page[data-page="0"][data-text-layer="ready"]');

      // Who asks, what they say, as whom one signs: on the first screen.
      const sender = page.getByTestId('sender-name');
      expect(await sender.textContent()).toBe('Acme Legal asks you to sign this document');
      expect(await inViewport(page, '[data-testid="sender-name"]')).toBe(true);
      // The account's logo, once: in the header.
      expect(await page.getByTestId('header-logo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(4);
      expect(await page.locator('img').count()).toBe(1);
      expect(await page.getByTestId('sender-message').textContent()).toBe('Please sign before Friday.\nThank you!');
      expect(await page.getByTestId('signing-as').textContent()).toBe('Signing as Ana García · ana@example.com');
      expect(await inViewport(page, '[data-testid="signing-as"]')).toBe(true);

      // The actions, without scrolling: the bar at the bottom of the first screen.
      expect(await inViewport(page, '[data-testid="action-bar"]')).toBe(true);
      expect(await page.getByTestId('bar-sign').isDisabled()).toBe(true);
      expect(await page.getByTestId('bar-reject').isEnabled()).toBe(true);
      expect(await page.getByTestId('page-indicator').textContent()).toBe('Page 1 of 2');
      await page.screenshot({ path: join(shots, `${size}-first-screen.png`) });

      // The contract's words are in the text layer, where a screen reader reads them.
      const words = await page.locator('.page[data-page="0"] .textLayer').textContent();
      expect(words).toContain('This Service Agreement is made between Acme Legal and the Client.');
      expect(await page.locator('canvas.page-canvas').first().getAttribute('aria-hidden')).toBe('true');
      // Helvetica, named but not embedded, was drawn with pdf.js's standard font data (Liberation Sans) from this origin.
      expect(
        fontData.some((p) => /^\/assets\/pdfjs-[\d.]+\/standard_fonts\/[\w-]+\.(pfb|ttf)$/.test(p)),
        fontData.join(', '),
      ).toBe(true);

      // Next box: to box 1, 2, 3 (on page 2), each in view and focused; the label counts the box
      // the signer is at (none yet: 0 of 3).
      const next = page.getByTestId('next-box');
      expect(await next.textContent()).toBe('Next box (0 of 3)');
      expect(await inViewport(page, '[data-testid="next-box"]')).toBe(true);
      for (const n of [1, 2, 3]) {
        await next.click();
        await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-box-index') ?? null)).toBe(String(n - 1));
        await expect.poll(() => inViewport(page, `[data-box-index="${n - 1}"]`)).toBe(true);
        expect(await page.locator(`[data-box-index="${n - 1}"]`).getAttribute('aria-label')).toBe(
          `Your signature goes here · Signature box ${n} of 3`,
        );
        expect(await next.textContent()).toBe(`Next box (${n} of 3)`);
      }
      // The third box is on page 2: the page indicator followed, and the toolbar stayed on screen.
      await expect.poll(() => page.getByTestId('page-indicator').textContent()).toBe('Page 2 of 2');
      expect(await inViewport(page, '[data-testid="viewer-toolbar"]')).toBe(true);
      expect(await inViewport(page, '[data-testid="action-bar"]')).toBe(true);
      await settled(page);
      await page.screenshot({ path: join(shots, `${size}-third-box.png`) });

      // Zoom: in makes the page wider than fit-width, out narrower, fit width restores it; the
      // canvas is drawn again at the new size (more pixels), with the keyboard too.
      await page.evaluate(() => window.scrollTo(0, 0));
      const fit = await cssWidth(page);
      const fitPixels = await page
        .locator('canvas.page-canvas')
        .first()
        .evaluate((c: HTMLCanvasElement) => c.width);
      await page.getByTestId('zoom-in').click();
      await page.getByTestId('zoom-in').click();
      await expect.poll(() => cssWidth(page)).toBeCloseTo(fit * 1.5, 0);
      expect(await page.getByTestId('zoom-level').textContent()).toBe('150 %');
      await expect
        .poll(() =>
          page
            .locator('canvas.page-canvas')
            .first()
            .evaluate((c: HTMLCanvasElement) => c.width),
        )
        .toBeGreaterThan(fitPixels * 1.4);
      await settled(page);
      await page.screenshot({ path: join(shots, `${size}-zoomed.png`) });
      await page.getByTestId('zoom-fit').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => cssWidth(page)).toBeCloseTo(fit, 0);
      await page.getByTestId('zoom-out').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => cssWidth(page)).toBeCloseTo(fit * 0.75, 0);
      // At 360 px, nothing but a zoomed page scrolls sideways.
      if (size === 'phone') {
        await page.getByTestId('zoom-fit').click();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      }
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }

  it('falls back to the default language for a browser language it does not speak; the switch changes it, and the legend follows', async () => {
    const { doc, ana } = await contract();
    const { page, problems } = await open(ana, 'phone', 'fr-FR');
    await page.waitForSelector('canvas.page-canvas[data-rendered="true"]');
    expect(await page.locator('html').getAttribute('lang')).toBe('es');
    expect(await page.getByTestId('sender-name').textContent()).toBe('Acme Legal te pide firmar este documento');
    expect(await page.getByTestId('lang-es').getAttribute('aria-pressed')).toBe('true');
    await page.waitForSelector('.page[data-page="0"][data-text-layer="ready"]');
    await page.screenshot({ path: join(shots, 'phone-spanish.png') });

    await page.getByTestId('lang-en').click();
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.getByTestId('signing-as').textContent()).toBe('Signing as Ana García · ana@example.com');
    expect(await page.getByTestId('next-box').textContent()).toBe('Next box (0 of 3)');

    await page.getByRole('tab', { name: 'Type' }).click();
    await page.getByLabel('Type your name as your signature').fill('Ana García');
    await page.getByLabel(/I agree to sign this document electronically/).check();
    await page.getByTestId('bar-sign').click();
    await page.getByTestId('signed-state').waitFor();

    // The legend drawn into Ana's boxes is in English: the page's language, not the default.
    const signed = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const text = pdfShownText(signed);
    expect(text).toContain('Signed: ');
    expect(text).toContain('Email link: ana@example.com');
    expect(text).not.toContain('Firmado:');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('says what a rejection does, without claiming that anyone was told', async () => {
    const { ana } = await contract();
    const { page, problems } = await open(ana, 'laptop', 'en-US');
    await page.getByTestId('bar-reject').click();
    const dialog = page.getByRole('dialog', { name: 'Reject the document' });
    await dialog.getByLabel('Reason for rejecting').fill('Wrong address');
    await dialog.getByRole('button', { name: 'Reject document' }).click();
    const rejected = page.getByTestId('rejected-state');
    await rejected.waitFor();
    const said = await rejected.textContent();
    expect(said).toContain('The document is now rejected and nobody else can sign it.');
    expect(said).toContain('this service sends no email about the rejection');
    expect(said).not.toContain('has been told');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
