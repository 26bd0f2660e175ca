// Scenario F of `npm run bench`: the time to apply one signature (read the current revision,
// issue a signer certificate, appearance with a drawn PNG in a box, CMS, time stamp from the
// built-in TSA, store the new revision) on a 1-page PDF and on a 300-page PDF of about 10 MB, one
// signature at a time, with p50/p99 and the peak RSS. Beside it, the floor measured in the same
// iterations: SHA-256 of the file plus one RSA-3072 private-key signature with node:crypto, the
// least any signature of that file can cost. Prints figures; asserts nothing about timings.
//
// Each input is signed in its own child process (bench/signing-child.ts), so that its peak RSS is
// that workload's alone. The service PKI is generated once here, outside any timing, and handed
// to the children over IPC.
import { fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateServicePki, type PkiMaterial } from '../src/pki/index.js';
import { encodeMaterial } from './child-support.js';
import { percentile } from './load.js';
import { manyPagesPdf, onePagePdf } from './pdfs.js';
import type { ChildJob, ChildResult, SignatureSample } from './signing-child.js';

const MB = 1e6; // the targets are in MB
const SMALL_ITERATIONS = Number(process.env.BENCH_F_SMALL ?? 60);
const LARGE_ITERATIONS = Number(process.env.BENCH_F_LARGE ?? 15);
// 'pool' (default): signer keys from a pool filled ahead of time, as the service does; 'demand':
// each key generated during its signature, as without the pool or with the pool drained.
const KEYS = process.env.BENCH_F_KEYS === 'demand' ? 'demand' : 'pool';
// The signer key type, as SELLO_SIGNER_KEY sets it in the service (default rsa-2048).
const KEY_TYPE = process.env.BENCH_F_KEY_TYPE === 'ecdsa-p256' ? 'ecdsa-p256' : 'rsa-2048';
const LARGE_PAGES = 300;
const LARGE_BYTES = 10 * MB;
const PUBLIC_URL = 'https://sello.example';
const TSA_POLICY_OID = '2.25.44711949293045456837671144841923094334'; // the configuration's default

interface Input {
  name: string;
  bytes: Buffer;
  pages: number;
  warmup: number;
  iterations: number;
  keygenSamples: number;
  /** Targets of the signing issue. */
  p50TargetMs: number;
}

const TARGET_RSS = 300 * MB;

interface Measured {
  input: Input;
  result: ChildResult;
  /** Share of all the machine's cores busy while the child ran (it uses about one). */
  machineBusy: number;
}

function cpuTimes() {
  let busy = 0;
  let total = 0;
  for (const { times: t } of cpus()) {
    total += t.user + t.nice + t.sys + t.irq + t.idle;
    busy += t.user + t.nice + t.sys + t.irq;
  }
  return { busy, total };
}

export async function scenarioSigning(opts: { cpuProfileDir?: string } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'sello-bench-sign-'));
  try {
    const small = (await onePagePdf()).bytes;
    const large = await manyPagesPdf(LARGE_PAGES, LARGE_BYTES);
    const inputs: Input[] = [
      {
        name: `1-page (${small.length} B)`,
        bytes: small,
        pages: 1,
        warmup: 5,
        iterations: SMALL_ITERATIONS,
        keygenSamples: 30,
        p50TargetMs: 30,
      },
      {
        name: `${LARGE_PAGES}-page (${(large.length / MB).toFixed(1)} MB)`,
        bytes: large,
        pages: LARGE_PAGES,
        warmup: 2,
        iterations: LARGE_ITERATIONS,
        keygenSamples: 0,
        p50TargetMs: 250,
      },
    ];
    const started = performance.now();
    const material = await generateServicePki({ organization: 'Sello Bench', baseUrl: PUBLIC_URL, now: new Date() });
    console.log(`F  one signature at a time: read, signer certificate, appearance + CMS + time stamp (built-in TSA), store`);
    console.log(
      KEYS === 'pool'
        ? '   signer keys: from a pool generated ahead of time, full again before each signature (BENCH_F_KEYS=demand to generate each during its signature)'
        : '   signer keys: each generated during its signature (BENCH_F_KEYS=demand)',
    );
    console.log(`   signer key type: ${KEY_TYPE} (BENCH_F_KEY_TYPE=ecdsa-p256 or rsa-2048)`);
    console.log(
      `   (service PKI generated in ${((performance.now() - started) / 1000).toFixed(1)} s, outside the timings; one child process per input)`,
    );

    const results: Measured[] = [];
    for (const [i, input] of inputs.entries()) {
      const pdfPath = join(dir, `input-${i}.pdf`);
      await writeFile(pdfPath, input.bytes);
      const before = cpuTimes();
      const result = await runChild(input, pdfPath, join(dir, `blobs-${i}`), material, opts.cpuProfileDir);
      const after = cpuTimes();
      results.push({ input, result, machineBusy: (after.busy - before.busy) / Math.max(1, after.total - before.total) });
    }
    report(results);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runChild(input: Input, pdfPath: string, blobDir: string, material: PkiMaterial, cpuProfileDir?: string): Promise<ChildResult> {
  const child = fork(resolve('bin/run-ts.js'), ['bench/signing-child.ts'], {
    execArgv: cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(cpuProfileDir)}`] : [],
    stdio: 'inherit',
  });
  const job: ChildJob = {
    type: 'run',
    pdfPath,
    blobDir,
    page: input.pages - 1,
    warmup: input.warmup,
    iterations: input.iterations,
    keygenSamples: input.keygenSamples,
    material: encodeMaterial(material),
    publicUrl: PUBLIC_URL,
    tsaPolicyOid: TSA_POLICY_OID,
    keys: KEYS,
    keyType: KEY_TYPE,
  };
  return new Promise((resolveResult, reject) => {
    let result: ChildResult | undefined;
    child.on('message', (m: ChildResult) => {
      if (m.type === 'result') {
        result = m;
      }
    });
    child.once('exit', (code) =>
      result ? resolveResult(result) : reject(new Error(`the signing process for ${input.name} exited with code ${code}`)),
    );
    child.send(job);
  });
}

function report(results: Measured[]) {
  const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
  const mb = (v: number) => `${(v / MB).toFixed(0)} MB`;
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const p = (xs: number[], q: number) => percentile(sorted(xs), q);
  console.log(
    `   ${'input'.padEnd(22)} ${'n'.padStart(3)} ${'p50'.padStart(9)} ${'p99'.padStart(9)} ${'floor p50'.padStart(10)} ${'floor p99'.padStart(10)} ` +
      `${'p50/floor'.padStart(9)}  ${'peak RSS'.padStart(8)} (after set-up)  target p50, RSS`,
  );
  for (const { input, result: r } of results) {
    const total = r.samples.map((s) => s.total);
    const p50 = p(total, 50);
    const p50Met = p50 <= input.p50TargetMs ? 'met' : 'MISSED';
    const rssMet = r.peakRss <= TARGET_RSS ? 'met' : 'MISSED';
    console.log(
      `   ${input.name.padEnd(22)} ${String(total.length).padStart(3)} ${`${ms(p50)} ms`.padStart(9)} ${`${ms(p(total, 99))} ms`.padStart(9)} ` +
        `${`${ms(p(r.floor, 50))} ms`.padStart(10)} ${`${ms(p(r.floor, 99))} ms`.padStart(10)} ${`×${(p50 / p(r.floor, 50)).toFixed(0)}`.padStart(9)}  ` +
        `${mb(r.peakRss).padStart(8)} (${mb(r.baselineRss)})${r.peakMethod === 'sampled' ? ' sampled' : ''}  ` +
        `≤ ${input.p50TargetMs} ms ${p50Met}, ≤ ${mb(TARGET_RSS)} ${rssMet}`,
    );
  }
  console.log('   p50 of each step (ms):');
  const steps: [keyof SignatureSample, string][] = [
    ['read', 'read revision'],
    ['certificate', 'signer certificate'],
    ['signPdf', 'signPdf'],
    ['timestamp', 'of which time stamp'],
    ['store', 'store'],
  ];
  for (const { input, result: r } of results) {
    const parts = steps.map(
      ([k, label]) =>
        `${label} ${ms(
          p(
            r.samples.map((s) => s[k]),
            50,
          ),
        )}`,
    );
    // Without the certificate step: with keys on demand, it is nearly all key generation.
    const rest = r.samples.map((s) => s.total - s.certificate);
    console.log(`   ${input.name.padEnd(22)} ${parts.join(', ')}; signed file ${(r.signedBytes / MB).toFixed(2)} MB`);
    console.log(`   ${''.padEnd(22)} all but the signer certificate: p50 ${ms(p(rest, 50))} ms, p99 ${ms(p(rest, 99))} ms`);
  }
  // CPU time stretches far less than wall time when other work shares the cores: the ratio of the
  // two p50s is the one to compare between runs on a busy machine.
  console.log('   CPU of one signature and of its floor (user + system, every thread), p50:');
  for (const { input, result: r } of results) {
    const cpu = p(
      r.samples.map((s) => s.cpu),
      50,
    );
    const floorCpu = p(r.floorCpu, 50);
    console.log(`   ${input.name.padEnd(22)} ${ms(cpu)} ms, floor ${ms(floorCpu)} ms: ×${(cpu / floorCpu).toFixed(1)}`);
  }
  console.log('   CPU of the signing process per signature and its floor (all threads), and the machine meanwhile:');
  for (const { input, result: r, machineBusy } of results) {
    console.log(
      `   ${input.name.padEnd(22)} ${ms(r.cpuPerIterationMs)} ms; machine ${(machineBusy * 100).toFixed(0)}% busy (${cpus().length} cores)`,
    );
  }
  const keygen = results.flatMap(({ result: r }) => r.keygen);
  if (keygen.length) {
    console.log(
      `   the signer's ${KEY_TYPE} key generation alone (inside "signer certificate"), ${keygen.length} samples: ` +
        `p50 ${ms(p(keygen, 50))} ms, p99 ${ms(p(keygen, 99))} ms, min ${ms(Math.min(...keygen))} ms`,
    );
  }
  console.log('');
}
