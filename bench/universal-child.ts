// The measured process of scenario U (bench/universal.ts starts one per input, so that the peak RSS
// is this workload's alone). It signs the input twice (two signers, outside the timings), then
// builds the universal rendition of that completed original again and again as the universal_build
// job does (makeUniversal: the validation data gathered and checked, a DSS, a document time stamp
// from the built-in TSA, a second DSS), minus the database: the service's OCSP answers and CRLs
// are made in this process by the same pki/ functions, with every certificate "good".
import { readFile } from 'node:fs/promises';
import type { Clock } from '../src/domain/deps.js';
import { createPkiResponder, type PkiResponder } from '../src/domain/pki/pki-responses.js';
import { timestampSource } from '../src/domain/signing/timestamp-source.js';
import { makeUniversal } from '../src/domain/universal/make-universal.js';
import { KeyPairPool, createCrl, createOcspResponse, importPki } from '../src/pki/index.js';
import type { Db } from '../src/store/db.js';
import { type MaterialMessage, type PeakMethod, decodeMaterial, signAsService, startPeakRss } from './child-support.js';
import { drawnSignaturePng } from './pdfs.js';

export interface UniversalChildJob {
  type: 'run';
  pdfPath: string;
  page: number;
  warmup: number;
  iterations: number;
  material: MaterialMessage;
  publicUrl: string;
  tsaPolicyOid: string;
}

export interface UniversalChildResult {
  type: 'result';
  /** Milliseconds per universal rendition. */
  samples: number[];
  baselineRss: number;
  peakRss: number;
  peakMethod: PeakMethod;
  /** CPU time of this process (every thread, user + system) per rendition: less sensitive than p50 to a busy machine. */
  cpuPerRenditionMs: number;
  originalBytes: number;
  universalBytes: number;
}

async function run(job: UniversalChildJob): Promise<UniversalChildResult> {
  const material = decodeMaterial(job.material);
  const clock: Clock = { now: () => new Date() };
  const pki = await importPki(material);
  const base = createPkiResponder({ db: undefined as unknown as Db, clock }, pki, job.tsaPolicyOid);
  let crlNumber = 1;
  // The responder's OCSP and CRL answers without the register of issued certificates.
  const responder: PkiResponder = {
    ...base,
    ocsp: (request) => createOcspResponse(pki, request, { now: clock.now(), lookup: async () => ({ status: 'good' }) }),
    crl: (issuer) =>
      createCrl(pki, {
        issuer,
        revoked: [],
        thisUpdate: clock.now(),
        nextUpdate: new Date(Date.now() + 86_400_000),
        crlNumber: crlNumber++,
      }),
  };
  const tsa = timestampSource({ pki: responder });
  const keys = new KeyPairPool({ size: 2 }); // not started: each key is made when asked for
  const pdf = await signAsService(
    await readFile(job.pdfPath),
    ['Ana Benchmark', 'Bruno Benchmark'].map((name, i) => ({
      name,
      email: `signer${i}@example.com`,
      fieldName: `Sello-bench${i}`,
      box: { page: job.page, rect: { lx: 40 + i * 260, ly: 80, tx: 240 + i * 260, ty: 150 } },
      image: drawnSignaturePng(),
    })),
    { pki, tsa, publicUrl: job.publicUrl, keys, clock },
  );
  const deps = { pki: responder, clock, externalTsa: undefined, fetchPkiData: undefined };
  let universalBytes = 0;
  for (let i = 0; i < job.warmup; i++) {
    await makeUniversal(deps, { pdf, scope: 'initial' });
  }
  const baselineRss = process.memoryUsage.rss();
  const peak = startPeakRss();
  const samples: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < job.iterations; i++) {
    const start = performance.now();
    const made = await makeUniversal(deps, { pdf, scope: 'initial' });
    samples.push(performance.now() - start);
    universalBytes = made.pdf.length;
  }
  const used = process.cpuUsage(cpu);
  const { peak: peakRss, method } = peak.stop();
  const cpuPerRenditionMs = (used.user + used.system) / 1000 / job.iterations;
  return {
    type: 'result',
    samples,
    baselineRss,
    peakRss,
    peakMethod: method,
    cpuPerRenditionMs,
    originalBytes: pdf.length,
    universalBytes,
  };
}

process.once('message', (job: UniversalChildJob) => {
  run(job).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
