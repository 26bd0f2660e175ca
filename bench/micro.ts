// Microbenchmarks in this process (no server): the HMAC check, and the other steps of
// POST /developers/json one by one, calling the same functions the server calls, so that the
// end-to-end figures can be split into what costs what.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { decodeBase64Pdf } from '../src/domain/documents/resolve-pdf-origin.js';
import { candidatesFor, signatureMatches } from '../src/http/auth.js';
import { inspectPdf } from '../src/pdf/inspect-pdf.js';
import { createFsBlobStore, sha256Hex } from '../src/store/blobs.js';

export interface MicroResult {
  name: string;
  opsPerSec: number;
  usPerOp: number;
}

/**
 * Runs fn for about `ms` milliseconds after a warm-up, `concurrency` calls in flight (1 for CPU
 * work; more for I/O such as fsync, where the disk overlaps requests), and reports the rate.
 */
async function measure(name: string, fn: () => unknown, ms = 1000, concurrency = 1): Promise<MicroResult> {
  const loop = async (until: number) => {
    let n = 0;
    let now = performance.now();
    while (now < until) {
      // Check the clock every few calls only: for the fastest cases it would dominate.
      for (let i = 0; i < 16; i++) {
        const r = fn();
        if (r instanceof Promise) {
          await r;
        }
      }
      n += 16;
      now = performance.now();
    }
    return n;
  };
  await loop(performance.now() + ms / 5);
  const start = performance.now();
  const counts = await Promise.all(Array.from({ length: concurrency }, () => loop(start + ms)));
  const elapsed = performance.now() - start;
  const n = counts.reduce((a, b) => a + b, 0);
  return { name, opsPerSec: (n * 1000) / elapsed, usPerOp: (elapsed * 1000) / n };
}

const postRequest = (body: Buffer) =>
  ({
    method: 'POST',
    raw: { url: '/developers/json' },
    headers: { 'content-type': 'application/json' },
    rawBody: body,
  }) as unknown as FastifyRequest;

/**
 * signatureMatches always computes MAX_ACTIVE_KEYS (2) HMACs per candidate string: a GET has two
 * candidates (target and absolute URL), a compact JSON body one.
 */
export async function authMicrobench(bodies: { name: string; body: Buffer }[], publicUrl: string): Promise<MicroResult[]> {
  const apiKey = randomBytes(32).toString('base64url');
  const keys = [apiKey]; // one active key, as a fresh account has; the second slot is a dummy
  const sign = (s: string | Buffer) => createHmac('sha256', Buffer.from(apiKey, 'utf8')).update(s).digest();
  const target = '/api/document?limit=1';
  const getCandidates = candidatesFor({ method: 'GET', raw: { url: target }, headers: {} } as unknown as FastifyRequest, publicUrl).exact;
  const getSig = sign(target);
  const results = [
    await measure('signatureMatches, GET target (2 candidates × 2 key slots)', () => signatureMatches(getSig, keys, getCandidates)),
  ];
  for (const { name, body } of bodies) {
    const candidates = candidatesFor(postRequest(body), publicUrl).exact;
    const sig = sign(body);
    const ms = body.length > 1e6 ? 3000 : 1000; // large bodies take milliseconds per call
    results.push(
      await measure(
        `signatureMatches, ${name} (${candidates.length} candidate × 2 key slots)`,
        () => signatureMatches(sig, keys, candidates),
        ms,
      ),
    );
  }
  return results;
}

/**
 * The CPU steps of a create request in the order the server runs them (after the key lookup),
 * then the durable blob write. fsync cost depends on the disk: blobDir must be on the same
 * filesystem as the server's data directory to mean anything.
 */
export async function createStepsMicrobench(name: string, body: Buffer, unique: () => Buffer, blobDir: string): Promise<MicroResult[]> {
  const ms = body.length > 1e6 ? 3000 : 1000;
  const raw = postRequest(body);
  const parsed = JSON.parse(body.toString('utf8')) as { b64_doc: string };
  const pdf = decodeBase64Pdf(parsed.b64_doc, 25 * 1024 * 1024);
  const dir = await mkdtemp(join(blobDir, 'bench-blobs-'));
  try {
    const blobs = createFsBlobStore(dir);
    return [
      await measure(
        `${name}: compact re-serialization (auth, only when the exact bytes did not match)`,
        () => {
          raw.jsonBody = undefined;
          return candidatesFor(raw, 'http://127.0.0.1').compact();
        },
        ms,
      ),
      await measure(`${name}: JSON.parse of the body (preValidation)`, () => JSON.parse(body.toString('utf8')), ms),
      await measure(`${name}: decodeBase64Pdf (regexes + decode)`, () => decodeBase64Pdf(parsed.b64_doc, 25 * 1024 * 1024), ms),
      await measure(`${name}: inspectPdf (load, page tree, boxes)`, () => inspectPdf(pdf, { maxPages: 2000 }), ms),
      await measure(`${name}: sha256Hex of the PDF (blob key)`, () => sha256Hex(pdf), ms),
      await measure(`${name}: blobs.put of a new PDF, 1 in flight (write + 2 fsyncs)`, () => blobs.put(unique()), ms),
      await measure(`${name}: blobs.put of a new PDF, 16 in flight`, () => blobs.put(unique()), ms, 16),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
