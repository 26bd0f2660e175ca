// The rate limits hold across processes: two counters on one database (as two `sello api` processes
// behind a balancer) are together refused past the limit once they have exchanged their counts,
// each process writes only its own row of a key (no hot row), ended windows are swept, and counts
// an exchange could not deliver are delivered by the next one.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloClient } from '../../src/client/index.js';
import type { Clock } from '../../src/domain/deps.js';
import { buildApp } from '../../src/http/app.js';
import { SharedRequestCounts, createRateLimiter } from '../../src/http/rate-limit.js';
import { openDb, type DbHandle } from '../../src/store/db.js';
import { MINUTE, nextWholeHour } from '../helpers/dates.js';
import { createTestDatabase, startTestServer, type TestServer } from '../helpers/server.js';

const T = nextWholeHour();
let now = T + 5_000;
const nowMs = () => now;

let database: { url: string; drop: () => Promise<void> };
let handle: DbHandle;
beforeAll(async () => {
  database = await createTestDatabase();
  handle = openDb(database.url, 4);
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

async function rows(key: string) {
  const r = await sql<{ node: string; count: number }>`select node::text, count from rate_counts where key = ${key} order by node`.execute(
    handle.db,
  );
  return r.rows;
}

describe('counts shared through the database', () => {
  it('two processes are together refused past the limit, each after its next exchange', async () => {
    now = T + 5_000;
    const a = new SharedRequestCounts({ db: handle.db, nowMs });
    const b = new SharedRequestCounts({ db: handle.db, nowMs });
    const limitA = createRateLimiter(a, { scope: 'account', perWindow: 10 });
    const limitB = createRateLimiter(b, { scope: 'account', perWindow: 10 });
    const answersA = Array.from({ length: 6 }, () => limitA('acct-1'));
    expect(answersA).toEqual([0, 0, 0, 0, 0, 0]);
    await a.flush();
    await b.flush(); // b has seen nothing yet: it learns nothing, and tells nothing
    // b counts its own from here; it learns a's 6 at its first exchange that names the key.
    expect(limitB('acct-1')).toBe(0);
    await b.flush();
    const answersB = Array.from({ length: 5 }, () => limitB('acct-1'));
    // 6 (a) + 1 + 3 (b) = 10 accepted; the 11th of the cluster is refused, with the seconds left.
    expect(answersB).toEqual([0, 0, 0, 55, 55]);
    await b.flush();
    await a.flush();
    expect(limitA('acct-1')).toBe(55);
    // Another key is counted apart.
    expect(limitA('acct-2')).toBe(0);
    // Each process has its own row of the key, written once per exchange.
    const written = await rows('account:acct-1');
    expect(written.map((r) => r.count).sort()).toEqual([6, 6]);
    expect(new Set(written.map((r) => r.node))).toEqual(new Set([a.node, b.node]));
  });

  it('a new window starts from zero in every process, and ended windows are swept', async () => {
    now = T + MINUTE + 1_000;
    const a = new SharedRequestCounts({ db: handle.db, nowMs });
    const limit = createRateLimiter(a, { scope: 'sweep', perWindow: 2 });
    expect([limit('k'), limit('k'), limit('k')]).toEqual([0, 0, 59]);
    await a.flush();
    expect(await rows('sweep:k')).toHaveLength(1);
    now = T + 2 * MINUTE + 1_000;
    expect(limit('k')).toBe(0);
    now = T + 5 * MINUTE;
    expect(limit('other')).toBe(0);
    await a.flush();
    // The window of T+1 min ended more than two minutes ago: its rows are gone, whichever process wrote them.
    expect(await rows('sweep:k')).toEqual([]);
  });

  it('counts an exchange could not deliver are delivered by the next one', async () => {
    now = T + 10 * MINUTE + 1_000;
    const broken = openDb(database.url.replace(/\/[^/]*$/, '/no_such_database'), 1);
    const errors: unknown[] = [];
    const a = new SharedRequestCounts({ db: broken.db, nowMs, onError: (err) => errors.push(err) });
    const limit = createRateLimiter(a, { scope: 'retry', perWindow: 100 });
    for (let i = 0; i < 4; i++) {
      limit('k');
    }
    await a.flush();
    expect(errors).toHaveLength(1);
    await broken.close();
    // The same process's counts, now through a database that answers (as after a reconnection).
    (a as unknown as { opts: { db: unknown } }).opts.db = handle.db;
    limit('k');
    await a.flush();
    expect((await rows('retry:k')).map((r) => r.count)).toEqual([5]);
  });
});

describe('the API behind two processes', () => {
  const clock: Clock = { now: () => new Date(now) };
  let s: TestServer;
  let second: Awaited<ReturnType<typeof buildApp>>;
  let secondUrl: string;
  beforeAll(async () => {
    s = await startTestServer({ clock, env: { SELLO_RATE_LIMIT_PER_MINUTE: '8' } });
    // A second application on the same database, as a second `sello api` process.
    second = await buildApp(s.deps, { logStream: { write: () => true } as unknown as NodeJS.WritableStream });
    await second.listen({ port: 0, host: '127.0.0.1' });
    const addr = second.server.address();
    secondUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    await second?.close();
    await s?.close();
  });

  it('answers 429 through either process once the account has used the limit through both', async () => {
    now = T + 20 * MINUTE + 30_000;
    const viaSecond = new SelloClient({ baseUrl: secondUrl, ...s.creds });
    const get = async (client: SelloClient) => (await client.raw('GET', '/api/document?limit=1')).status;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(await get(s.client));
    }
    for (let i = 0; i < 4; i++) {
      statuses.push(await get(viaSecond));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    // Without sharing, each process would accept 4 more. After one exchange each, neither does.
    await s.app.requestCounts.flush();
    await second.requestCounts.flush();
    await s.app.requestCounts.flush();
    const limited = await viaSecond.raw('GET', '/api/document?limit=1');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(JSON.parse(limited.text).error.code).toBe('RATE_LIMITED');
    expect(await get(s.client)).toBe(429);
  });
});
