// Whether a 401 tells an unknown web id from a known one with a wrong signature (decisions.md: the
// same time whatever the reason). Sequential requests, the two kinds interleaved and alternating
// which goes first, so drift of the machine falls on both alike; the medians are compared.
import { percentile } from './load.js';

export async function authTimingPairs(baseUrl: string, webId: string, pairs = 200): Promise<void> {
  const target = '/api/document?limit=1';
  const signature = Buffer.alloc(32).toString('base64');
  const once = async (id: string) => {
    const start = performance.now();
    const res = await fetch(baseUrl + target, { headers: { authorization: `svc ${id}:${signature}` } });
    await res.arrayBuffer();
    if (res.status !== 401) {
      throw new Error(`expected 401, got ${res.status}`);
    }
    return performance.now() - start;
  };
  const unknown: number[] = [];
  const known: number[] = [];
  for (let i = 0; i < 20; i++) {
    await once('unknown-web-id');
    await once(webId);
  }
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      unknown.push(await once('unknown-web-id'));
      known.push(await once(webId));
    } else {
      known.push(await once(webId));
      unknown.push(await once('unknown-web-id'));
    }
  }
  // percentile() reads a sorted list.
  unknown.sort((a, b) => a - b);
  known.sort((a, b) => a - b);
  const mu = percentile(unknown, 50);
  const mk = percentile(known, 50);
  console.log(
    `   401 timing, ${pairs} interleaved pairs: unknown web id p50 ${mu.toFixed(3)} ms, known web id with a wrong signature ` +
      `p50 ${mk.toFixed(3)} ms, ratio ${(mu / mk).toFixed(3)}`,
  );
}
