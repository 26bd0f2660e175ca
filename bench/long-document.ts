// Scenario P of `npm run bench`: a long contract on a phone. An 80-page and a 300-page document
// (text and a small scanned image on every page, the signer's boxes on pages 3, 41 and 80) opened
// on the signer page in Chromium at 360 × 740 (device pixel ratio 2, touch) with the CPU slowed four
// times through the DevTools protocol, as a mid-range phone. For each: when page 1 is first drawn,
// how long "next box" takes to reach each box (from the press until that box's page is drawn), and
// after scrolling down the whole document half a screen at a time: the canvases alive, the page's
// JavaScript heap after a collection, and the renderer process's memory (its RSS now and its peak,
// pdf.js's worker included: a thread of that process). Prints figures; asserts nothing about
// timings. Not in the default set (BENCH_SCENARIOS=P); BENCH_P_RUNS (default 2) runs per document,
// BENCH_P_PAGES (default 80,300) the documents' lengths (80 or more: a box is on page 80).
//
// Times come from the page's own clock (performance.now(), from navigation start), recorded by a
// script in the page: the moment a page's canvas says data-rendered="true", and the moment of each
// press of "next box". Where page 1's time went: the page's own marks (web/src/timing.ts: app
// started, signing data, pages placed, pdf.js loaded, PDF bytes, PDF opened, page 1 fetched and
// drawn), when the two requests were made, and the main thread's long tasks (50 ms or more) before
// page 1. A fresh browser per run, so that the renderer's peak is that run's.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SelloClient } from '../src/client/index.js';
import { launchChromium } from '../test/helpers/browser.js';
import { manyPagesPdf } from './pdfs.js';
import { startServer, stopServer, type Server } from './server-process.js';

const RUNS = Number(process.env.BENCH_P_RUNS ?? 2);
const DOCUMENTS = (process.env.BENCH_P_PAGES ?? '80,300').split(',').map(Number);
/** BENCH_P_SCROLL=0: stop after the boxes (first paint and "next box" only); the figures after scrolling are then those at that point. */
const SCROLL = process.env.BENCH_P_SCROLL !== '0';
/** 0-based pages of the signer's boxes: pages 3, 41 and 80. */
const BOX_PAGES = [2, 40, 79];
/** About what a contract with a scanned annex per page weighs: 300 pages ≈ 9 MiB. */
const BYTES_PER_PAGE = 32 * 1024;
const MB = 1024 * 1024;

interface Run {
  firstPaintMs: number;
  /** When the signing data and the PDF's bytes read before page 1 was drawn had arrived, and how many bytes. */
  arrived: { data: number; pdf: number; pdfBytes: number };
  /** The page's own marks (web/src/timing.ts) and the requests' starts up to page 1 drawn; the main thread's long tasks before it. */
  steps: { at: Record<string, number>; longTasks: number; longest: number };
  /** From each press of "next box" until that box's page is drawn. */
  boxMs: number[];
  scrollSeconds: number;
  maxCanvases: number;
  liveCanvases: number;
  canvasMiB: number;
  heapMiB: number;
  /** The renderer's RSS once page 1 is drawn, and after scrolling to the end. */
  firstPaintRssMiB: number;
  rssMiB: number;
  peakRssMiB: number;
}

export async function scenarioLongDocument(): Promise<void> {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  const dataDir = await mkdtemp(join(tmpdir(), 'sello-bench-p-'));
  let server: Server | undefined;
  try {
    server = await startServer(dataDir);
    const client = new SelloClient({ baseUrl: server.baseUrl, webId: server.webId, apiKey: server.apiKey });
    console.log(
      'P  a long contract on the signer page: Chromium at 360 × 740, DPR 2, touch, CPU slowed 4×; boxes on pages 3, 41, 80; ' +
        `${RUNS} run(s) each, a fresh browser per run`,
    );
    for (const pages of DOCUMENTS) {
      const pdf = await manyPagesPdf(pages, pages * BYTES_PER_PAGE);
      console.log(`   ${pages} pages, ${(pdf.length / MB).toFixed(1)} MiB`);
      for (let r = 0; r < RUNS; r++) {
        const url = await signingLink(client, pdf, pages);
        const run = await openAndRead(url);
        console.log(
          `     first paint of page 1 ${ms(run.firstPaintMs)} (data ${ms(run.arrived.data)}, PDF ${ms(run.arrived.pdf)}, ${(run.arrived.pdfBytes / 1024).toFixed(0)} KiB of it)   next box to pages 3/41/80 ${run.boxMs.map(ms).join(' / ')}   ` +
            `scroll to the end ${run.scrollSeconds.toFixed(1)} s\n` +
            `     steps: ${Object.entries(run.steps.at)
              .sort((a, b) => a[1] - b[1])
              .map(([k, v]) => `${k} ${ms(v)}`)
              .join(', ')}; main thread's long tasks before page 1 ${ms(run.steps.longTasks)} (longest ${ms(run.steps.longest)})\n` +
            `     canvases: most alive ${run.maxCanvases}, alive at the end ${run.liveCanvases} (${run.canvasMiB.toFixed(1)} MiB of pixels)   ` +
            `JS heap after GC ${run.heapMiB.toFixed(1)} MiB   renderer RSS ${run.rssMiB.toFixed(0)} MiB ` +
            `(${run.firstPaintRssMiB.toFixed(0)} MiB at first paint), peak ${run.peakRssMiB.toFixed(0)} MiB`,
        );
      }
    }
    console.log('');
  } finally {
    await stopServer(server);
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function signingLink(client: SelloClient, pdf: Buffer, pages: number): Promise<string> {
  const box = (page: number) => ({ page, rect: { lx: 60, ly: 400, tx: 240, ty: 460 } });
  const doc = await client.createDocument({
    b64_doc: pdf.toString('base64'),
    name: `Contract of ${pages} pages`,
    stickers: BOX_PAGES.map((p) => ({ authority: 'EMAIL_LINK' as const, data: 'ana@example.com', name: 'Ana García', ...box(p) })),
  });
  return doc.stickers[0].signer_url;
}

/** What the page records about itself (installed before any of its scripts run). */
function recorder() {
  const w = window as unknown as { drawnAt: Record<number, number>; presses: number[]; maxCanvases: number; longTasks: number[][] };
  w.drawnAt = {};
  w.longTasks = [];
  // The main thread's tasks of 50 ms or more (start, duration): what kept it from drawing.
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      w.longTasks.push([e.startTime, e.duration]);
    }
  }).observe({ type: 'longtask', buffered: true });
  w.presses = [];
  w.maxCanvases = 0;
  // The last time each page's canvas became drawn (data-rendered turned "true").
  new MutationObserver((records) => {
    w.maxCanvases = Math.max(w.maxCanvases, document.querySelectorAll('canvas.page-canvas').length);
    for (const r of records) {
      const el = r.target as Element;
      if (r.type === 'attributes' && el.getAttribute('data-rendered') === 'true') {
        w.drawnAt[Number(el.closest('.page')?.getAttribute('data-page'))] = performance.now();
      }
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-rendered'] });
  document.addEventListener(
    'click',
    (e) => (e.target as Element).closest?.('[data-testid="next-box"]') && w.presses.push(performance.now()),
    true,
  );
}

async function openAndRead(url: string): Promise<Run> {
  const browser = await launchChromium();
  try {
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
    await page.addInitScript(recorder);
    await page.goto(url);
    await drawn(page, 0);
    const firstPaintMs = await page.evaluate(() => (window as unknown as { drawnAt: Record<number, number> }).drawnAt[0]);
    // Where the first paint's time went: the signing data (page sizes, boxes) and the PDF's bytes
    // arrived (responseEnd, from navigation start): the last answer for the PDF before page 1 was
    // drawn, and the bytes of all of them (a viewer reading by ranges makes several).
    const arrived = await page.evaluate((paint) => {
      const ends = { data: -1, pdf: -1, pdfBytes: 0 };
      for (const e of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
        const path = new URL(e.name).pathname;
        if (/^\/sign\/api\/[^/]+$/.test(path)) {
          ends.data = e.responseEnd;
        } else if (/^\/sign\/api\/[^/]+\/pdf$/.test(path) && e.responseEnd <= paint) {
          ends.pdf = Math.max(ends.pdf, e.responseEnd);
          ends.pdfBytes += e.encodedBodySize;
        }
      }
      return ends;
    }, firstPaintMs);
    const steps = await page.evaluate((paint) => {
      const out: Record<string, number> = {};
      for (const e of performance.getEntriesByType('mark')) {
        if (e.name.startsWith('sello:')) {
          out[e.name.slice(6)] = e.startTime;
        }
      }
      for (const e of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
        const path = new URL(e.name).pathname;
        const key = /^\/sign\/api\/[^/]+$/.test(path) ? 'data' : /^\/sign\/api\/[^/]+\/pdf$/.test(path) ? 'pdf' : undefined;
        if (key && e.startTime <= paint && !(`${key} asked` in out)) {
          out[`${key} asked`] = e.startTime;
        }
      }
      const long = (window as unknown as { longTasks: number[][] }).longTasks.filter(([start]) => start < paint);
      return { at: out, longTasks: long.reduce((n, [, d]) => n + d, 0), longest: Math.max(0, ...long.map(([, d]) => d)) };
    }, firstPaintMs);
    const atFirstPaint = await rendererMemory(browser);

    // "Next box" three times: from each press until the box's page is drawn; 0 when it was drawn
    // already (page 3 is within a screen of page 1 at this size).
    const boxMs: number[] = [];
    for (const p of BOX_PAGES) {
      const already = await page.evaluate((i) => {
        delete (window as unknown as { drawnAt: Record<number, number> }).drawnAt[i];
        return document.querySelector(`.page[data-page="${i}"] canvas.page-canvas[data-rendered="true"]`) !== null;
      }, p);
      await page.getByTestId('next-box').click();
      await drawn(page, p);
      boxMs.push(
        already
          ? 0
          : await page.evaluate((i) => {
              const w = window as unknown as { drawnAt: Record<number, number>; presses: number[] };
              return w.drawnAt[i] - w.presses[w.presses.length - 1];
            }, p),
      );
    }

    const t0 = performance.now();
    if (SCROLL) {
      await scrollThrough(page);
    }
    const scrollSeconds = (performance.now() - t0) / 1000;

    await cdp.send('HeapProfiler.collectGarbage');
    const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    const canvases = await page.evaluate(() => {
      const live = [...document.querySelectorAll<HTMLCanvasElement>('canvas.page-canvas')];
      return {
        max: (window as unknown as { maxCanvases: number }).maxCanvases,
        live: live.length,
        bytes: live.reduce((n, c) => n + c.width * c.height * 4, 0),
      };
    });
    const renderer = await rendererMemory(browser);
    return {
      firstPaintMs,
      arrived,
      steps,
      boxMs,
      scrollSeconds,
      maxCanvases: canvases.max,
      liveCanvases: canvases.live,
      canvasMiB: canvases.bytes / MB,
      heapMiB: heap.usedSize / MB,
      firstPaintRssMiB: atFirstPaint.rss / MB,
      rssMiB: renderer.rss / MB,
      peakRssMiB: renderer.peak / MB,
    };
  } finally {
    await browser.close();
  }
}

const drawn = (page: Page, index: number) =>
  page.waitForSelector(`.page[data-page="${index}"] canvas.page-canvas[data-rendered="true"]`, { timeout: 300_000 });

/** Down the whole document half a screen at a time, each time until the page in the middle is drawn. */
async function scrollThrough(page: Page): Promise<void> {
  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
  for (;;) {
    const middle = await page.evaluate(() => {
      const el = document.elementsFromPoint(180, window.innerHeight / 2).find((e) => e.classList.contains('page'));
      return el ? Number(el.getAttribute('data-page')) : -1;
    });
    if (middle >= 0) {
      await drawn(page, middle);
    }
    const moved = await page.evaluate(() => {
      const before = window.scrollY;
      window.scrollBy({ top: window.innerHeight / 2, behavior: 'instant' });
      return window.scrollY !== before;
    });
    if (!moved) {
      return;
    }
  }
}

/**
 * The renderer processes' memory, from /proc (Linux): their resident set now and its high-water
 * mark. The browser names its processes through the DevTools protocol (SystemInfo.getProcessInfo).
 */
async function rendererMemory(browser: Browser): Promise<{ rss: number; peak: number }> {
  const session = await browser.newBrowserCDPSession();
  const info = (await session.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
  let rss = 0;
  let peak = 0;
  for (const p of info.processInfo.filter((x) => x.type === 'renderer')) {
    try {
      const status = readFileSync(`/proc/${p.id}/status`, 'utf8');
      rss += kib(status, 'VmRSS');
      peak += kib(status, 'VmHWM');
    } catch {
      // A spare renderer that has gone away.
    }
  }
  return { rss, peak };
}

function kib(status: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

const ms = (x: number) => `${Math.round(x)} ms`;
