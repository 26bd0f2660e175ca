// Whether a 401 tells an unknown web id from a known one with a wrong signature (decisions.md: the
// same time whatever the reason). Sequential requests, the two kinds interleaved and alternating
// which goes first, so drift of the machine falls on both alike; the medians are compared. And the
// floors that hold those answers (http/answer-floor.ts): the quickest 401 against
// UNAUTHORIZED_FLOOR_MS, and "send me a link" for a known and unknown addresses against
// LINK_REQUEST_FLOOR_MS. The tests check that each answer takes its floor; the times are here.
import { LINK_REQUEST_FLOOR_MS } from '../src/domain/panel/panel-settings.js';
import { UNAUTHORIZED_FLOOR_MS } from '../src/http/auth.js';
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
  const quickest = Math.min(unknown[0], known[0]);
  console.log(
    `   401 floor ${UNAUTHORIZED_FLOOR_MS} ms: quickest 401 of ${2 * pairs} took ${quickest.toFixed(3)} ms` +
      (quickest < UNAUTHORIZED_FLOOR_MS - 1 ? '  BELOW THE FLOOR' : ''),
  );
}

/**
 * "Send me a link" for the panel: a known address against unknown ones, interleaved. Three of each:
 * the service allows 3 requests per address and 10 per client address in 15 minutes.
 */
export async function signInLinkTiming(baseUrl: string, knownEmail: string): Promise<void> {
  const once = async (email: string) => {
    const start = performance.now();
    const res = await fetch(`${baseUrl}/panel/api/sign-in/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, language: 'en' }),
    });
    await res.arrayBuffer();
    if (res.status !== 202) {
      throw new Error(`expected 202, got ${res.status}`);
    }
    return performance.now() - start;
  };
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 3; i++) {
    if (i % 2 === 0) {
      known.push(await once(knownEmail));
      unknown.push(await once(`nobody-${i}@example.com`));
    } else {
      unknown.push(await once(`nobody-${i}@example.com`));
      known.push(await once(knownEmail));
    }
  }
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
  const quickest = Math.min(...known, ...unknown);
  console.log(
    `   sign-in link floor ${LINK_REQUEST_FLOOR_MS} ms: known address ${fmt(known)} ms, unknown ${fmt(unknown)} ms` +
      (quickest < LINK_REQUEST_FLOOR_MS - 1 ? '  BELOW THE FLOOR' : ''),
  );
}
