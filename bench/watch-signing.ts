// The watch's signing check: one signature on a 1-page PDF (read, signer certificate, appearance,
// CMS, time stamp from the built-in TSA, store) against its floor, SHA-256 of the file plus one
// RSA-3072 signature, each signature right after its floor: the measured process of scenario F
// (bench/signing-child.ts), unchanged, with signer keys from the pool as the service takes them.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateServicePki } from '../src/pki/index.js';
import { encodeMaterial } from './child-support.js';
import { onePagePdf } from './pdfs.js';
import type { ChildJob, ChildResult } from './signing-child.js';
import type { Resources } from './watch-resources.js';

const PUBLIC_URL = 'https://sello.example';
const TSA_POLICY_OID = '2.25.44711949293045456837671144841923094334'; // the configuration's default, as scenario F
const WARMUP = 5;

export interface SigningPairs {
  /** Per pair: the signature's CPU time ÷ its floor's. */
  ratios: number[];
  /** CPU time of each signature and of its floor, ms. */
  signatureMs: number[];
  floorMs: number[];
  /** Per pair: the same ratio in elapsed time, printed beside it (it grows with the machine's load). */
  wallRatios: number[];
}

export async function signingPairs(res: Resources, o: { pairs: number }): Promise<SigningPairs> {
  const dir = await mkdtemp(join(tmpdir(), 'sello-watch-sign-'));
  res.add('the signing directory', () => rm(dir, { recursive: true, force: true }));
  const pdfPath = join(dir, 'input.pdf');
  await writeFile(pdfPath, (await onePagePdf()).bytes);
  const material = await generateServicePki({ organization: 'Sello Watch', baseUrl: PUBLIC_URL, now: new Date() });
  const job: ChildJob = {
    type: 'run',
    pdfPath,
    blobDir: join(dir, 'blobs'),
    page: 0,
    warmup: WARMUP,
    iterations: o.pairs,
    keygenSamples: 0,
    material: encodeMaterial(material),
    publicUrl: PUBLIC_URL,
    tsaPolicyOid: TSA_POLICY_OID,
    keys: 'pool',
    keyType: 'rsa-2048',
  };
  const child = fork(resolve('bin/run-ts.js'), ['bench/signing-child.ts'], { stdio: 'inherit' });
  res.add('the signing process', () => kill(child));
  const result = await new Promise<ChildResult>((resolveResult, reject) => {
    let got: ChildResult | undefined;
    child.on('message', (m: ChildResult) => {
      if (m.type === 'result') {
        got = m;
      }
    });
    child.once('exit', (code, signal) =>
      got ? resolveResult(got) : reject(new Error(`the signing process exited (${signal ?? `code ${code}`}) before its result`)),
    );
    child.send(job);
  });
  const signatureMs = result.samples.map((s) => s.cpu);
  const floorMs = result.floorCpu;
  const wall = result.samples.map((s, i) => s.total / result.floor[i]);
  return { ratios: signatureMs.map((ms, i) => ms / floorMs[i]), signatureMs, floorMs, wallRatios: wall };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;
  }
}
