// The served OpenAPI document passes Redocly's linter with its "recommended" rules, run in process
// and offline (nothing is fetched: the document is linted from the string the server answered).
// No error is allowed, and no warning but the few listed below, each with the reason it stays.
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Warnings that describe the service as it is, by rule and the path they are reported at.
const ACCEPTED_WARNINGS: Record<string, { paths: string[]; why: string }> = {
  'no-ambiguous-paths': {
    why:
      'the paths are the interface of the specification (spec/interface.md), which clients already call; ' +
      'Fastify matches a static segment before a parameter, so each request has one route',
    paths: [
      '/sign/api/document/{ticket}',
      '/sign/api/set/{token}',
      '/api/{uuid}/workflowSet',
      '/api/{documentId}/workflow',
      '/api/{documentId}/signer/{signerId}/update',
      '/api/subscriptions/{id}',
      // Against /api/{uuid}/workflowSet: "bulk" is static there (decisions.md "Bulk send").
      '/api/bulk/{bulk_id}',
      // Against /api/{documentId}/signer/{signerId}/update: "document" and "endorsements" are static there.
      '/api/document/{ticket}/endorsements/{endorsement_id}',
    ],
  },
  'operation-4xx-response': {
    why:
      'these operations have no client error to report: the landing page, the health check and the PKI files ' +
      'answer whatever the request, and an OCSP responder answers a malformed request with an OCSP ' +
      'malformedRequest response (RFC 6960 §2.3), not an HTTP error',
    paths: ['/', '/healthz', '/pki/ca.pem', '/pki/chain.pem', '/pki/issuing.cer', '/pki/crl', '/pki/root-crl', '/pki/ocsp/{request}'],
  },
};

interface Media {
  schema?: { examples?: unknown[] };
  example?: unknown;
  examples?: Record<string, unknown>;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
}

let s: TestServer;
let doc: { paths: Record<string, Record<string, Operation>> };
let problems: NormalizedProblem[];
beforeAll(async () => {
  // A deployed server names its public address; the test server would otherwise name localhost,
  // which the linter rightly flags in a published document (no-server-example.com).
  s = await startTestServer({ env: { SELLO_PUBLIC_URL: 'https://sign.sello.test' } });
  const res = await fetch(`${s.baseUrl}/openapi.json`);
  expect(res.status).toBe(200);
  const source = await res.text();
  doc = JSON.parse(source);
  const config = await createConfig({ extends: ['recommended'] });
  problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
});
afterAll(() => s?.close());

/** The path of the document's `paths` a problem is under, e.g. `/pki/crl`. */
function pathOf(p: NormalizedProblem): string | undefined {
  const m = /^#\/paths\/([^/]+)/.exec(p.location[0]?.pointer ?? '');
  return m ? m[1].replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

function describeProblem(p: NormalizedProblem): string {
  return `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`;
}

describe('OpenAPI lint (Redocly recommended)', () => {
  it('has no errors', () => {
    expect(problems.filter((p) => p.severity === 'error').map(describeProblem)).toEqual([]);
  });

  it('has no warnings but the accepted ones', () => {
    const unexpected = problems.filter((p) => p.severity === 'warn' && !ACCEPTED_WARNINGS[p.ruleId]?.paths.includes(pathOf(p) ?? ''));
    expect(unexpected.map(describeProblem)).toEqual([]);
  });

  it('still reports each accepted warning (the list shrinks when one is fixed)', () => {
    const reported = new Set(problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId} ${pathOf(p)}`));
    const stale = Object.entries(ACCEPTED_WARNINGS).flatMap(([rule, { paths }]) =>
      paths.filter((path) => !reported.has(`${rule} ${path}`)).map((path) => `${rule} ${path}`),
    );
    expect(stale).toEqual([]);
  });

  it('every operation has a camelCase operationId, tags and its security stated', () => {
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const id = `${method.toUpperCase()} ${path}`;
        if (!/^[a-z][A-Za-z0-9]*$/.test(op.operationId ?? '')) {
          missing.push(`${id}: operationId ${op.operationId}`);
        }
        if (!op.tags?.length) {
          missing.push(`${id}: tags`);
        }
        // Public operations say so with an empty list; the API's say which scheme (hmac).
        // The providers' callbacks (channels/, identity/provider/) carry the provider's own signature, checked by the route.
        const publicPath =
          /^\/(sign\/|document\/|download\/|certified-email\/|verify\/|verify$|pki\/|channels\/|identity\/provider\/|tsa$|healthz$|$)/.test(
            path,
          );
        if (JSON.stringify(op.security) !== (publicPath ? '[]' : '[{"hmac":[]}]')) {
          missing.push(`${id}: security ${JSON.stringify(op.security)}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('every JSON request body and JSON success response carries an example', () => {
    const hasExample = (m: Media) => m.example !== undefined || !!m.examples || !!m.schema?.examples?.length;
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const id = `${method.toUpperCase()} ${path}`;
        const body = op.requestBody?.content?.['application/json'];
        // A POST that carries nothing (an empty object at most) has nothing to show.
        const empty = Object.keys((body?.schema as { properties?: object } | undefined)?.properties ?? {}).length === 0;
        if (body && !empty && !hasExample(body)) {
          missing.push(`${id}: request`);
        }
        for (const [status, r] of Object.entries(op.responses ?? {})) {
          const json = r.content?.['application/json'];
          if (/^2/.test(status) && json && !hasExample(json)) {
            missing.push(`${id}: response ${status}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('the linter does find problems (a document without operation ids is refused)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const bad = {
      openapi: '3.1.0',
      info: { title: 't', version: '1', license: { name: 'MIT', identifier: 'MIT' } },
      servers: [{ url: 'https://sign.sello.test' }],
      paths: { '/x': { get: { responses: { '200': { description: 'ok' }, '400': { description: 'no' } } } } },
    };
    const found = await lintFromString({ source: JSON.stringify(bad), absoluteRef: 'bad.json', config });
    expect(found.map((p) => p.ruleId)).toEqual(expect.arrayContaining(['operation-operationId', 'security-defined']));
  });
});
