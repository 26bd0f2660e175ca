// Scenario V of `npm run bench`: verifying a signed PDF as the report and POST /api/report do (what
// the PDF jail's worker runs: pdf/verify/verify-pdf.ts under the decompression budget of pdf/decode-budget.ts:
// structure, CMS, revision difference analysis, levels, attack patterns) on a 1-page and on a
// 300-page ~10 MB PDF, each signed twice by the service's signPdf (three revisions). p50/p99 and the
// peak RSS of the verification alone. Prints figures; asserts nothing about timings.
//
// Each input runs in its own child process (this file with the argument "child"), so its peak RSS
// is that workload's; the peak is reset (Linux clear_refs) once the signed file is ready, so the
// PKI generation and the two signatures before it are not counted.
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Clock } from '../src/domain/deps.js';
import { createPkiResponder } from '../src/domain/pki/pki-responses.js';
import { timestampSource } from '../src/domain/signing/timestamp-source.js';
import { withDecodeBudget } from '../src/pdf/decode-budget.js';
import { verifyPdf } from '../src/pdf/verify/verify-pdf.js';
import { KeyPairPool, generateServicePki, importPki } from '../src/pki/index.js';
import type { Db } from '../src/store/db.js';
import { signAsService, startPeakRss } from './child-support.js';
import { percentile } from './load.js';
import { manyPagesPdf, onePagePdf } from './pdfs.js';

const PUBLIC_URL = 'https://sello.example';
const TSA_POLICY_OID = '2.25.44711949293045456837671144841923094334';
const DECODE_BUDGET = 256 * 1024 * 1024; // the configuration's default

interface ChildResult {
  name: string;
  bytes: number;
  samples: number[];
  peakRssBytes: number;
  verdict: string;
}

async function signedTwice(pages: number): Promise<Buffer> {
  const unsigned = pages === 1 ? (await onePagePdf()).bytes : await manyPagesPdf(pages, 10e6);
  const clock: Clock = { now: () => new Date() };
  const material = await generateServicePki({ organization: 'Sello Bench', baseUrl: PUBLIC_URL, now: new Date() });
  const responder = createPkiResponder({ db: undefined as unknown as Db, clock }, await importPki(material), TSA_POLICY_OID);
  const tsa = timestampSource({ pki: responder });
  const keys = new KeyPairPool({ size: 2, refillDelayMs: 0 });
  const pdf = await signAsService(
    unsigned,
    [60, 320].map((x, i) => ({
      name: `Signer ${i + 1}`,
      email: `signer${i + 1}@example.com`,
      fieldName: `Sello-bench-${i + 1}`,
      box: { page: 0, rect: { lx: x, ly: 80, tx: x + 200, ty: 150 } },
    })),
    { pki: responder.pki, tsa, publicUrl: PUBLIC_URL, keys, clock },
  );
  writeFileSync(`${process.env.BENCH_V_ROOT_FILE}`, Buffer.from(tsa.trustedRootsDer[0]));
  return Buffer.from(pdf);
}

async function child(pages: number, iterations: number): Promise<ChildResult> {
  const bytes = await signedTwice(pages);
  const root = readFileSync(`${process.env.BENCH_V_ROOT_FILE}`);
  const verifyOnce = () => withDecodeBudget(DECODE_BUDGET, () => verifyPdf(bytes, { trustedRootsDer: [root] }));
  const first = await verifyOnce(); // warm-up, and the verdict printed
  const peak = startPeakRss();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await verifyOnce();
    samples.push(performance.now() - t0);
  }
  const verdict = `${first.documentIntegrity}, ${first.signatures.map((s) => `${s.validSignature ? 'valid' : 'invalid'} ${s.level}`).join(' + ')}`;
  return { name: `${pages}-page`, bytes: bytes.length, samples, peakRssBytes: peak.stop().peak, verdict };
}

function runChild(pages: number, iterations: number): Promise<ChildResult> {
  const proc = fork(resolve('bin/run-ts.js'), ['bench/verifying.ts', 'child', String(pages), String(iterations)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_V_ROOT_FILE: resolve(`.bench-root-${process.pid}-${pages}.der`) },
  });
  return new Promise((ok, fail) => {
    proc.once('message', (m) => ok(m as ChildResult));
    proc.once('exit', (code) => (code === 0 ? undefined : fail(new Error(`verification child exited with ${code}`))));
  });
}

export async function scenarioVerifying(): Promise<void> {
  console.log('V  verification of a PDF signed twice (3 revisions): decompression budget + structure + CMS + difference analysis + levels');
  for (const [pages, iterations] of [
    [1, Number(process.env.BENCH_V_SMALL ?? 40)],
    [300, Number(process.env.BENCH_V_LARGE ?? 8)],
  ]) {
    const r = await runChild(pages, iterations);
    const sorted = [...r.samples].sort((a, b) => a - b);
    console.log(
      `   ${r.name.padEnd(9)} ${(r.bytes / 1e6).toFixed(2).padStart(6)} MB  p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms  ` +
        `peak RSS ${(r.peakRssBytes / 1e6).toFixed(0)} MB  (${iterations} runs; ${r.verdict})`,
    );
  }
}

if (process.argv[2] === 'child') {
  const result = await child(Number(process.argv[3]), Number(process.argv[4]));
  try {
    (await import('node:fs')).rmSync(`${process.env.BENCH_V_ROOT_FILE}`, { force: true });
  } finally {
    process.send!(result);
    process.disconnect();
  }
}
