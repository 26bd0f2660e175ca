// Scenario L of `npm run bench`: one 1,000-page, ~50 MB document through its whole life on a real
// server: created (b64_doc in the JSON body, as clients send it), opened and signed by two signers
// through the signer page's routes, downloaded, and verified (the signature report). For each step:
// its time, and the server process's peak RSS during it (worker threads included). Prints figures;
// asserts nothing about timings.
//
// How the peak is measured: before each step this process writes 5 to /proc/PID/clear_refs of the
// server, which resets its high-water mark (VmHWM) to its current RSS; after the step VmHWM is the
// peak of the step. Worker threads are threads of that process, so the PDF jail's workers count.
// Without clear_refs (not Linux, or not allowed) the RSS is sampled every 5 ms instead and marked
// "sampled". Memory the previous steps left for the garbage collector counts, as it would in a
// running service.
//
// The document is larger than the default limits (25 MB decoded, a JSON body of 36 MB): the server
// is started with SELLO_MAX_DOCUMENT_MB=64 (SELLO_MAX_JSON_MB follows it, see docs/configuration.md).
// The target: peak RSS under twice the file plus 150 MB.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drawnSignaturePng, manyPagesPdf } from './pdfs.js';
import { startServer, stopServer, type Server } from './server-process.js';

const PAGES = Number(process.env.BENCH_L_PAGES ?? 1000);
const BYTES = Number(process.env.BENCH_L_MB ?? 50) * 1024 * 1024;
const MB = 1024 * 1024;

/** The limits the server needs for this document (the rest of its configuration is bench/server.ts's). */
export const BIG_DOCUMENT_ENV = {
  SELLO_MAX_DOCUMENT_MB: '64',
  // A busy 2-core machine reads 1,000 pages in a few seconds; the default 10 s leaves little margin.
  SELLO_PDF_TIMEOUT_MS: '60000',
};

interface Step {
  name: string;
  ms: number;
  peak: number;
  after: number;
  method: 'VmHWM' | 'sampled';
}

export async function scenarioBigDocument(): Promise<void> {
  const t0 = performance.now();
  const pdf = await manyPagesPdf(PAGES, BYTES);
  const genMs = performance.now() - t0;
  const target = 2 * pdf.length + 150 * MB;
  console.log(
    `L  a ${PAGES}-page document of ${(pdf.length / MB).toFixed(1)} MiB created, signed by two signers, downloaded, verified ` +
      `(generated in ${(genMs / 1000).toFixed(1)} s); target peak RSS < 2 × file + 150 MiB = ${(target / MB).toFixed(0)} MiB`,
  );
  const dataDir = await mkdtemp(join(tmpdir(), 'sello-bench-l-'));
  let server: Server | undefined;
  try {
    server = await startServer(dataDir, process.env.BENCH_CPU_PROF, BIG_DOCUMENT_ENV);
    const pid = server.child.pid!;
    const steps = await lifeOf(server, pdf, pid);
    const peak = Math.max(...steps.map((s) => s.peak));
    for (const s of steps) {
      console.log(
        `   ${s.name.padEnd(44)} ${(s.ms / 1000).toFixed(2).padStart(7)} s   peak RSS ${mib(s.peak).padStart(5)} MiB` +
          `   after ${mib(s.after).padStart(5)} MiB${s.method === 'sampled' ? ' (sampled)' : ''}`,
      );
    }
    console.log(
      `   peak RSS of the server over the run: ${mib(peak)} MiB, ${peak <= target ? 'under' : 'OVER'} the target of ${mib(target)} MiB\n`,
    );
  } finally {
    await stopServer(server);
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function lifeOf(s: Server, pdf: Buffer, pid: number): Promise<Step[]> {
  const steps: Step[] = [
    { name: 'server idle, before the first request', ms: 0, peak: status(pid, 'VmRSS'), after: status(pid, 'VmRSS'), method: 'VmHWM' },
  ];
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const peak = startPeak(pid);
    const t = performance.now();
    const out = await run();
    const ms = performance.now() - t;
    const { value, method } = peak.stop();
    steps.push({ name, ms, peak: value, after: status(pid, 'VmRSS'), method });
    return out;
  };

  const created = await step('create (POST /developers/json, b64_doc)', () => createDocument(s, pdf));
  const tokens = created.stickers.map((x) => x.signer_url.split('/').pop()!);
  for (const [i, token] of tokens.entries()) {
    await step(`signer ${i + 1} opens the page (info and PDF)`, async () => {
      await expectOk(await fetch(`${s.baseUrl}/sign/api/${token}`));
      const file = await fetch(`${s.baseUrl}/sign/api/${token}/pdf`);
      await expectOk(file);
      const bytes = Buffer.from(await file.arrayBuffer());
      if (bytes.length < pdf.length) {
        throw new Error(`the signer's PDF has ${bytes.length} bytes, fewer than the ${pdf.length} created`);
      }
    });
    await step(`signer ${i + 1} signs (POST /sign/api/{token}/sign)`, async () => {
      const res = await fetch(`${s.baseUrl}/sign/api/${token}/sign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          signature: { type: 'drawn', image: `data:image/png;base64,${drawnSignaturePng().toString('base64')}` },
          consent: true,
        }),
      });
      await expectOk(res);
    });
  }
  const signed = await step('download (GET /api/document/original/{ticket})', async () => {
    const body = (await signedGet(s, `/api/document/original/${created.document_ticket}`)) as { original: string; hash: string };
    const bytes = Buffer.from(body.original, 'base64');
    if (createHash('sha256').update(bytes).digest('hex') !== body.hash) {
      throw new Error('the downloaded original does not match its hash');
    }
    return bytes;
  });
  if (process.env.BENCH_L_SAVE) {
    writeFileSync(process.env.BENCH_L_SAVE, signed);
  }
  const report = await step('verify (GET /api/report/{ticket})', () => signedGet(s, `/api/report/${created.document_ticket}`));
  const { firmas, documentIntegrity } = report as { firmas?: { validSignature?: boolean }[]; documentIntegrity?: string };
  if (firmas?.length !== 2 || !firmas.every((x) => x.validSignature === true) || documentIntegrity !== 'intact') {
    throw new Error(`the report should show two valid signatures: ${JSON.stringify(report).slice(0, 400)}`);
  }
  return steps;
}

interface Created {
  document_ticket: string;
  stickers: { signer_url: string }[];
}

/** The create request as SelloClient sends it (compact JSON, HMAC over the bytes), the Base64 spliced in. */
async function createDocument(s: Server, pdf: Buffer): Promise<Created> {
  const stickers = [
    { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 50, ly: 100, tx: 250, ty: 160 } },
    { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno', page: PAGES - 1, rect: { lx: 320, ly: 100, tx: 520, ty: 160 } },
  ];
  const [pre, post] = JSON.stringify({ name: 'big.pdf', b64_doc: '@B64@', stickers }).split('@B64@');
  const body = Buffer.concat([Buffer.from(pre), Buffer.from(pdf.toString('base64'), 'latin1'), Buffer.from(post)]);
  const res = await fetch(`${s.baseUrl}/developers/json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: authorization(s, body) },
    body,
  });
  await expectOk(res);
  return (await res.json()) as Created;
}

async function signedGet(s: Server, path: string): Promise<unknown> {
  const res = await fetch(`${s.baseUrl}${path}`, { headers: { authorization: authorization(s, path) } });
  await expectOk(res);
  return res.json();
}

function authorization(s: Server, stringToSign: string | Buffer): string {
  return `svc ${s.webId}:${createHmac('sha256', Buffer.from(s.apiKey, 'utf8')).update(stringToSign).digest('base64')}`;
}

async function expectOk(res: Response): Promise<void> {
  if (!res.ok) {
    throw new Error(`${res.url}: ${res.status} ${(await res.text()).slice(0, 400)}`);
  }
}

/** The server's peak RSS from now until stop(): VmHWM after clear_refs, else sampled. */
function startPeak(pid: number): { stop: () => { value: number; method: 'VmHWM' | 'sampled' } } {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return { stop: () => ({ value: status(pid, 'VmHWM'), method: 'VmHWM' }) };
  } catch {
    let peak = status(pid, 'VmRSS');
    const timer = setInterval(() => {
      peak = Math.max(peak, status(pid, 'VmRSS'));
    }, 5);
    return {
      stop: () => {
        clearInterval(timer);
        return { value: Math.max(peak, status(pid, 'VmRSS')), method: 'sampled' };
      },
    };
  }
}

/** A size line of /proc/PID/status, in bytes. */
function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

function mib(bytes: number): string {
  return (bytes / MB).toFixed(0);
}
