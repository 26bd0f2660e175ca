// Scenario W: sustained signing through the real server, with webhooks.
//
// For each signer key type (BENCH_W_KEYS, default "rsa-2048,ecdsa-p256"), a fresh server as `sello
// serve` runs (bench/sustained-server.ts: signer-key pool started, job runner in the process) with
// one account whose webhook points at a receiver on loopback in this process. Documents with one
// EMAIL_LINK signer each are created first (not timed); then the signers sign through the signer
// page's API (POST /sign/api/{token}/sign with a drawn PNG and consent) on an open loop: request i
// is sent at start + i/rate whatever happened to the earlier ones, so a server that falls behind
// shows it as a growing latency and a backlog, not as a lower offered rate.
//
// Measured per rate:
//   - achieved signatures/s (answers 200 / time from the first send to the last answer);
//   - signature latency, from the request's scheduled time to its 200, p50/p99;
//   - the backlog at the end: how long after the last scheduled send the last answer came;
//     the rate is "sustained" when every answer was 200 and that drain took under a second;
//   - webhook delivery, from the signature's 200 to the receiver's arrival of its `original_signed`
//     notification (and of `document_completed`), p50/p99;
//   - CPU of the server process (all threads) and of PostgreSQL per signature.
// First a steady run at BENCH_W_RATE (default 20/s) for BENCH_W_SECONDS (default 20), then a ramp
// (BENCH_W_RAMP, default "10,15,20,25,30,40" per second, BENCH_W_STEP_SECONDS each, default 10)
// that stops after the first rate not sustained.
//
// BENCH_W_ROOT=DIR runs the server of another checkout of the code (with its node_modules), to
// measure before and after side by side; the W server script is copied into it. BENCH_W_SPLIT=1
// runs the job runner in a process of its own, as `sello api` and `sello worker` do (the server's
// CPU per signature is then both processes').
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SelloClient } from '../src/client/index.js';
import { childCpu, delta, snapshot } from './cpu.js';
import { percentile } from './load.js';
import { drawnSignaturePng, onePagePdf, uniqueCopy, type PdfTemplate } from './pdfs.js';
import { startServer, stopServer, type Server } from './server-process.js';

const KEYS = (process.env.BENCH_W_KEYS ?? 'rsa-2048,ecdsa-p256').split(',').filter(Boolean);
const RATE = Number(process.env.BENCH_W_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_W_SECONDS ?? 20);
const RAMP = (process.env.BENCH_W_RAMP ?? '10,15,20,25,30,40').split(',').filter(Boolean).map(Number);
const STEP_SECONDS = Number(process.env.BENCH_W_STEP_SECONDS ?? 10);
const ROOT = process.env.BENCH_W_ROOT;
/** A rate is sustained when the last answer comes less than this long after the last send. */
const DRAIN_LIMIT_MS = 1000;
/** How long to wait for the webhooks of a run once its signatures are answered. */
const WEBHOOK_WAIT_MS = 30_000;

interface Arrival {
  signed?: number;
  completed?: number;
}

interface RunFigures {
  offered: number;
  sent: number;
  ok: number;
  errors: Map<number, number>;
  firstError?: string;
  achieved: number;
  latency: number[];
  drainMs: number;
  sustained: boolean;
  webhookSigned: number[];
  webhookCompleted: number[];
  missingWebhooks: number;
  serverCpuMsPerSig: number;
  postgresCpuMsPerSig: number | undefined;
  machineBusy: number;
}

export async function scenarioSustained(o: { cpuProfileDir?: string } = {}): Promise<void> {
  const pdf = await onePagePdf();
  const signatureBody = JSON.stringify({
    signature: { type: 'drawn', image: `data:image/png;base64,${drawnSignaturePng().toString('base64')}` },
    consent: true,
  });
  const arrivals = new Map<string, Arrival>();
  const receiver = await startReceiver(arrivals);
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  if (ROOT) {
    await copyFile(resolve('bench/sustained-server.ts'), join(resolve(ROOT), 'bench/sustained-server.ts'));
  }
  console.log(
    `W  sustained signing through the server (1-page PDF, one EMAIL_LINK signer per document, drawn PNG), webhooks to ${receiverUrl}${ROOT ? `; code of ${ROOT}` : ''}`,
  );
  try {
    for (const key of KEYS) {
      const dataDir = await mkdtemp(join(tmpdir(), 'sello-bench-w-'));
      let server: Server | undefined;
      try {
        server = await startServer(dataDir, o.cpuProfileDir, {
          script: 'bench/sustained-server.ts',
          args: [receiverUrl],
          root: ROOT,
          env: { BENCH_W_KEY: key },
        });
        const keyVia = server.note;
        console.log(
          `\n  signer key ${key} (server pid ${server.child.pid}; load average before ${loadavg()
            .map((x) => x.toFixed(2))
            .join(' ')})`,
        );
        const client = new SelloClient({ baseUrl: server.baseUrl, webId: server.webId, apiKey: server.apiKey });
        // Warm-up: JIT, connections, the TSA and OCSP paths, the pool's first fill.
        await runAt(server, client, pdf, signatureBody, arrivals, 5, 2);
        printHeader(keyVia);
        const steady = await runAt(server, client, pdf, signatureBody, arrivals, RATE, SECONDS);
        printRow(`${RATE}/s for ${SECONDS} s`, steady);
        let best: number | undefined;
        for (const rate of RAMP) {
          const r = await runAt(server, client, pdf, signatureBody, arrivals, rate, STEP_SECONDS);
          printRow(`ramp ${rate}/s, ${STEP_SECONDS} s`, r);
          if (!r.sustained) {
            break;
          }
          best = rate;
        }
        if (RAMP.length > 0) {
          console.log(`  highest rate sustained in the ramp: ${best === undefined ? `none (below ${RAMP[0]}/s)` : `${best}/s`}`);
        }
        console.log(
          `  load average after ${loadavg()
            .map((x) => x.toFixed(2))
            .join(' ')}`,
        );
      } finally {
        await stopServer(server);
        await rm(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    receiver.close();
  }
}

/** The webhook receiver: notes when each document's notifications arrive, answers 200 at once. */
async function startReceiver(arrivals: Map<string, Arrival>): Promise<HttpServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { notification_type: string; document_ticket: string };
        const a = arrivals.get(body.document_ticket) ?? {};
        if (body.notification_type === 'original_signed') {
          a.signed ??= at;
        } else if (body.notification_type === 'document_completed') {
          a.completed ??= at;
        }
        arrivals.set(body.document_ticket, a);
      } catch {
        // not a notification: ignored
      }
      res.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

/** Documents with one signer each, created at concurrency 8: their tickets and signer tokens. */
async function createDocuments(client: SelloClient, pdf: PdfTemplate, n: number): Promise<{ ticket: string; token: string }[]> {
  const out: { ticket: string; token: string }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const doc = await client.createDocument({
        name: `w-${i}.pdf`,
        b64_doc: uniqueCopy(pdf).toString('base64'),
        stickers: [
          { authority: 'EMAIL_LINK', data: `s${i}@example.com`, name: `Signer ${i}`, page: 0, rect: { lx: 50, ly: 100, tx: 250, ty: 160 } },
        ],
      });
      out.push({ ticket: doc.document_ticket, token: doc.stickers[0].signer_url.split('/').pop()! });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return out;
}

/** One open-loop run: `rate` signatures a second for `seconds`, then the webhooks awaited. */
async function runAt(
  server: Server,
  client: SelloClient,
  pdf: PdfTemplate,
  body: string,
  arrivals: Map<string, Arrival>,
  rate: number,
  seconds: number,
): Promise<RunFigures> {
  const n = Math.round(rate * seconds);
  const docs = await createDocuments(client, pdf, n);
  const answeredAt = new Map<string, number>();
  const latency: number[] = [];
  const errors = new Map<number, number>();
  let firstError: string | undefined;
  let lastAnswer = 0;
  const before = await snapshot(() => childCpu(server.child), server.pgPid);
  const start = performance.now() + 50;
  const sends: Promise<void>[] = [];
  const sign = async (i: number, scheduled: number) => {
    const d = docs[i];
    let status = 0;
    let text = '';
    try {
      const res = await fetch(`${server.baseUrl}/sign/api/${d.token}/sign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      text = (err as Error).message;
    }
    const now = performance.now();
    lastAnswer = Math.max(lastAnswer, now);
    if (status === 200) {
      answeredAt.set(d.ticket, now);
      latency.push(now - scheduled);
    } else {
      errors.set(status, (errors.get(status) ?? 0) + 1);
      firstError ??= `${status} ${text.slice(0, 200)}`;
    }
  };
  // Open loop: every due request is sent, whether or not the earlier ones were answered.
  let i = 0;
  while (i < n) {
    const now = performance.now();
    while (i < n && start + (i * 1000) / rate <= now) {
      sends.push(sign(i, start + (i * 1000) / rate));
      i++;
    }
    if (i < n) {
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(20, start + (i * 1000) / rate - performance.now()))));
    }
  }
  const lastScheduled = start + ((n - 1) * 1000) / rate;
  await Promise.all(sends);
  const after = await snapshot(() => childCpu(server.child), server.pgPid);
  // The webhooks of this run, up to WEBHOOK_WAIT_MS after the last answer.
  const waitUntil = performance.now() + WEBHOOK_WAIT_MS;
  const done = () => [...answeredAt.keys()].every((t) => arrivals.get(t)?.signed !== undefined && arrivals.get(t)?.completed !== undefined);
  while (!done() && performance.now() < waitUntil) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const webhookSigned: number[] = [];
  const webhookCompleted: number[] = [];
  let missing = 0;
  for (const [ticket, at] of answeredAt) {
    const a = arrivals.get(ticket);
    if (a?.signed === undefined || a.completed === undefined) {
      missing++;
    }
    // Retries of a delivery that arrived before the 200 (the transaction commits, then the answer
    // goes out) count as 0: the receiver had it as soon as the signer did.
    if (a?.signed !== undefined) {
      webhookSigned.push(Math.max(0, a.signed - at));
    }
    if (a?.completed !== undefined) {
      webhookCompleted.push(Math.max(0, a.completed - at));
    }
  }
  const cpu = delta(before, after);
  const ok = latency.length;
  const drainMs = lastAnswer - lastScheduled;
  return {
    offered: rate,
    sent: n,
    ok,
    errors,
    firstError,
    achieved: ok / ((lastAnswer - start) / 1000),
    latency: latency.sort((a, b) => a - b),
    drainMs,
    sustained: ok === n && drainMs < DRAIN_LIMIT_MS,
    webhookSigned: webhookSigned.sort((a, b) => a - b),
    webhookCompleted: webhookCompleted.sort((a, b) => a - b),
    missingWebhooks: missing,
    serverCpuMsPerSig: cpu.serverMs / Math.max(1, ok),
    postgresCpuMsPerSig: cpu.postgresMs === undefined ? undefined : cpu.postgresMs / Math.max(1, ok),
    machineBusy: cpu.machineBusy,
  };
}

/** The columns of a run's row: heading and width. */
const COLUMNS: [string, number][] = [
  ['run', 22],
  ['ok/sent', 9],
  ['achieved/s', 10],
  ['sig p50', 7],
  ['sig p99', 7],
  ['drain', 7],
  ['sustained', 9],
  ['hook signed p50/p99', 19],
  ['hook completed p50/p99', 22],
  ['server CPU/sig', 14],
  ['pg CPU/sig', 10],
  ['machine busy', 12],
];
const row = (cells: string[]) => `  ${cells.map((c, i) => c.padEnd(COLUMNS[i][1])).join(' | ')}`;

function printHeader(keyVia: string | undefined) {
  console.log(`  (key type set ${keyVia === 'account' ? 'on the account' : 'by SELLO_SIGNER_KEY'})`);
  console.log(row(COLUMNS.map(([heading]) => heading)));
}

function printRow(label: string, r: RunFigures) {
  const ms = (v: number) => (Number.isNaN(v) ? '-' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(0)} ms`);
  const p = (sorted: number[]) => `${ms(percentile(sorted, 50))} / ${ms(percentile(sorted, 99))}`;
  console.log(
    row([
      label,
      `${r.ok}/${r.sent}`,
      r.achieved.toFixed(1),
      ms(percentile(r.latency, 50)),
      ms(percentile(r.latency, 99)),
      ms(r.drainMs),
      r.sustained ? 'yes' : 'no',
      p(r.webhookSigned),
      p(r.webhookCompleted),
      `${r.serverCpuMsPerSig.toFixed(0)} ms`,
      r.postgresCpuMsPerSig === undefined ? '-' : `${r.postgresCpuMsPerSig.toFixed(0)} ms`,
      `${(r.machineBusy * 100).toFixed(0)}%`,
    ]),
  );
  if (r.errors.size > 0) {
    console.log(`    errors: ${[...r.errors].map(([s, c]) => `${s}×${c}`).join(', ')}; first: ${r.firstError}`);
  }
  if (r.missingWebhooks > 0) {
    console.log(`    ${r.missingWebhooks} signed documents without both webhooks after ${WEBHOOK_WAIT_MS / 1000} s`);
  }
}
