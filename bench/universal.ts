// Scenario G of `npm run bench`: the universal rendition (PAdES B-LTA) of a completed document with
// two signatures, on a 1-page PDF and on a 300-page PDF of about 10 MB: the validation data
// gathered and checked, a DSS revision, a document time stamp, a second DSS revision (what the
// universal_build job does between reading the original and storing the result). p50/p99 and the
// peak RSS, each input in its own child process (bench/universal-child.ts). Prints figures;
// asserts nothing about timings.
import { fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateServicePki, type PkiMaterial } from '../src/pki/index.js';
import { encodeMaterial } from './child-support.js';
import { percentile } from './load.js';
import { manyPagesPdf, onePagePdf } from './pdfs.js';
import type { UniversalChildJob, UniversalChildResult } from './universal-child.js';

const MB = 1e6;
const SMALL_ITERATIONS = Number(process.env.BENCH_U_SMALL ?? 30);
const LARGE_ITERATIONS = Number(process.env.BENCH_U_LARGE ?? 8);
const PUBLIC_URL = 'https://sello.example';
const TSA_POLICY_OID = '2.25.44711949293045456837671144841923094334';

export async function scenarioUniversal(opts: { cpuProfileDir?: string } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'sello-bench-universal-'));
  try {
    const inputs = [
      { name: '1-page, 2 signatures', bytes: (await onePagePdf()).bytes, page: 0, warmup: 3, iterations: SMALL_ITERATIONS },
      { name: '300-page, 2 signatures', bytes: await manyPagesPdf(300, 10 * MB), page: 299, warmup: 1, iterations: LARGE_ITERATIONS },
    ];
    const material = await generateServicePki({ organization: 'Sello Bench', baseUrl: PUBLIC_URL, now: new Date() });
    console.log('U  universal rendition (PAdES B-LTA) of a completed original: validation data, DSS, document time stamp, DSS');
    console.log('   (two signatures made first, outside the timings; one child process per input)');
    console.log(
      `   ${'input'.padEnd(24)} ${'n'.padStart(3)} ${'p50'.padStart(9)} ${'p99'.padStart(9)} ${'CPU each'.padStart(9)}  ${'peak RSS'.padStart(8)} (after set-up)  original → universal`,
    );
    for (const [i, input] of inputs.entries()) {
      const pdfPath = join(dir, `input-${i}.pdf`);
      await writeFile(pdfPath, input.bytes);
      const r = await runChild(
        { pdfPath, page: input.page, warmup: input.warmup, iterations: input.iterations },
        material,
        opts.cpuProfileDir,
      );
      const sorted = [...r.samples].sort((a, b) => a - b);
      const ms = (v: number) => `${v.toFixed(1)} ms`;
      const mb = (v: number) => `${(v / MB).toFixed(0)} MB`;
      console.log(
        `   ${input.name.padEnd(24)} ${String(sorted.length).padStart(3)} ${ms(percentile(sorted, 50)).padStart(9)} ${ms(percentile(sorted, 99)).padStart(9)} ` +
          `${ms(r.cpuPerRenditionMs).padStart(9)}  ` +
          `${mb(r.peakRss).padStart(8)} (${mb(r.baselineRss)})${r.peakMethod === 'sampled' ? ' sampled' : ''}  ` +
          `${(r.originalBytes / MB).toFixed(2)} MB → ${(r.universalBytes / MB).toFixed(2)} MB`,
      );
    }
    console.log('');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runChild(
  input: Pick<UniversalChildJob, 'pdfPath' | 'page' | 'warmup' | 'iterations'>,
  material: PkiMaterial,
  cpuProfileDir?: string,
): Promise<UniversalChildResult> {
  const child = fork(resolve('bin/run-ts.js'), ['bench/universal-child.ts'], {
    execArgv: cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(cpuProfileDir)}`] : [],
    stdio: 'inherit',
  });
  const job: UniversalChildJob = {
    type: 'run',
    ...input,
    material: encodeMaterial(material),
    publicUrl: PUBLIC_URL,
    tsaPolicyOid: TSA_POLICY_OID,
  };
  return new Promise((resolveResult, reject) => {
    let result: UniversalChildResult | undefined;
    child.on('message', (m: UniversalChildResult) => {
      if (m.type === 'result') {
        result = m;
      }
    });
    child.once('exit', (code) => (result ? resolveResult(result) : reject(new Error(`the universal process exited with code ${code}`))));
    child.send(job);
  });
}
