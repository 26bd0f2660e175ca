// What every integrator and operator sees around the operations: OpenAPI, the reference page,
// error shapes, limits, rate limiting, and logs free of secrets and document bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import type { Clock } from '../../src/domain/deps.js';
import { buildApp } from '../../src/http/app.js';
import { openDb } from '../../src/store/db.js';
import { HOUR, MINUTE, nextWholeHour } from '../helpers/dates.js';
import { makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Whole hours from the next one after the run starts: the rate limit counts per clock minute.
const T = nextWholeHour();
let now = T + 10_000;
const clock: Clock = { now: () => new Date(now) };
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ clock, env: { SELLO_RATE_LIMIT_PER_MINUTE: '20', SELLO_MAX_JSON_MB: '1' } });
});
afterAll(() => s?.close());

describe('OpenAPI and reference', () => {
  it('serves an OpenAPI 3.1 document generated from the routes', async () => {
    const res = await fetch(`${s.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const [path, method] of [
      ['/developers/json', 'post'],
      ['/api/document', 'get'],
      ['/api/document/{type}/{ticket}', 'get'],
      ['/developers/docs', 'post'],
      ['/api/documentset', 'post'],
      ['/api/documentset/{uuid}', 'get'],
      ['/api/pdf/pageData', 'post'],
      ['/healthz', 'get'],
    ]) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    const create = doc.paths['/developers/json'].post as { requestBody: { content: Record<string, { schema: { properties: object } }> } };
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['b64_doc', 'url_doc', 'stickers', 'document_set', 'workflow']),
    );
  });
  it('renders a reference page at /docs', async () => {
    const res = await fetch(`${s.baseUrl}/docs/`, { redirect: 'follow' });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/swagger-ui/i);
  });
});

describe('metrics', () => {
  it('counts requests by route pattern, never by raw URL', async () => {
    await s.client.raw('GET', '/api/document/source/some-secret-ticket');
    const text = await (await fetch(`${s.baseUrl}/metrics`)).text();
    expect(text).toMatch(/sello_http_requests_total\{method="GET",route="\/api\/document\/:type\/:ticket",status="404"\} 1/);
    expect(text).not.toContain('some-secret-ticket');
    expect(text).toMatch(/process_cpu_user_seconds_total/);
  });
});

describe('errors', () => {
  it('answers an unknown route with the error shape', async () => {
    const res = await fetch(`${s.baseUrl}/api/nothing-here`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'ROUTE_NOT_FOUND', message: 'no route GET /api/nothing-here' } });
  });
  it('answers 503 SERVICE_UNAVAILABLE, not 500, when the database is down', async () => {
    // A pool aimed at a port nobody listens on: every connection is refused.
    const handle = openDb('postgres://sello:x@127.0.0.1:1/none', 1);
    const app = await buildApp({ ...s.deps, db: handle.db }, { logStream: new Writable({ write: (_c, _e, cb) => cb() }) });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/document', headers: { authorization: 'svc someone:AAAA' } });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE');
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(503);
    } finally {
      await app.close();
      await handle.close();
    }
  });
  it('answers 413 for a JSON body over the limit', async () => {
    const r = await s.client.raw('POST', '/developers/json', { b64_doc: 'A'.repeat(1024 * 1024 + 100) });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text).error.code).toBe('BODY_TOO_LARGE');
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After past the limit a minute, per account, and recovers in the next minute', async () => {
    const other = await s.newAccount();
    now = T + MINUTE + 10_000;
    let limited: { status: number; headers: Headers; text: string } | undefined;
    for (let i = 0; i < 25 && !limited; i++) {
      const r = await s.client.raw('GET', '/api/document?limit=1');
      if (r.status === 429) {
        limited = r;
      }
    }
    expect(limited?.status).toBe(429);
    expect(limited?.headers.get('retry-after')).toBe('50');
    expect(JSON.parse(limited!.text).error.code).toBe('RATE_LIMITED');
    expect((await other.client.raw('GET', '/api/document?limit=1')).status).toBe(200);
    now = T + 2 * MINUTE;
    expect((await s.client.raw('GET', '/api/document?limit=1')).status).toBe(200);
  });
});

describe('logs', () => {
  it('carry request ids and never keys, signatures, bodies or document bytes', async () => {
    const pdf = await makePdf();
    const b64 = pdf.toString('base64');
    now = T + HOUR;
    const r = await s.client.createDocument({
      b64_doc: b64,
      stickers: [{ authority: 'EMAIL_LINK', data: 'secret.person@example.com', page: 0, rect: { lx: 1, ly: 1, tx: 50, ty: 50 } }],
    });
    const text = s.logs.join('');
    expect(text).toMatch(/"url":"\/developers\/json"/);
    expect(text).toMatch(/"reqId":"[0-9a-f-]{36}"/);
    expect(text).not.toContain(s.creds.apiKey);
    expect(text).not.toContain(b64.slice(0, 40));
    expect(text).not.toContain('secret.person@example.com');
    expect(text).not.toContain(r.stickers[0].signer_url.split('/').pop()!);
    expect(text).not.toMatch(/authorization/i);
  });
  it('never carry a signing link token', async () => {
    const token = 'A'.repeat(43);
    await fetch(`${s.baseUrl}/sign/api/${token}`);
    await fetch(`${s.baseUrl}/sign/${token}`);
    const text = s.logs.join('');
    expect(text).toContain('"url":"/sign/api/…"');
    expect(text).not.toContain(token);
  });
});

describe('GET /', () => {
  it('is a small page for people: what this is, links to the reference, OpenAPI, health; loads nothing', async () => {
    const res = await fetch(`${s.baseUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    for (const link of ['href="/docs"', 'href="/openapi.json"', 'href="/healthz"', 'examples/quickstart.mjs']) {
      expect(html).toContain(link);
    }
    expect(html).not.toMatch(/<script|<img|<link/);
  });
});

describe('log format', () => {
  it('pretty: one readable line per request, the query and signing tokens still hidden', async () => {
    const p = await startTestServer({ env: { SELLO_LOG_FORMAT: 'pretty', SELLO_LOG_LEVEL: 'info' } });
    try {
      await fetch(`${p.baseUrl}/healthz`);
      await p.client.raw('GET', '/api/document?limit=1');
      const lines = p.logs.join('').split('\n');
      expect(lines.filter((l) => /GET \/healthz 200 [\d.]+ ms/.test(l))).toHaveLength(1);
      expect(lines.filter((l) => /GET \/api\/document\?… 200 [\d.]+ ms/.test(l))).toHaveLength(1);
      expect(p.logs.join('')).not.toContain('incoming request');
      expect(p.logs.join('')).not.toContain('limit=1');
      expect(p.logs.join('')).not.toMatch(/^\{/m);
    } finally {
      await p.close();
    }
  });
});
