// A long contract on a phone: 80 and 300 pages, the signer's boxes on pages 3, 41 and 80, opened at
// 360 × 740 in Chromium with its CPU slowed four times (as a mid-range phone). The PDF is asked for
// before the signing data has come (not after it and the layout of every page). Page 1 is drawn while
// far pages have no canvas at all; scrolling through the whole document never holds more than a
// few canvases; "next box" takes the signer 3 → 41 → 80, drawing each far page it jumps to, and its
// label counts the box the signer is at ("(2 of 3)" on page 41), not the one it would go to next.
// Times are the benchmark's (bench/long-document.ts), not asserted here.
import { execFileSync } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manyPagesPdf } from '../../bench/pdfs.js';
import { launchChromium, pageProblems } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The most canvases alive at once at 360 × 740. A page as wide as the screen is about 480 px high;
 * a page keeps its canvas while within two screens of the screen (use-page-render.ts), five screens
 * of 740 px in all: eight pages and parts of two more. Without release it is every page passed.
 */
const MAX_CANVASES = 10;
/** 0-based pages of the signer's boxes: pages 3, 41 and 80. */
const BOX_PAGES = [2, 40, 79];

let s: TestServer;
let browser: Browser;

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  [s, browser] = await Promise.all([startTestServer(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

/** A contract of `pages` pages of text (and a small image each); Ana has three boxes, Bruno one on page 41. */
async function longContract(pages: number): Promise<string> {
  const pdf = await manyPagesPdf(pages, pages * 2000);
  const box = (page: number, x = 60) => ({ page, rect: { lx: x, ly: 400, tx: x + 180, ty: 460 } });
  const doc = await s.client.createDocument({
    b64_doc: pdf.toString('base64'),
    name: `Contract of ${pages} pages`,
    stickers: [
      ...BOX_PAGES.map((p) => ({ authority: 'EMAIL_LINK' as const, data: 'ana@example.com', name: 'Ana García', ...box(p) })),
      { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', ...box(40, 320) },
    ],
  });
  return doc.stickers[0].signer_url;
}

/** The signer page at a phone's size, touch and all, its CPU slowed four times through the DevTools protocol. */
async function slowPhone(url: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: 'en-GB',
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const problems = pageProblems(page);
  // The most page canvases in the document at any moment, counted at every change of the page.
  await page.addInitScript(() => {
    const w = window as unknown as { maxCanvases: number };
    w.maxCanvases = 0;
    new MutationObserver(() => {
      w.maxCanvases = Math.max(w.maxCanvases, document.querySelectorAll('canvas.page-canvas').length);
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(url);
  return { page, problems };
}

const canvasesOf = (page: Page, index: number) => page.locator(`.page[data-page="${index}"] canvas.page-canvas`).count();
const liveCanvases = (page: Page) => page.locator('canvas.page-canvas').count();
const drawn = (page: Page, index: number) =>
  page.waitForSelector(`.page[data-page="${index}"] canvas.page-canvas[data-rendered="true"]`, { timeout: 60_000 });

/** The 0-based page under the middle of the screen. */
const pageAtMiddle = (page: Page) =>
  page.evaluate(() => {
    const el = document.elementsFromPoint(180, window.innerHeight / 2).find((e) => e.classList.contains('page'));
    return el ? Number(el.getAttribute('data-page')) : -1;
  });

async function nextBoxThroughTheDocument(page: Page) {
  const next = page.getByTestId('next-box');
  expect(await next.textContent()).toBe('Next box (0 of 3)');
  for (const [n, p] of BOX_PAGES.entries()) {
    await next.click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-box-index') ?? null)).toBe(String(n));
    // The far page it jumped to is drawn, with the box over it, on screen.
    await drawn(page, p);
    const box = await page.locator(`[data-box-index="${n}"]`).evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { inView: r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0, page: el.closest('.page')?.getAttribute('data-page') };
    });
    expect(box).toEqual({ inView: true, page: String(p) });
    expect(await page.locator(`[data-box-index="${n}"]`).getAttribute('aria-label')).toBe(
      `Your signature goes here · Signature box ${n + 1} of 3`,
    );
    // The label says where the signer is now: box n + 1 of 3.
    expect(await next.textContent()).toBe(`Next box (${n + 1} of 3)`);
    await expect.poll(() => page.getByTestId('page-indicator').textContent()).toBe(`Page ${p + 1} of ${await pageCount(page)}`);
    // The page left behind has given its canvas back.
    if (n > 0) {
      await expect.poll(() => canvasesOf(page, BOX_PAGES[n - 1])).toBe(0);
    }
    expect(await liveCanvases(page)).toBeLessThanOrEqual(MAX_CANVASES);
  }
  // After the last box, the first again.
  await next.click();
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-box-index') ?? null)).toBe('0');
  expect(await next.textContent()).toBe('Next box (1 of 3)');
  await drawn(page, BOX_PAGES[0]);
}

const pageCount = (page: Page) => page.locator('.page').count();

/**
 * Scrolls from the top to the bottom half a screen at a time (less than a page, so that every page
 * passes the middle of the screen), waiting each time for the page in the middle to be drawn.
 */
async function scrollThrough(page: Page) {
  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
  await drawn(page, 0);
  const seen = new Set<number>();
  for (;;) {
    const middle = await pageAtMiddle(page);
    if (middle >= 0) {
      seen.add(middle);
      await drawn(page, middle);
    }
    const moved = await page.evaluate(() => {
      const before = window.scrollY;
      window.scrollBy({ top: window.innerHeight / 2, behavior: 'instant' });
      return window.scrollY !== before;
    });
    if (!moved) {
      return seen;
    }
  }
}

describe('a long document on a phone', () => {
  for (const pages of [80, 300]) {
    it(`${pages} pages: page 1 drawn first, canvases only near the screen, next box 3 → 41 → 80`, async () => {
      const url = await longContract(pages);
      const { page, problems } = await slowPhone(url);
      await drawn(page, 0);
      expect(await pageCount(page)).toBe(pages);
      // The PDF was asked for as the page started, beside the signing data: its bytes and pdf.js's
      // reading of them no longer wait behind that answer and the layout of every page.
      const asked = await page.evaluate(() => {
        const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
        const find = (path: RegExp) => entries.find((e) => path.test(new URL(e.name).pathname));
        return { pdfAsked: find(/^\/sign\/api\/[^/]+\/pdf$/)?.startTime, dataArrived: find(/^\/sign\/api\/[^/]+$/)?.responseEnd };
      });
      expect(asked.pdfAsked).toBeLessThan(asked.dataArrived ?? 0);
      // Every page has its place (its real height) before it is drawn: the document is as long as it will be.
      const heights = await page.locator('.page').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().height)));
      expect(new Set(heights).size).toBe(1);
      expect(heights[0]).toBeGreaterThan(400);
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(pages * heights[0]);
      // Far pages have no canvas, nor a text layer to lay out: only their place and their boxes.
      const layersOf = (index: number) => page.locator(`.page[data-page="${index}"] .textLayer`).count();
      for (const p of [...BOX_PAGES.slice(1), pages - 1]) {
        expect([await canvasesOf(page, p), await layersOf(p)]).toEqual([0, 0]);
      }
      expect(await page.locator(`.page[data-page="${BOX_PAGES[1]}"] [data-box-index="1"]`).count()).toBe(1);
      expect(await liveCanvases(page)).toBeLessThanOrEqual(MAX_CANVASES);

      await nextBoxThroughTheDocument(page);

      // Down the whole document a screen at a time: every page drawn in its turn, never more than
      // MAX_CANVASES alive, and at the end the first page's canvas is gone.
      const seen = await scrollThrough(page);
      expect(seen.size).toBe(pages);
      // The indicator follows the last scroll event once the page has handled it.
      await expect.poll(() => page.getByTestId('page-indicator').textContent()).toBe(`Page ${pages} of ${pages}`);
      expect(await canvasesOf(page, 0)).toBe(0);
      const max = await page.evaluate(() => (window as unknown as { maxCanvases: number }).maxCanvases);
      expect(max).toBeGreaterThanOrEqual(3);
      expect(max).toBeLessThanOrEqual(MAX_CANVASES);
      expect(problems).toEqual([]);
      await page.context().close();
    }, 600_000);
  }
});
