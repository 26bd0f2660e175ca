// Every operation the OpenAPI document lists says what it takes and what it answers: its path
// parameters, its query where it reads one, a body schema for every POST, and a response schema
// for its success status. The same schemas validate the requests (src/http/validation.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Operation {
  parameters?: { in: string; name: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

let s: TestServer;
let paths: Record<string, Record<string, Operation>>;
beforeAll(async () => {
  s = await startTestServer();
  paths = ((await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as { paths: typeof paths }).paths;
});
afterAll(() => s?.close());

// Operations that read a query string: each must describe it.
const QUERIES: Record<string, string[]> = {
  'GET /api/document': ['from', 'to', 'limit', 'nextToken'],
  'POST /developers/template/pdf': ['name'],
};

function operations() {
  return Object.entries(paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, path, method, op })),
  );
}

describe('OpenAPI coverage', () => {
  it('lists the operations (sanity: the walk below sees them)', () => {
    expect(operations().length).toBeGreaterThan(40);
  });

  it('every operation describes its request: path parameters, query, and a body for every POST', () => {
    const missing: string[] = [];
    for (const { id, path, method, op } of operations()) {
      const described = new Set((op.parameters ?? []).filter((p) => p.schema).map((p) => `${p.in}:${p.name}`));
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        if (!described.has(`path:${name}`)) {
          missing.push(`${id}: path parameter ${name}`);
        }
      }
      for (const name of QUERIES[id] ?? []) {
        if (!described.has(`query:${name}`)) {
          missing.push(`${id}: query parameter ${name}`);
        }
      }
      if (method === 'post' && !Object.values(op.requestBody?.content ?? {}).some((c) => c.schema)) {
        missing.push(`${id}: body schema`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every operation has a response schema for its success status', () => {
    const missing: string[] = [];
    for (const { id, op } of operations()) {
      const success = Object.entries(op.responses ?? {}).filter(([status]) => /^2/.test(status));
      if (!success.some(([, r]) => Object.values(r.content ?? {}).some((c) => c.schema))) {
        missing.push(id);
      }
    }
    expect(missing).toEqual([]);
  });
});
