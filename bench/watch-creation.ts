// The watch's creation check: the CPU a created document costs on the real server path (an
// authenticated POST /developers/json of a 1-page PDF with 2 stickers, as scenario A of
// `npm run bench` sends it) against the CPU of the floor (bench/watch-floor.ts: an authenticated
// request that commits one row and one blob with their fsyncs), both served beside each other on one
// embedded PostgreSQL, measured in interleaved pairs of equal batches.
//
// CPU, not requests per second: CPU is what a document costs whatever else runs on the machine,
// where throughput halves as soon as another process takes a core. Counted: the serving process
// (asked over IPC, every thread) and PostgreSQL (the postmaster and its backends); not the kernel
// threads or the rest of the machine, which other work on the machine shares.
import type { ChildProcess } from 'node:child_process';
import type { CreateDocumentInput } from '../src/client/index.js';
import { childCpu, type CpuSnapshot, delta, snapshot } from './cpu.js';
import { type BenchRequest, runLoad } from './load.js';
import { onePagePdf, type PdfTemplate, uniqueCopy } from './pdfs.js';
import { startServer, stopServer } from './server-process.js';
import { signedPost, startFloor } from './floor.js';
import type { Resources } from './watch-resources.js';

/** Requests in flight: enough to keep both cores busy, few enough to queue little on a loaded machine. */
const CONCURRENCY = 8;
/** Requests of each side before the pairs: JIT, the PDF jail's threads, pool connections, caches. */
const WARMUP = 200;
/**
 * Each floor batch is this many times the creation batch: a floor request costs about a quarter of
 * a document, and PostgreSQL's CPU is read from /proc in 10 ms ticks, a few ticks per small batch.
 */
const FLOOR_BATCH_FACTOR = 2.5;

// Scenario A's stickers: two EMAIL_LINK signers on page 0.
const STICKERS: CreateDocumentInput['stickers'] = [
  { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 50, ly: 100, tx: 250, ty: 160 } },
  { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno', page: 0, rect: { lx: 320, ly: 100, tx: 520, ty: 160 } },
];

interface Side {
  baseUrl: string;
  child: ChildProcess;
  build: (i: number) => BenchRequest;
}

export interface CreationPairs {
  /** Per pair: CPU per created document ÷ CPU per floor request. */
  ratios: number[];
  /** Medians over the pairs, ms of CPU per request. */
  createMs: number[];
  floorMs: number[];
  /** Seconds to start the server, PostgreSQL and the floor; and of the warm-up. */
  startSeconds: number;
  warmupSeconds: number;
}

/**
 * `pairs` pairs of `requests` creations and `requests` floor requests, each side first in half of
 * them (so that a machine growing busier during a pair favours neither). Every answer must be a
 * 200: a creation that fails is a broken watch, never a fast one.
 */
export async function creationPairs(dataDir: string, res: Resources, o: { pairs: number; requests: number }): Promise<CreationPairs> {
  const pdf = await onePagePdf();
  const t0 = performance.now();
  const server = await startServer(dataDir);
  res.add('the server and its PostgreSQL', () => stopServer(server));
  const floorServer = await startFloor(dataDir);
  res.add('the floor server', () => floorServer.stop());
  const startSeconds = (performance.now() - t0) / 1000;

  const create: Side = {
    baseUrl: server.baseUrl,
    child: server.child,
    build: (i) => signedPost('/developers/json', server.webId, server.apiKey, body(pdf, i)),
  };
  const floor: Side = { baseUrl: floorServer.baseUrl, child: floorServer.child, build: (i) => floorServer.request(body(pdf, i)) };

  const t1 = performance.now();
  for (const side of [create, floor]) {
    await measure(side, server.pgPid, side === floor ? WARMUP * 2 : WARMUP);
  }
  const warmupSeconds = (performance.now() - t1) / 1000;
  const ratios: number[] = [];
  const createMs: number[] = [];
  const floorMs: number[] = [];
  for (let p = 0; p < o.pairs; p++) {
    const order = p % 2 === 0 ? [floor, create] : [create, floor];
    const ms = new Map<Side, number>();
    for (const side of order) {
      ms.set(side, await measure(side, server.pgPid, side === floor ? Math.round(o.requests * FLOOR_BATCH_FACTOR) : o.requests));
    }
    createMs.push(ms.get(create)!);
    floorMs.push(ms.get(floor)!);
    ratios.push(ms.get(create)! / ms.get(floor)!);
  }
  return { ratios, createMs, floorMs, startSeconds, warmupSeconds };
}

/** CPU per request (ms) of the side's process and PostgreSQL over `requests` requests. */
async function measure(side: Side, pgPid: number, requests: number): Promise<number> {
  const take = (): Promise<CpuSnapshot> => snapshot(() => childCpu(side.child), pgPid);
  const before = await take();
  const r = await runLoad({ baseUrl: side.baseUrl, concurrency: CONCURRENCY, maxRequests: requests, build: side.build });
  const after = await take();
  if (r.errors.size > 0) {
    throw new Error(`${r.errors.size} kinds of unexpected answer from ${side.baseUrl}, first: ${r.firstError}`);
  }
  const d = delta(before, after);
  if (d.postgresMs === undefined) {
    throw new Error("PostgreSQL's CPU time is read from /proc: the watch runs on Linux only");
  }
  return (d.serverMs + d.postgresMs) / r.requests;
}

/** The create request of scenario A for a distinct document (a blob already stored would skip its fsyncs). */
function body(pdf: PdfTemplate, i: number): Buffer {
  return Buffer.from(JSON.stringify({ name: `watch-${i}.pdf`, b64_doc: uniqueCopy(pdf).toString('base64'), stickers: STICKERS }));
}
