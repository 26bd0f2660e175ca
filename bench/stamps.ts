// Scenario G of `npm run bench`: NOM-151 stamps over hashes (POST /api/timestamp) with the
// built-in time-stamp authority: each request a fresh SHA-256, signed as SelloClient signs a JSON
// POST. What a stamp costs is the TSA's RSA signature, the token's check before it is answered
// (pki/tsa-verify.ts) and one row written.
import { createHash } from 'node:crypto';
import type { BenchRequest } from './load.js';

export const G_SECONDS = Number(process.env.BENCH_G_SECONDS ?? 10);

/** Request i: the hash of "bench-stamp-i", so every stamp is over a different imprint. */
export function stampRequest(i: number, sign: (body: Buffer) => string): BenchRequest {
  const hash = createHash('sha256').update(`bench-stamp-${i}`).digest('hex');
  const body = Buffer.from(JSON.stringify({ hash }));
  return { method: 'POST', path: '/api/timestamp', headers: { 'content-type': 'application/json', authorization: sign(body) }, body };
}
