// The measured process of scenario F (bench/signing.ts starts one per input, so that the peak RSS
// is this signature workload's alone). It receives the input PDF's path and the service PKI over
// IPC, then signs the same unsigned revision again and again as sign-document.ts does, minus the
// database: read the current revision from the blob store, issue a signer certificate (its key
// taken from a KeyPairPool, as the runtime does), signPdf with a drawn PNG in a box and a time
// stamp from the built-in TSA (in this process), store the new revision. Each signature is
// preceded by the floor: SHA-256 of the file and one RSA-3072 signature with node:crypto. It
// answers with every sample and the peak RSS, and exits.
//
// Signatures come one at a time, as people press "Sign": between two of them, outside the timing,
// the child waits until the pool is full again, i.e. signatures arrive no faster than the pool
// refills (about 5 a second per core here). The pool waits as the service's does before refilling
// after a take (a quarter of a second), and the wait for it ends that delay, so the refill runs
// after the signature that took the key, never beside it. With keys: 'demand' every key is
// generated during its signature instead (the service without the pool, or with the pool drained).
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Clock } from '../src/domain/deps.js';
import { createPkiResponder } from '../src/domain/pki/pki-responses.js';
import { timestampSource } from '../src/domain/signing/timestamp-source.js';
import { signPdf } from '../src/pdf/sign-pdf.js';
import { readSignatures } from '../src/pdf/read-signatures.js';
import {
  KeyPairPool,
  SIGNER_KEY_POOL_SIZE,
  SIGNER_KEY_REFILL_DELAY_MS,
  importPki,
  issueSignerCertificate,
  pkiUrls,
  randomSerialHex,
} from '../src/pki/index.js';
import { generateKeyPair } from '../src/pki/primitives.js';
import type { Db } from '../src/store/db.js';
import { createFsBlobStore } from '../src/store/blobs.js';
import { type MaterialMessage, type PeakMethod, decodeMaterial, startPeakRss } from './child-support.js';
import { drawnSignaturePng } from './pdfs.js';

/** What the parent sends. Buffers travel as Base64 over the IPC channel: no key touches the disk. */
export interface ChildJob {
  type: 'run';
  pdfPath: string;
  blobDir: string;
  /** 0-based page of the signature box (the last page, where contracts are signed). */
  page: number;
  warmup: number;
  iterations: number;
  /** Extra samples of the signer's key generation alone (of the key type benchmarked), after the measured run. */
  keygenSamples: number;
  material: MaterialMessage;
  publicUrl: string;
  tsaPolicyOid: string;
  /** 'pool': keys from a KeyPairPool, full before each signature; 'demand': generated during it. */
  keys: 'pool' | 'demand';
  /** The signer key type (SELLO_SIGNER_KEY). */
  keyType: 'rsa-2048' | 'ecdsa-p256';
}

/** One signature, split into the steps sign-document.ts runs (milliseconds). */
export interface SignatureSample {
  total: number;
  read: number;
  certificate: number;
  /** signPdf as a whole, the time stamp included. */
  signPdf: number;
  /** The built-in TSA's part of signPdf: build the request, sign the token. */
  timestamp: number;
  store: number;
  /**
   * CPU time of this process over the whole signature (user + system, every thread: WebCrypto's
   * jobs on the thread pool included). The pool never refills during a signature (see above), so
   * this is the signature's own CPU, which a busy machine stretches far less than its wall time.
   */
  cpu: number;
}

export interface ChildResult {
  type: 'result';
  samples: SignatureSample[];
  /** SHA-256 of the file plus one RSA-3072 signature, in the same iterations (milliseconds). */
  floor: number[];
  /** The CPU time of each floor (user + system). */
  floorCpu: number[];
  keygen: number[];
  /** CPU time of this process (every thread, user + system) per measured signature and its floor. */
  cpuPerIterationMs: number;
  /** RSS once set up (modules, PKI, input read), and the highest RSS from then to the last signature. */
  baselineRss: number;
  peakRss: number;
  /** How the peak was measured: the kernel's high-water mark, or sampling when it cannot be reset. */
  peakMethod: PeakMethod;
  signedBytes: number;
}

async function run(job: ChildJob): Promise<ChildResult> {
  const material = decodeMaterial(job.material);
  const clock: Clock = { now: () => new Date() };
  // The responder's time stamps need neither the database nor the master key (no OCSP renewal
  // settings are given), so none is passed: the TSA path is the production one.
  const responder = createPkiResponder({ db: undefined as unknown as Db, clock }, await importPki(material), job.tsaPolicyOid);
  const tsa = timestampSource({ pki: responder });
  const urls = pkiUrls(job.publicUrl);
  const floorKey = createPrivateKey({ key: material.issuing.privateKeyPkcs8!, format: 'der', type: 'pkcs8' });
  const blobs = createFsBlobStore(job.blobDir);
  const unsigned = await readFile(job.pdfPath);
  const key = await blobs.put(unsigned);
  const image = drawnSignaturePng();
  const box = { page: job.page, rect: { lx: 320, ly: 80, tx: 520, ty: 150 } };
  const generate = () => generateKeyPair(job.keyType, false);
  const pool = new KeyPairPool({ size: SIGNER_KEY_POOL_SIZE, refillDelayMs: SIGNER_KEY_REFILL_DELAY_MS, generate }); // as the runtime's
  if (job.keys === 'pool') {
    pool.start();
  }

  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  const floorOnce = () => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const digest = createHash('sha256').update(unsigned).digest();
    sign('sha256', digest, floorKey);
    return { wall: performance.now() - start, cpu: cpuMs(cpu) };
  };

  let signedBytes = 0;
  const signOnce = async (n: number): Promise<SignatureSample> => {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const current = await blobs.get(key);
    const t1 = performance.now();
    const now = clock.now();
    const cert = await issueSignerCertificate(responder.pki, {
      name: 'Ana Benchmark',
      email: 'ana@example.com',
      serialNumber: randomSerialHex(),
      now,
      ocspUrl: urls.ocsp,
      crlUrl: urls.crl,
      caIssuersUrl: urls.issuingCer,
      keys: pool, // never started with keys: 'demand', so every pair is generated on demand
      keyAlgorithm: job.keyType,
    });
    const t2 = performance.now();
    let timestamp = 0;
    const signed = await signPdf({
      pdf: current,
      fieldName: `Sello-bench${n}`,
      boxes: [box],
      appearance: { image, signerName: 'Ana Benchmark', signedAt: now, authorityLabel: 'Email link: ana@example.com', locale: 'en' },
      signer: { certificateDer: cert.certificateDer, privateKey: cert.privateKey, chainDer: [cert.certificateDer, ...cert.chainDer] },
      timestamp: async (imprint, nonce) => {
        const s = performance.now();
        try {
          return await tsa.timestamp(imprint, nonce);
        } finally {
          timestamp += performance.now() - s;
        }
      },
      trustedRootsDer: tsa.trustedRootsDer,
      now: () => now,
      reason: 'Electronic signature',
    });
    const t3 = performance.now();
    await blobs.put(signed.pdf);
    const t4 = performance.now();
    const cpuUsed = cpuMs(cpu);
    if (n === 0) {
      await sanityCheck(signed.pdf, tsa.trustedRootsDer);
    }
    signedBytes = signed.pdf.length;
    return { total: t4 - t0, read: t1 - t0, certificate: t2 - t1, signPdf: t3 - t2, timestamp, store: t4 - t3, cpu: cpuUsed };
  };

  const baselineRss = process.memoryUsage.rss();
  const peak = startPeakRss();
  // Warm-up: JIT, the first PNG decode, fonts, the blob store's shard directories.
  let n = 0;
  for (let i = 0; i < job.warmup; i++) {
    await pool.whenFull();
    floorOnce();
    await signOnce(n++);
  }
  const samples: SignatureSample[] = [];
  const floor: number[] = [];
  const floorCpu: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < job.iterations; i++) {
    await pool.whenFull();
    const f = floorOnce();
    floor.push(f.wall);
    floorCpu.push(f.cpu);
    samples.push(await signOnce(n++));
  }
  const cpuUsed = process.cpuUsage(cpu);
  const { peak: peakRss, method } = peak.stop();
  pool.stop();
  const keygen: number[] = [];
  for (let i = 0; i < job.keygenSamples; i++) {
    const start = performance.now();
    await generate();
    keygen.push(performance.now() - start);
  }
  const cpuPerIterationMs = (cpuUsed.user + cpuUsed.system) / 1000 / job.iterations;
  return { type: 'result', samples, floor, floorCpu, keygen, cpuPerIterationMs, baselineRss, peakRss, peakMethod: method, signedBytes };
}

/** The first signature made is checked as a verifier would: one signature, intact, trusted, time-stamped. */
async function sanityCheck(pdf: Buffer, trustedRootsDer: Uint8Array[]) {
  const { signatures } = await readSignatures(pdf, { trustedRootsDer });
  const s = signatures[0];
  if (signatures.length !== 1 || !s.validSignature || !s.coversDocument || !s.trusted || !s.timestamp?.verified) {
    throw new Error(
      `sanity check: the signed PDF does not verify: ${JSON.stringify({ count: signatures.length, ...s, certificates: undefined })}`,
    );
  }
}

process.once('message', (job: ChildJob) => {
  run(job).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
