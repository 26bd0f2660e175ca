// docs/api.md and the served /openapi.json describe the same API: the same operations, the same
// fields for each, and the same error codes, which are those of the registry (domain/errors.ts)
// with the statuses http/errors.ts gives them. An operation, a field or a code added to one and not
// the other fails here, naming it. How the page is read: test/helpers/api-docs.ts.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/domain/errors.js';
import { statusOf } from '../../src/http/errors.js';
import {
  type ApiDocs,
  type Section,
  backtickedOperations,
  codesInProse,
  errorTable,
  namedWords,
  operationsIn,
  pathMatches,
  readApiDocs,
  statedFields,
} from '../helpers/api-docs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  patternProperties?: Record<string, Schema>;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
}
interface Operation {
  parameters?: { name: string }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

let s: TestServer;
let docs: ApiDocs;
const ops = new Map<string, Operation>();
const REGISTRY = Object.keys(ERROR_CODES).sort();

beforeAll(async () => {
  s = await startTestServer();
  const openapi = (await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
  for (const [path, byMethod] of Object.entries(openapi.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) {
        ops.set(`${method.toUpperCase()} ${path}`, op);
      }
    }
  }
  docs = readApiDocs(readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8'));
});
afterAll(() => s?.close());

/**
 * Operations the page names that the OpenAPI document leaves out on purpose: pages for people (the
 * signer's, the panel's), the panel's own API (a cookie session, not the integrators' API), the
 * reference and metrics, and the final-slash spellings older clients send.
 */
const OUTSIDE_OPENAPI = [
  /^GET \/panel$/,
  /^(GET|POST|DELETE) \/panel\/api\//,
  /^GET \/sign\/(set\/)?\{token\}$/,
  /^GET \/document\/\{ticket\}$/,
  /^GET \/(docs|openapi\.json|metrics)$/,
  /^POST \/developers\/(delete|restore)\/$/,
];

/** The operation of /openapi.json a `METHOD /path` of the page is, as the router would match it (literal segments first). */
function resolve(named: string): string | undefined {
  if (ops.has(named)) {
    return named;
  }
  const [method, path] = named.split(' ');
  return [...ops.keys()]
    .filter((id) => id.startsWith(`${method} `) && pathMatches(path, id.slice(method.length + 1)))
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
}

/** Every operation the page names, each with the line it is named on. */
function namedOperations(): { named: string; line: number }[] {
  const out: { named: string; line: number }[] = [];
  docs.lines.forEach((line, i) => {
    if (docs.fenced[i]) {
      return;
    }
    const heading = /^(#{2,4} |(\d+\. )?\*\*)/.test(line) ? operationsIn(line) : [];
    for (const named of [...heading, ...backtickedOperations(line)]) {
      out.push({ named, line: i + 1 });
    }
  });
  return out;
}

/**
 * Where each operation is described: the sections whose heading names it; else the section (###)
 * that names it most often, outside the overview table of "What is available".
 */
function homes(): Map<string, Section[]> {
  const home = new Map<string, Section[]>();
  for (const section of docs.sections) {
    for (const id of operationsIn(section.heading).map(resolve)) {
      if (id) {
        home.set(id, [...(home.get(id) ?? []), section]);
      }
    }
  }
  const overview = docs.sections.find((x) => x.heading === 'What is available')!;
  const counts = new Map<string, Map<Section, number>>();
  docs.lines.forEach((line, i) => {
    const section = docs.sections.filter((x) => x.level <= 3 && x.start <= i && i < x.end).pop();
    if (docs.fenced[i] || !section || section === overview) {
      return;
    }
    for (const id of backtickedOperations(line).map(resolve)) {
      if (id && !home.has(id)) {
        const c = counts.get(id) ?? new Map<Section, number>();
        counts.set(id, c.set(section, (c.get(section) ?? 0) + 1));
      }
    }
  });
  for (const [id, c] of counts) {
    home.set(id, [[...c].sort((a, b) => b[1] - a[1])[0][0]]);
  }
  return home;
}

/** Every property name of an operation: path and query parameters, the body, the answers of 2xx. */
function fieldsOf(op: Operation): Set<string> {
  const out = new Set((op.parameters ?? []).map((p) => p.name));
  const walk = (x: Schema | undefined, depth: number) => {
    if (!x || depth > 20) {
      return;
    }
    for (const [name, sub] of Object.entries(x.properties ?? {})) {
      out.add(name);
      walk(sub, depth + 1);
    }
    for (const sub of [x.items, typeof x.additionalProperties === 'object' ? x.additionalProperties : undefined]) {
      walk(sub, depth + 1);
    }
    for (const sub of [...(x.anyOf ?? []), ...(x.oneOf ?? []), ...(x.allOf ?? []), ...Object.values(x.patternProperties ?? {})]) {
      walk(sub, depth + 1);
    }
  };
  for (const media of Object.values(op.requestBody?.content ?? {})) {
    walk(media.schema, 0);
  }
  for (const [status, answer] of Object.entries(op.responses ?? {})) {
    if (/^2/.test(status)) {
      for (const media of Object.values(answer.content ?? {})) {
        walk(media.schema, 0);
      }
    }
  }
  return out;
}

/** The schemas of an operation's body and 2xx answers, and every object schema inside them: an example may show a part. */
function objectSchemas(op: Operation): Schema[] {
  const out: Schema[] = [];
  const walk = (x: Schema | undefined, depth: number) => {
    if (!x || depth > 20) {
      return;
    }
    if (x.properties) {
      out.push(x);
    }
    for (const sub of [...Object.values(x.properties ?? {}), x.items, ...(x.anyOf ?? []), ...(x.oneOf ?? []), ...(x.allOf ?? [])]) {
      walk(sub, depth + 1);
    }
  };
  const media = [
    ...Object.values(op.requestBody?.content ?? {}),
    ...Object.entries(op.responses ?? {}).flatMap(([status, r]) => (/^2/.test(status) ? Object.values(r.content ?? {}) : [])),
  ];
  for (const m of media) {
    walk(m.schema, 0);
  }
  return out;
}

/** What a schema says of the member `key`: its schemas, or "anything" where the object is open to any key. */
function memberOf(x: Schema, key: string): Schema[] | 'open' {
  const alternatives = [...(x.anyOf ?? []), ...(x.oneOf ?? []), ...(x.allOf ?? [])];
  if (!x.properties && alternatives.length === 0 && !x.items) {
    // A value of any shape (metadata, an entry's details): any key may be shown.
    return 'open';
  }
  const found: Schema[] = [];
  for (const alt of alternatives) {
    const m = memberOf(alt, key);
    if (m === 'open') {
      return 'open';
    }
    found.push(...m);
  }
  if (x.properties?.[key]) {
    found.push(x.properties[key]);
  } else if (x.additionalProperties === true || typeof x.additionalProperties === 'object' || x.patternProperties) {
    return 'open';
  }
  return found;
}

/**
 * The keys of a JSON example that no schema has where the example puts them, judged from the root
 * that fits it best (an example may be a whole body or answer, or one part of it, like a sticker).
 */
function unknownKeys(example: unknown, roots: Schema[]): string[] {
  const walk = (value: unknown, schemas: Schema[], path: string): string[] => {
    if (Array.isArray(value)) {
      const items = schemas.flatMap((x) => [
        ...(x.items ? [x.items] : []),
        ...[...(x.anyOf ?? []), ...(x.oneOf ?? [])].flatMap((y) => (y.items ? [y.items] : [])),
      ]);
      return value.flatMap((v, i) => walk(v, items, `${path}[${i}]`));
    }
    if (typeof value !== 'object' || value === null || schemas.length === 0) {
      return [];
    }
    return Object.entries(value).flatMap(([key, v]) => {
      // `"...": "..."` elides the rest of an object.
      if (/^(\.\.\.|…)$/.test(key)) {
        return [];
      }
      const members = schemas.map((x) => memberOf(x, key));
      if (members.includes('open')) {
        return [];
      }
      const subs = members.flat() as Schema[];
      const at = path ? `${path}.${key}` : key;
      return subs.length === 0 ? [at] : walk(v, subs, at);
    });
  };
  const verdicts = roots.map((root) => walk(example, [root], ''));
  return verdicts.sort((a, b) => a.length - b.length)[0] ?? Object.keys(example ?? {});
}

/** Words the page names where it describes an operation: its sections and the sections they link to. */
function documentedWords(sections: Section[]): Set<string> {
  const words = new Set<string>();
  const linked = sections.flatMap((x) =>
    docs.lines
      .slice(x.start, x.end)
      .flatMap((line) => [...line.matchAll(/\]\(#([^)]+)\)/g)].map((m) => docs.sections.find((y) => y.slug === m[1])))
      .filter((y): y is Section => y !== undefined),
  );
  for (const x of [...sections, ...linked]) {
    for (const w of namedWords(docs, x.start, x.end)) {
      words.add(w);
    }
  }
  return words;
}

describe('docs/api.md and /openapi.json', () => {
  it('reads the page (sanity: the parser sees its operations, fields and codes)', () => {
    expect(ops.size).toBeGreaterThan(80);
    expect(new Set(namedOperations().map((x) => x.named)).size).toBeGreaterThan(80);
    expect(homes().size).toBe(ops.size);
    expect(errorTable(docs).size).toBeGreaterThan(50);
  });

  it('every operation the page names is served: in /openapi.json, or a route kept out of it on purpose', async () => {
    const unknown: string[] = [];
    for (const { named, line } of namedOperations()) {
      if (resolve(named)) {
        continue;
      }
      if (!OUTSIDE_OPENAPI.some((re) => re.test(named))) {
        unknown.push(`docs/api.md:${line}: ${named} (not in /openapi.json)`);
        continue;
      }
      // Left out on purpose, but served: the router answers anything but 404 ROUTE_NOT_FOUND. The
      // values are placeholders: without a key, a session or a real token nothing changes.
      const [method, path] = named.split(' ');
      const res = await s.app.inject({
        method: method as 'GET',
        url: path.replace(/\{\w+\}/g, 'x'),
        ...(method === 'GET' ? {} : { payload: {} }),
      });
      if (res.statusCode === 404 && res.body.includes('ROUTE_NOT_FOUND')) {
        unknown.push(`docs/api.md:${line}: ${named}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('every operation of /openapi.json is named in the page, in a section that describes it', () => {
    const named = new Set(namedOperations().map((x) => resolve(x.named)));
    const home = homes();
    expect([...ops.keys()].filter((id) => !named.has(id) || !home.has(id))).toEqual([]);
  });

  it("every field of an operation's schemas is named where the page describes the operation", () => {
    const missing: string[] = [];
    for (const [id, sections] of homes()) {
      const words = documentedWords(sections);
      const absent = [...fieldsOf(ops.get(id)!)].filter((f) => !(f.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).every((w) => words.has(w)));
      if (absent.length > 0) {
        missing.push(`${id} (${sections.map((x) => x.heading).join('; ')}): ${absent.join(', ')}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every field the page states for an operation (field tables, JSON examples) is in its schemas', () => {
    const home = homes();
    const extra: string[] = [];
    for (const section of new Set([...home.values()].flat())) {
      const described = (line: number) => [...home].filter(([, xs]) => xs.some((x) => x.start < line && line <= x.end)).map(([id]) => id);
      const stated = statedFields(docs, section.start, section.end);
      for (const { field, line } of stated.fields) {
        if (!described(line).some((id) => fieldsOf(ops.get(id)!).has(field))) {
          extra.push(`docs/api.md:${line}: ${field} (${described(line).join(', ')})`);
        }
      }
      for (const example of stated.examples) {
        const ids = described(example.line);
        const unknown =
          example.value === undefined
            ? example.keys.filter((k) => !ids.some((id) => fieldsOf(ops.get(id)!).has(k)))
            : unknownKeys(
                example.value,
                ids.flatMap((id) => objectSchemas(ops.get(id)!)),
              );
        extra.push(...unknown.map((k) => `docs/api.md:${example.line}: ${k} (${ids.join(', ')})`));
      }
    }
    expect([...new Set(extra)]).toEqual([]);
  });

  it('the codes under "Errors" are the registry, each with the status the service answers it with', () => {
    const table = errorTable(docs);
    expect([...table.keys()].sort()).toEqual(REGISTRY);
    expect([...table].filter(([code, status]) => statusOf(code as ErrorCode) !== status)).toEqual([]);
  });

  it('every code the text gives with a status is in the registry, with that status', () => {
    const wrong = codesInProse(docs)
      .filter(({ code, status }) => !(code in ERROR_CODES) || statusOf(code as ErrorCode) !== status)
      .map((x) => `docs/api.md:${x.line}: ${x.status} ${x.code}`);
    expect(wrong).toEqual([]);
  });

  it("the OpenAPI document's error code is an enum of the registry, on every operation's client errors", () => {
    const lists = [...ops].flatMap(([id, op]) =>
      Object.entries(op.responses ?? {})
        .filter(([status]) => /^4/.test(status))
        // A page's errors are a page (text/html); only JSON error bodies carry a code.
        .filter(([, answer]) => answer.content?.['application/json'])
        .map(([, answer]) => ({ id, codes: answer.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum })),
    );
    expect(lists.length).toBeGreaterThan(80);
    expect(lists.filter((x) => JSON.stringify([...((x.codes as string[]) ?? [])].sort()) !== JSON.stringify(REGISTRY))).toEqual([]);
  });
});
