// Hostile and damaged PDFs through the real API (create from b64_doc, page data, flatten, the report
// of an uploaded file, pdf template save). The harness, not the code under test, checks that every answer comes in time, that the
// memory of this process (which runs the server, its PDF workers included) stays bounded, that the
// answer is a 422 (or a 200 for a file qpdf --check finds sound), never a 500, and that /healthz
// keeps answering while a hostile parse runs in the PDF jail.
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloApiError } from '../../src/client/index.js';
import { PdfTooComplexError } from '../../src/jail/pdf-jail.js';
import { hostileCorpus, onePagePdf, type HostilePdf } from '../helpers/hostile-pdfs.js';
import { makePdf, qpdfCheck } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { HandPdf } from '../helpers/signed-pdfs.js';
import { xrefLoops } from '../helpers/xref-loops.js';

/** The PDF jail's time limit the test server runs with (SELLO_PDF_TIMEOUT_MS). */
const JAIL_MS = 5000;
/**
 * Longest the harness waits for any one answer: six times the jail's limit (one request reads the
 * file once, or a few times when the first read passes), so that only a read the jail fails to
 * stop (a hang) goes past it, never a slow machine.
 */
const ANSWER_MS = JAIL_MS * 6;
/** How far this process's resident memory may rise above where it was before the corpus. */
const RSS_GROWTH_BYTES = 768 * 1024 * 1024;

let s: TestServer;
let corpus: HostilePdf[];
let baselineRss = 0;
let peakRss = 0;
let sampler: NodeJS.Timeout | undefined;
const figures: string[] = [];

beforeAll(async () => {
  corpus = hostileCorpus({ mutantBase: await makePdf(), bombMiB: 1024 });
  s = await startTestServer({ env: { SELLO_PDF_TIMEOUT_MS: String(JAIL_MS), SELLO_PDF_MEMORY_MB: '256' } });
  expect(s.deps.config.pdfJail.timeoutMs).toBe(JAIL_MS);
  // One valid read first, so the workers' own start is part of the baseline, not of the growth.
  await s.client.pageData(onePagePdf());
  baselineRss = process.memoryUsage().rss;
  peakRss = baselineRss;
  sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10);
});

afterAll(async () => {
  clearInterval(sampler);
  if (figures.length > 0) {
    console.log(`hostile PDFs (ms, MB of RSS above the baseline):\n${figures.join('\n')}`);
  }
  await s?.close();
});

type Outcome = { status: number; code?: string; ms: number; rssGrowthMb: number };

/** Sends one request and measures it as the harness: elapsed time, and the RSS peak while it ran. */
async function measured(send: () => Promise<unknown>): Promise<Outcome> {
  peakRss = process.memoryUsage().rss;
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS} ms`)), ANSWER_MS);
  });
  try {
    let status = 200;
    let code: string | undefined;
    try {
      await Promise.race([send(), deadline]);
    } catch (err) {
      if (!(err instanceof SelloApiError)) {
        throw err;
      }
      status = err.status;
      code = err.code;
    }
    return { status, code, ms: Math.round(performance.now() - t0), rssGrowthMb: Math.round((peakRss - baselineRss) / 1048576) };
  } finally {
    clearTimeout(timer);
  }
}

/** Records the figures of one answer and checks its memory (a hang fails in measured(), at its deadline). */
function expectBounded(name: string, o: Outcome, route: string) {
  figures.push(
    `${route.padEnd(10)} ${name.padEnd(48)} ${String(o.status)} ${(o.code ?? '').padEnd(18)} ${String(o.ms).padStart(5)} ms ${String(o.rssGrowthMb).padStart(5)} MB`,
  );
  expect(peakRss - baselineRss, `${route} ${name}: memory`).toBeLessThan(RSS_GROWTH_BYTES);
}

function expectVerdict(h: HostilePdf, o: Outcome, route: string) {
  expectBounded(h.name, o, route);
  if (o.status === 200) {
    expect(h.expect, `${route} ${h.name} was accepted`).toBe('either');
    const q = qpdfCheck(h.bytes);
    expect(q.ok, `${route} ${h.name} accepted, but qpdf --check says:\n${q.output}`).toBe(true);
  } else {
    expect(o.status, `${route} ${h.name}: ${o.code}`).toBe(422);
    expect(o.code).toMatch(/^PDF_(INVALID|TOO_COMPLEX|ENCRYPTED|TOO_MANY_PAGES)$/);
  }
  if (h.expect === 'damaged') {
    // What is refused as damaged is what qpdf can only open by rebuilding its cross-reference table.
    expect(qpdfCheck(h.bytes).output).toMatch(/Attempting to reconstruct cross-reference table/);
  }
}

describe('hostile PDFs', () => {
  it('builds a corpus of the hostile constructions', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
    const bombs = corpus.filter((h) => h.bomb);
    expect(bombs).toHaveLength(2);
    // About 1 MB each, inflating to 1 GiB.
    for (const b of bombs) {
      expect(b.bytes.length).toBeLessThan(1.2 * 1024 * 1024);
    }
  });

  it('answers every one on document creation (b64_doc) in time, with bounded memory, 422 unless qpdf finds it sound', async () => {
    for (const h of corpus) {
      const o = await measured(() =>
        s.client.createDocument({
          b64_doc: h.bytes.toString('base64'),
          stickers: [{ authority: 'EMAIL', data: 'ana@example.com', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
        } as never),
      );
      expectVerdict(h, o, 'create');
    }
  });

  it('answers every one on page data', async () => {
    for (const h of corpus) {
      expectVerdict(h, await measured(() => s.client.pageData(h.bytes)), 'pageData');
    }
  });

  it('answers every one on flatten (POST /api/print)', async () => {
    for (const h of corpus) {
      expectVerdict(h, await measured(() => s.client.flattenPdf(h.bytes)), 'print');
    }
  });

  it('answers every one on the report of an uploaded file (POST /api/report), and each cross-reference loop', async () => {
    // The report reads leniently, as a validator must read what readers show: a file other routes
    // refuse may get a report. None of the corpus is signed, so a report must find no signature.
    for (const h of corpus) {
      let firmas: unknown[] | undefined;
      const o = await measured(async () => {
        firmas = (await s.client.verifyPdf(h.bytes)).firmas;
      });
      expectBounded(h.name, o, 'report');
      if (o.status === 200) {
        // A damaged file the reader rebuilds is reported as what the rebuilt file shows.
        expect(firmas, h.name).toEqual([]);
      } else {
        expect(o.status, `${h.name}: ${o.code}`).toBe(422);
        expect(o.code).toMatch(h.bomb ? /^PDF_TOO_COMPLEX$/ : /^PDF_(INVALID|TOO_COMPLEX)$/);
      }
    }
    // /Prev loops on an unsigned file: the ones the reader cannot get out of are refused; the one
    // the last revision skips is reported.
    for (const loop of xrefLoops(HandPdf.base())) {
      const o = await measured(() => s.client.verifyPdf(loop.bytes));
      expectBounded(loop.name, o, 'report');
      expect(o, loop.name).toMatchObject(loop.expect === 'refused' ? { status: 422, code: 'PDF_INVALID' } : { status: 200 });
    }
  }, 300_000);

  it('answers every one on pdf template save: 400 TEMPLATE_INVALID when unreadable, 422 past the limits', async () => {
    for (const [i, h] of corpus.entries()) {
      const o = await measured(() =>
        s.client.request('POST', '/developers/template/save', {
          template_type: 'pdf',
          template_name: `hostile ${i}`,
          template_data: h.bytes.toString('base64'),
        }),
      );
      figures.push(
        `template   ${h.name.padEnd(48)} ${o.status} ${(o.code ?? '').padEnd(18)} ${String(o.ms).padStart(5)} ms ${String(o.rssGrowthMb).padStart(5)} MB`,
      );
      expect(peakRss - baselineRss, `${h.name}: memory`).toBeLessThan(RSS_GROWTH_BYTES);
      // None of these has a form field: at best a template without fields (400).
      expect([400, 422], `${h.name}: ${o.code}`).toContain(o.status);
      expect(o.code).toMatch(h.bomb ? /^PDF_TOO_COMPLEX$/ : /^TEMPLATE_INVALID$/);
    }
  });

  it("keeps /healthz and other clients' requests answering while the library loops on a hostile file in the jail", async () => {
    // The library's lenient reading (the one the signature report uses on stored documents) loops
    // on a stray ")" in /Kids, allocating without end: in the jail it meets its memory or time
    // limit, and the main thread stays free the whole time.
    const stray = corpus.find((h) => h.name === 'stray ) in /Kids')!.bytes;
    peakRss = process.memoryUsage().rss;
    const t0 = performance.now();
    const hostile = s.deps.pdfJail.readSignatures(stray, { trustedRootsDer: [] }).then(
      () => null,
      (e: unknown) => e,
    );
    let settled = false;
    void hostile.then(() => {
      settled = true;
    });
    // Each answer is counted by whether the hostile read was still running when it came: on a
    // blocked main thread, none could come before the read ended.
    const health: number[] = [];
    let healthWhileHostile = 0;
    let valid = 0;
    let validWhileHostile = 0;
    while (!settled && performance.now() - t0 < ANSWER_MS) {
      const h0 = performance.now();
      const r = await fetch(`${s.baseUrl}/healthz`);
      expect(r.status).toBe(200);
      health.push(performance.now() - h0);
      healthWhileHostile += settled ? 0 : 1;
      if (valid < 3) {
        // Another client's valid file still reads, on the second worker (started afresh, it may
        // answer after the hostile read was stopped on a busy machine: counted, not required).
        expect((await s.client.pageData(onePagePdf())).pages).toBe(1);
        valid++;
        validWhileHostile += settled ? 0 : 1;
      }
      await new Promise((r2) => setTimeout(r2, 50));
    }
    const err = await hostile;
    const elapsed = performance.now() - t0;
    figures.push(
      `jail       lenient read of stray ) in /Kids: stopped after ${Math.round(elapsed)} ms, RSS +${Math.round((peakRss - baselineRss) / 1048576)} MB at most (${(err as Error).message}); /healthz answered ${health.length} times (${healthWhileHostile} while it ran), slowest ${Math.round(Math.max(...health))} ms; valid reads ${valid} (${validWhileHostile} while it ran)`,
    );
    expect(err).toBeInstanceOf(PdfTooComplexError);
    expect(peakRss - baselineRss).toBeLessThan(RSS_GROWTH_BYTES);
    // The jail stopped it: its limits are the only source of PdfTooComplexError (a hang would never
    // settle, and the test would fail on its own time limit).
    // /healthz answered while the hostile read ran: the main thread stayed free.
    expect(healthWhileHostile).toBeGreaterThan(0);
    // The stopped worker is replaced: the next read works.
    expect((await s.client.pageData(onePagePdf())).pages).toBe(1);
  });
});
