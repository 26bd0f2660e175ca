// Text PostgreSQL cannot store, refused or neutralised before any route sees it. PostgreSQL refuses
// a NUL character in text and jsonb, and UTF-8 has no encoding for a lone UTF-16 surrogate (which
// JSON's \ud800 escapes and percent-decoding can produce): either would reach a query and fail
// there as a 500. Every string of a request is checked here once, whatever the route.
import type { FastifyRequest } from 'fastify';
import { invalid } from '../domain/errors.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A NUL, or UTF-16 that is not well formed (a lone surrogate). */
export function unstorable(text: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  return text.includes('\u0000') || LONE_SURROGATE.test(text);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function member(path: string, key: string): string {
  const safe = IDENTIFIER.test(key) ? key : JSON.stringify(key.replaceAll('\u0000', '?').replace(LONE_SURROGATE, '?'));
  return path ? (IDENTIFIER.test(key) ? `${path}.${safe}` : `${path}[${safe}]`) : safe;
}

/**
 * The field path (stickers[0].name, workflow.subject) of the first string or key of `value` that
 * cannot be stored, or undefined. Iterative: a deeply nested body must not exhaust the stack.
 */
export function firstUnstorable(value: unknown, root = ''): string | undefined {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (unstorable(v)) {
        return path || 'body';
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push([v[i], `${path}[${i}]`]);
      }
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        if (unstorable(key)) {
          return `${member(path, key)} (a key)`;
        }
        stack.push([child, member(path, key)]);
      }
    }
  }
  return undefined;
}

const REFUSAL = 'contains a NUL character or malformed Unicode (a lone surrogate)';

/** 400 naming the field when the body or the query string holds text that cannot be stored. */
export function refuseUnstorableInput(req: FastifyRequest): void {
  const inQuery = firstUnstorable(req.query);
  if (inQuery !== undefined) {
    throw invalid(inQuery, REFUSAL);
  }
  const inBody = firstUnstorable(req.body);
  if (inBody !== undefined) {
    throw invalid(inBody, REFUSAL);
  }
}

/**
 * Path parameters are identifiers (tickets, set uuids, tokens, template names): none that exists
 * holds a NUL or a lone surrogate, nor U+0001 (identifiers are random base64url or UUIDs, and a
 * template name may not contain control characters). Each such character becomes U+0001, which
 * PostgreSQL stores, so the route looks the identifier up and answers exactly as for any unknown
 * one: its own 404 code, as JSON or as the HTML page it serves.
 */
export function neutralizeUnstorableParams(req: FastifyRequest): void {
  const params = req.params as Record<string, unknown> | undefined;
  if (!params) {
    return;
  }
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'string' && unstorable(value)) {
      params[key] = value.replaceAll('\u0000', '\u0001').replace(LONE_SURROGATE, '\u0001');
    }
  }
}
