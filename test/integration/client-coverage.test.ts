// The client offers every operation integrators call with their API key: each HMAC-authenticated
// operation of the service's OpenAPI document has a method in src/client/index.ts that calls it.
// The methods' calls are read from the source (method and path template, `${seg(x)}` standing for a
// path parameter), so an operation added to the server without a client method fails here by name.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let spec: { paths: Record<string, Record<string, { security?: unknown[] }>> };
beforeAll(async () => {
  s = await startTestServer();
  spec = await (await fetch(`${s.baseUrl}/openapi.json`)).json();
});
afterAll(() => s?.close());

/** "METHOD /path/{}" of every call the client makes (path parameters and query strings blanked). */
function clientCalls(): Set<string> {
  const source = readFileSync(new URL('../../src/client/index.ts', import.meta.url), 'utf8');
  const calls = new Set<string>();
  // A query string (`?name=…`, `${qs ? … : ''}`) is not part of the operation; `${…}` in the path is a parameter.
  const normal = (path: string) =>
    path
      .replace(/\$\{qs.*$/, '')
      .replace(/\?.*$/, '')
      .replace(/\$\{[^}]*\}/g, '{}');
  for (const [, method, path] of source.matchAll(
    /this\.(?:request|raw)(?:<.*?>)?\(\s*'([A-Z]+)',\s*(?:withQuery\(\s*)?[`']([^`']+)[`']/g,
  )) {
    calls.add(`${method} ${normal(path)}`);
  }
  for (const [, path] of source.matchAll(/this\.(?:upload|uploadForBytes|rawUpload)(?:<[^>]*>)?\(\s*[`']([^`']+)[`']/g)) {
    calls.add(`POST ${normal(path)}`);
  }
  for (const [, path] of source.matchAll(/this\.getBytes\(\s*[`']([^`']+)[`']/g)) {
    calls.add(`GET ${normal(path)}`);
  }
  return calls;
}

/** Other spellings of one operation the specification keeps (the client calls the first). */
const ALIASES: Record<string, string> = {
  'POST /developers/delete': 'POST /developers/docs',
  'POST /developers/restore': 'POST /developers/docs',
  'POST /api/document/{}/endorsment': 'POST /api/document/{}/endorse',
};

/** The operations an API key calls: those of the OpenAPI document that are not public (security: []). */
function keyOperations(): string[] {
  return Object.entries(spec.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(
        ([method, op]) =>
          ['get', 'post', 'put', 'patch', 'delete'].includes(method) && !(Array.isArray(op.security) && op.security.length === 0),
      )
      .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`),
  );
}

describe('client coverage', () => {
  it('reads the client and the API (sanity: both sides are seen)', () => {
    expect(clientCalls().size).toBeGreaterThan(25);
    expect(keyOperations().length).toBeGreaterThan(25);
  });

  it('has a method for every operation an API key calls', () => {
    const calls = clientCalls();
    const missing = keyOperations().filter((op) => !calls.has(ALIASES[op] ?? op));
    expect(missing, `operations without a client method:\n${missing.join('\n')}`).toEqual([]);
  });
});
