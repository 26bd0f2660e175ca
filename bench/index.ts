// `npm run bench`: throughput and latency of document creation against a real Sello server
// (child process, embedded PostgreSQL in a fresh temporary directory, loopback only). Prints
// figures; asserts nothing about timings. docs/performance.md explains the scenarios and results.
//
//   A  POST /developers/json, 1-page PDF, 2 stickers (2 EMAIL_LINK signers), concurrency 16
//   B  the same with a ~5 MB PDF, concurrency 16, fewer requests
//   C  authentication end to end: GET /healthz vs a GET refused by the HMAC check vs a listed GET
//   E  documents generated from templates (html, pdf, pdfmake, docx): latency and c=8 throughput
//   D  microbenchmarks in this process: the HMAC check (signatureMatches) and the other steps of
//      a create request one by one (body parsing, Base64, PDF inspection, durable blob write)
//   G  POST /api/timestamp (a NOM-151 stamp over a hash) with the built-in TSA, c=16: stamps per
//      second (bench/stamps.ts)
//   F  one signature (certificate, appearance, CMS, time stamp, store) on a 1-page and a 300-page
//      PDF, p50/p99 and peak RSS, beside the floor (SHA-256 + one RSA signature): bench/signing.ts.
//      It needs no server and runs after the server has stopped.
//   V  verification of a PDF signed twice (the signature report's and POST /api/report's work) on
//      a 1-page and a 300-page ~10 MB PDF, p50/p99 and peak RSS: bench/verifying.ts. No server.
//   U  the universal rendition (PAdES B-LTA: validation data, DSS, document time stamp, DSS) of a
//      2-signature 1-page and 300-page PDF, p50/p99 and peak RSS: bench/universal.ts. No server.
//   L  a 1,000-page ~50 MB document created, signed by two signers, downloaded and verified on its
//      own server: time and peak RSS of each step (bench/big-document.ts). Not in the default set.
//   W  sustained signing through the server at an offered rate, with webhook delivery times, for
//      RSA-2048 and ECDSA P-256 signer keys: bench/sustained.ts. Its own servers; not in the default.
//   K  bulk send: a 1,000-row run from a one-page template, until every document is created and its
//      invitation queued (bench/bulk.ts). Its own server with the job runner; not in the default.
//   S  a signature with the signer's own SAT e.firma: prepare and finish, 1-page and 300-page PDF
//      (bench/sat-signing.ts), in this process, after the server has stopped.
//   P  an 80-page and a 300-page contract on the signer page in Chromium as a phone (360 × 740, CPU
//      slowed 4×): first paint of page 1, "next box" to pages 3, 41 and 80, canvases, JS heap and
//      renderer memory after scrolling through (bench/long-document.ts). Its own server; not in the
//      default set.
//
// Each run also reports the CPU each request cost, split between the server, PostgreSQL, the load
// generator and the rest of the machine (bench/cpu.ts), and whether the machine was idle before.
//
// Environment: BENCH_SCENARIOS (default ABCDEFGSUV: which to run), BENCH_A_SECONDS (default 10),
// BENCH_G_SECONDS (default 10),
// BENCH_B_REQUESTS (default 200), BENCH_F_SMALL and BENCH_F_LARGE (default 60 and 15: signatures
// of scenario F per input), BENCH_U_SMALL and BENCH_U_LARGE (default 30 and 8: renditions of
// scenario U per input), BENCH_F_KEYS=demand (scenario F with each signer key generated during
// its signature instead of taken from the pool), BENCH_F_KEY_TYPE=ecdsa-p256 (scenario F with
// ECDSA P-256 signer keys instead of RSA-2048), BENCH_CPU_PROF=DIR (write a V8 CPU profile of the
// server process, and of scenario F's signing and U's universal processes, into DIR when they stop; summarize with
// bench/profile-summary.ts).
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, freemem, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { SelloClient, type CreateDocumentInput } from '../src/client/index.js';
import { authMicrobench, createStepsMicrobench, type MicroResult } from './micro.js';
import { childCpu, delta, snapshot, type CpuDelta } from './cpu.js';
import { percentile, runLoad, type BenchRequest, type LoadResult } from './load.js';
import { authTimingPairs, signInLinkTiming } from './auth-timing.js';
import { scenarioSigning } from './signing.js';
import { scenarioVerifying } from './verifying.js';
import { scenarioSustained } from './sustained.js';
import { scenarioNodes } from './nodes.js';
import { scenarioBulk } from './bulk.js';
import { scenarioSatSigning } from './sat-signing.js';
import { scenarioTemplates } from './templates.js';
import { G_SECONDS, stampRequest } from './stamps.js';
import { startFloor } from './floor.js';
import { scenarioUniversal } from './universal.js';
import { scenarioBigDocument } from './big-document.js';
import { scenarioLongDocument } from './long-document.js';
import { largePdf, onePagePdf, uniqueCopy, type PdfTemplate } from './pdfs.js';
import { startServer, stopServer, type Server } from './server-process.js';

const CONCURRENCY = 16;
const A_WARMUP_MS = 3000;
const A_MS = Number(process.env.BENCH_A_SECONDS ?? 10) * 1000;
const B_REQUESTS = Number(process.env.BENCH_B_REQUESTS ?? 200);
const B_MAX_MS = 60_000;
const C_MS = 5000;
const LARGE_BYTES = 5 * 1024 * 1024;
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'ABCDEFGSUV').toUpperCase();
const NEEDS_SERVER = /[A-EG]/.test(SCENARIOS);
const MB = 1024 * 1024;

const STICKERS: CreateDocumentInput['stickers'] = [
  { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 50, ly: 100, tx: 250, ty: 160 } },
  { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno', page: 0, rect: { lx: 320, ly: 100, tx: 520, ty: 160 } },
];

async function main() {
  printMachine();
  const dataDir = await mkdtemp(join(tmpdir(), 'sello-bench-'));
  let server: Server | undefined;
  let interrupted = false;
  const cleanup = async () => {
    await stopServer(server);
    await rm(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => {
    interrupted = true;
    console.error('\ninterrupted: stopping the server and removing', dataDir);
    void cleanup().finally(() => process.exit(130));
  });

  try {
    // The figures only mean something on an otherwise idle machine: say when it is not.
    const idle = await machineBusy(2000);
    console.log(
      `machine busy before the run: ${fmt(idle * 100, 0)}%${idle > 0.1 ? ' (other work is running: the figures below will be low)' : ''}`,
    );
    if (NEEDS_SERVER) {
      await serverScenarios(dataDir, (s) => (server = s));
      await stopServer(server);
      server = undefined;
    }
    if (SCENARIOS.includes('F')) {
      await scenarioSigning({ cpuProfileDir: process.env.BENCH_CPU_PROF });
    }
    if (SCENARIOS.includes('S')) {
      await scenarioSatSigning();
    }
    if (SCENARIOS.includes('U')) {
      await scenarioUniversal({ cpuProfileDir: process.env.BENCH_CPU_PROF });
    }
    if (SCENARIOS.includes('V')) {
      await scenarioVerifying();
    }
    if (SCENARIOS.includes('L')) {
      await scenarioBigDocument();
    }
    if (SCENARIOS.includes('W')) {
      await scenarioSustained({ cpuProfileDir: process.env.BENCH_CPU_PROF });
    }
    if (SCENARIOS.includes('P')) {
      await scenarioLongDocument();
    }
    if (SCENARIOS.includes('N')) {
      await scenarioNodes();
    }
    if (SCENARIOS.includes('K')) {
      await scenarioBulk();
    }
  } finally {
    if (!interrupted) {
      await cleanup();
    }
  }
}

/** A to E, against one server; `started` hands the server to main() as soon as it runs, for cleanup. */
async function serverScenarios(dataDir: string, started: (s: Server) => void) {
  const small = await onePagePdf();
  const large = await largePdf(LARGE_BYTES);
  console.log(`PDFs: 1-page ${small.bytes.length} B; large ${(large.bytes.length / MB).toFixed(2)} MiB (${large.bytes.length} B)`);
  const server = await startServer(dataDir, process.env.BENCH_CPU_PROF);
  started(server);
  console.log(`server: ${server.baseUrl} (pid ${server.child.pid}), embedded PostgreSQL pid ${server.pgPid}, data ${dataDir}\n`);
  await sanityCheck(server, small);
  if (SCENARIOS.includes('A')) {
    const created = await scenarioCreate(server, small, 'A  POST /developers/json, 1-page PDF, 2 stickers, c=16', {
      warmupMs: A_WARMUP_MS,
      durationMs: A_MS,
    });
    // The floor beside it, on the same PostgreSQL (bench/floor.ts), with the same request bodies.
    const floorServer = await startFloor(dataDir);
    let floor: Awaited<ReturnType<typeof scenarioLoad>>;
    try {
      floor = await scenarioLoad(
        { ...server, baseUrl: floorServer.baseUrl, child: floorServer.child },
        (i) => floorServer.request(createRequest(server, small, i).body!),
        'A0 the floor: an authenticated request that commits one row and one blob (bench/watch-floor.ts), c=16',
        { warmupMs: A_WARMUP_MS, durationMs: A_MS, unit: 'requests' },
      );
    } finally {
      await floorServer.stop();
    }
    const perRequest = (r: { cpu: CpuDelta; requests: number }) => (r.cpu.serverMs + (r.cpu.postgresMs ?? 0)) / Math.max(1, r.requests);
    console.log(
      `   a creation costs ${fmt(perRequest(created) / perRequest(floor), 2)} floors of CPU ` +
        `(server and PostgreSQL: ${fmt(perRequest(created), 2)} ms against ${fmt(perRequest(floor), 2)} ms)\n`,
    );
  }
  if (SCENARIOS.includes('B')) {
    const title = `B  POST /developers/json, ${(large.bytes.length / MB).toFixed(1)} MiB PDF, 2 stickers, c=16`;
    await scenarioCreate(server, large, title, {
      warmupRequests: CONCURRENCY,
      maxRequests: B_REQUESTS,
      durationMs: B_MAX_MS,
      reportBytes: true,
    });
  }
  if (SCENARIOS.includes('C')) {
    await scenarioAuthEndToEnd(server);
  }
  if (SCENARIOS.includes('E')) {
    await scenarioTemplates(server);
  }
  if (SCENARIOS.includes('G')) {
    await scenarioLoad(
      server,
      (i) => stampRequest(i, (body) => authorization(server, body)),
      'G  POST /api/timestamp, built-in TSA, c=16',
      {
        warmupMs: A_WARMUP_MS,
        durationMs: G_SECONDS * 1000,
        unit: 'stamps',
      },
    );
  }
  if (SCENARIOS.includes('D')) {
    await scenarioMicro(server, small, large, dataDir);
  }
}

/**
 * A and B: unique documents created at concurrency 16, after a warm-up (JIT, pool connections,
 * PostgreSQL caches), with the CPU of every process measured over the run.
 */
async function scenarioCreate(
  s: Server,
  pdf: PdfTemplate,
  title: string,
  o: { warmupMs?: number; warmupRequests?: number; durationMs?: number; maxRequests?: number; reportBytes?: boolean },
) {
  return scenarioLoad(s, (i) => createRequest(s, pdf, i), title, { ...o, docBytes: o.reportBytes ? pdf.bytes.length : undefined });
}

/** A closed loop at concurrency 16 after a warm-up, with the CPU of every process measured over the run. */
async function scenarioLoad(
  s: Server,
  build: (i: number) => BenchRequest,
  title: string,
  o: { warmupMs?: number; warmupRequests?: number; durationMs?: number; maxRequests?: number; docBytes?: number; unit?: string },
) {
  await runLoad({ baseUrl: s.baseUrl, concurrency: CONCURRENCY, durationMs: o.warmupMs, maxRequests: o.warmupRequests, build });
  const serverCpu = () => childCpu(s.child);
  const before = await snapshot(serverCpu, s.pgPid);
  const result = await runLoad({
    baseUrl: s.baseUrl,
    concurrency: CONCURRENCY,
    durationMs: o.durationMs,
    maxRequests: o.maxRequests,
    build,
  });
  const after = await snapshot(serverCpu, s.pgPid);
  const cpu = delta(before, after);
  report(title, result, cpu, o.docBytes, o.unit);
  return { cpu, requests: result.requests };
}

/**
 * C: what authentication adds end to end. All three make one database round trip for the check
 * or the probe; the 401 is the full HMAC check (key lookup, decryption, HMACs) with no route
 * behind it, so 401 minus /healthz is roughly the cost of authenticating a request.
 */
async function scenarioAuthEndToEnd(s: Server) {
  const bad = `svc ${s.webId}:${Buffer.alloc(32).toString('base64')}`;
  const target = '/api/document?limit=1';
  const cases: [string, BenchRequest, number][] = [
    ['GET /healthz (select 1, no auth)', { method: 'GET', path: '/healthz', headers: {} }, 200],
    ['GET /api/document?limit=1, bad signature (auth only, 401)', { method: 'GET', path: target, headers: { authorization: bad } }, 401],
    [
      'GET /api/document?limit=1, signed (auth + list query)',
      { method: 'GET', path: target, headers: { authorization: authorization(s, target) } },
      200,
    ],
  ];
  console.log(`C  authentication end to end, c=16, ${C_MS / 1000} s each`);
  for (const [name, req, expectStatus] of cases) {
    const r = await runLoad({ baseUrl: s.baseUrl, concurrency: CONCURRENCY, durationMs: C_MS, expectStatus, build: () => req });
    const wrong = [...r.errors.values()].reduce((n, k) => n + k, 0);
    console.log(
      `   ${name.padEnd(58)} ${fmt(r.requests / r.seconds, 0).padStart(6)} req/s  p50 ${fmt(percentile(r.latencies, 50))} ms  ` +
        `p99 ${fmt(percentile(r.latencies, 99))} ms${wrong ? `  UNEXPECTED STATUS ×${wrong}: ${r.firstError}` : ''}`,
    );
  }
  await authTimingPairs(s.baseUrl, s.webId);
  await signInLinkTiming(s.baseUrl, s.panelEmail);
  console.log('');
}

/**
 * D: the HMAC check and the other steps of a create request, one by one, in this process. The
 * server is idle by now, so this process has a core to itself.
 */
async function scenarioMicro(s: Server, small: PdfTemplate, large: PdfTemplate, dataDir: string) {
  const print = (rs: MicroResult[]) => {
    for (const m of rs) {
      console.log(`   ${m.name.padEnd(84)} ${fmt(m.opsPerSec, 0).padStart(9)} ops/s ${fmt(m.usPerOp, 1).padStart(10)} µs/op`);
    }
  };
  const largeName = `${(large.bytes.length / MB).toFixed(1)} MiB`;
  const smallBody = createRequest(s, small, 0).body!;
  const largeBody = createRequest(s, large, 0).body!;
  console.log('D  microbenchmarks (this process, one core)');
  print(
    await authMicrobench(
      [
        { name: '1-page create body', body: smallBody },
        { name: `${largeName} create body`, body: largeBody },
      ],
      s.baseUrl,
    ),
  );
  print(await createStepsMicrobench('1-page', smallBody, () => uniqueCopy(small), dataDir));
  print(await createStepsMicrobench(largeName, largeBody, () => uniqueCopy(large), dataDir));
}

/** Share of all cores busy over the next `ms` milliseconds. */
async function machineBusy(ms: number): Promise<number> {
  const sample = () => {
    let busy = 0;
    let total = 0;
    for (const { times: t } of cpus()) {
      total += t.user + t.nice + t.sys + t.irq + t.idle;
      busy += t.user + t.nice + t.sys + t.irq;
    }
    return { busy, total };
  };
  const a = sample();
  await new Promise((r) => setTimeout(r, ms));
  const b = sample();
  return (b.busy - a.busy) / Math.max(1, b.total - a.total);
}

function printMachine() {
  const c = cpus();
  console.log(`Sello benchmark, ${new Date().toISOString()}`);
  console.log(
    `machine: ${c.length} × ${c[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM (${(freemem() / 2 ** 30).toFixed(1)} free), ` +
      `Node ${process.version}, ${process.platform}/${process.arch}\n`,
  );
}

function authorization(s: Server, stringToSign: string | Buffer): string {
  const sig = createHmac('sha256', Buffer.from(s.apiKey, 'utf8')).update(stringToSign).digest('base64');
  return `svc ${s.webId}:${sig}`;
}

/**
 * The create request for document i, byte for byte what SelloClient sends: JSON.stringify of the
 * input (compact), signed over those bytes. The Base64 is spliced in rather than stringified so
 * that a 5 MB document does not cost the client a 7 MB JSON.stringify; sanityCheck verifies the
 * bytes are identical to the client's.
 */
function createRequest(s: Server, pdf: PdfTemplate, i: number): BenchRequest {
  const [pre, post] = JSON.stringify({ name: `bench-${i}.pdf`, b64_doc: '@B64@', stickers: STICKERS }).split('@B64@');
  const body = Buffer.concat([Buffer.from(pre), Buffer.from(uniqueCopy(pdf).toString('base64'), 'latin1'), Buffer.from(post)]);
  return {
    method: 'POST',
    path: '/developers/json',
    headers: { 'content-type': 'application/json', authorization: authorization(s, body) },
    body,
  };
}

/** One document through the real client, and our request bytes compared with what it sends. */
async function sanityCheck(s: Server, pdf: PdfTemplate) {
  const client = new SelloClient({ baseUrl: s.baseUrl, webId: s.webId, apiKey: s.apiKey });
  const doc = await client.createDocument({ name: 'sanity.pdf', b64_doc: uniqueCopy(pdf).toString('base64'), stickers: STICKERS });
  if (doc.sticker_count !== 2 || new Set(doc.stickers.map((x) => x.signer_id)).size !== 2) {
    throw new Error(`sanity check: expected 2 stickers for 2 signers, got ${JSON.stringify(doc)}`);
  }
  const ours = createRequest(s, pdf, 7).body!.toString('utf8');
  const b64 = (JSON.parse(ours) as { b64_doc: string }).b64_doc;
  if (ours !== JSON.stringify({ name: 'bench-7.pdf', b64_doc: b64, stickers: STICKERS })) {
    throw new Error('sanity check: the benchmark body differs from JSON.stringify of the same input');
  }
}

function report(title: string, r: LoadResult, cpu: CpuDelta, docBytes?: number, unit = 'documents') {
  const ok = r.requests - [...r.errors.values()].reduce((a, b) => a + b, 0);
  const perDoc = (ms: number | undefined) => (ms === undefined ? 'n/a' : fmt(ms / Math.max(1, r.requests), 2));
  console.log(title);
  console.log(
    `   requests ${r.requests} in ${fmt(r.seconds, 1)} s, ${ok} × 200, errors ${r.errors.size ? JSON.stringify(Object.fromEntries(r.errors)) : 0}`,
  );
  console.log(
    `   throughput ${fmt(ok / r.seconds, 1)} ${unit}/s` +
      (docBytes
        ? `, ${fmt((ok * docBytes) / MB / r.seconds, 1)} MiB/s of PDF (${fmt(r.bytesSent / MB / r.seconds, 1)} MiB/s of request bodies)`
        : ''),
  );
  console.log(
    `   latency p50 ${fmt(percentile(r.latencies, 50))} ms, p99 ${fmt(percentile(r.latencies, 99))} ms, max ${fmt(r.latencies.at(-1) ?? NaN)} ms`,
  );
  console.log(`   CPU: machine ${fmt(cpu.machineBusy * 100, 0)}% busy, ${perDoc(cpu.machineMs)} ms per request, of which:`);
  console.log(
    `        server ${perDoc(cpu.serverMs)} ms, PostgreSQL ${perDoc(cpu.postgresMs)} ms, kernel threads ${perDoc(cpu.kernelMs)} ms, ` +
      `load generator ${perDoc(cpu.clientMs)} ms (building requests ${perDoc(r.buildMs)} ms), other ${perDoc(cpu.otherMs)} ms`,
  );
  if (r.firstError) {
    console.log(`   first error: ${r.firstError}`);
  }
  console.log('');
}

function fmt(n: number, digits = 1) {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

await main();
