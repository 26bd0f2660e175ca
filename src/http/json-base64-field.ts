// A large JSON body whose bulk is one Base64 string (the b64_doc of a 50 MB document is a 68 MB
// body) parsed without making that string. JSON.parse of the whole body holds the body's bytes, its
// text and the parsed string at once, three times 68 MB, before the Base64 is even decoded. Here
// the string's place in the bytes is found, the rest of the body is parsed with "" in its place,
// and the Base64 stays in the body's bytes until it is decoded (decodeBase64Ascii in
// domain/base64.ts), a slice at a time.
//
// Only where the outcome is certain to be JSON.parse's: the field once at the top level of an
// object, under its plain name, and its string made of printable ASCII without escapes, so that its
// value is its bytes and "" in its place parses exactly when the whole body does. Anything else (a
// "\/" escape, a raw line break, a non-ASCII byte, the key written with escapes) is parsed the
// ordinary way.

import type { FastifyRequest } from 'fastify';
import { jsonBodyOf } from './auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The route's Base64 field, left in the body's bytes by parseWithoutField; see takeBase64Field(). */
    base64Field: Buffer | undefined;
  }
  interface FastifyContextConfig {
    /** A top-level string field of the JSON body that may be a large Base64 (the create's b64_doc). */
    base64Field?: string;
  }
}

/**
 * The JSON body once its signature is checked: through parseWithoutField when the route names a
 * Base64 field and the body is large, else jsonBodyOf's. The signature check parses the body
 * itself only when the bytes did not match (the compact form); that parse is then kept.
 */
export function parsedBody(req: FastifyRequest): { ok: true; value: unknown } | { ok: false } {
  const raw = req.rawBody;
  const key = req.routeOptions.config?.base64Field;
  if (req.jsonBody === undefined && raw !== undefined && raw.length >= SPLIT_BODY_BYTES && key !== undefined) {
    let split: SplitBody | null;
    try {
      split = parseWithoutField(raw, key);
    } catch {
      req.jsonBody = { ok: false };
      return req.jsonBody;
    }
    if (split) {
      req.jsonBody = { ok: true, value: split.value };
      req.base64Field = split.field;
    }
  }
  return jsonBodyOf(req);
}

/** The route's Base64 field as bytes if parsedBody left it there (its value in the body is then ""); taken once, so it can be let go. */
export function takeBase64Field(req: FastifyRequest): Buffer | undefined {
  const field = req.base64Field;
  req.base64Field = undefined;
  return field;
}

/** Below this a body is parsed whole: the saving is nothing, and the common path stays one JSON.parse. */
export const SPLIT_BODY_BYTES = 1024 * 1024;

export interface SplitBody {
  /** The body as JSON.parse reads it, with "" as the field's value. */
  value: Record<string, unknown>;
  /** The field's string, as its bytes in the body (a view, not a copy). */
  field: Buffer;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The body without the field's string, or null when it must be parsed whole (see above). */
export function parseWithoutField(raw: Buffer, key: string): SplitBody | null {
  const keyToken = Buffer.from(JSON.stringify(key), 'utf8');
  const found = findTopLevelString(raw, keyToken);
  if (!found) {
    return null;
  }
  const [start, end] = found;
  const field = raw.subarray(start, end);
  for (let i = 0; i < field.length; i++) {
    // Printable ASCII only: '"' cannot occur (the string ends at the first), '\' would be an escape.
    const c = field[i];
    if (c < 0x20 || c > 0x7e || c === BACKSLASH) {
      return null;
    }
  }
  const text = raw.toString('utf8', 0, start) + raw.toString('utf8', end);
  // Throws as JSON.parse of the whole body would: the string left out was a valid JSON string.
  const value = JSON.parse(text) as Record<string, unknown>;
  return { value, field };
}

/**
 * [start, end) of the string value of `keyToken` (the key with its quotes) in the top-level object
 * of `raw`; null unless the key is there exactly once, unescaped, with a string value, and every
 * top-level key is written without escapes (an escaped one could be the same key).
 */
function findTopLevelString(raw: Buffer, keyToken: Buffer): [number, number] | null {
  const n = raw.length;
  let i = 0;
  while (i < n && isSpace(raw[i])) {
    i++;
  }
  if (raw[i] !== 0x7b) {
    return null; // not an object (or a byte-order mark, which JSON.parse refuses too)
  }
  let depth = 0;
  let expectKey = false;
  let found: [number, number] | null = null;
  for (; i < n; i++) {
    const c = raw[i];
    if (c === QUOTE) {
      const close = stringEnd(raw, i);
      if (close < 0) {
        return null;
      }
      if (depth === 1 && expectKey) {
        const token = raw.subarray(i, close + 1);
        if (token.includes(BACKSLASH)) {
          return null;
        }
        let j = close + 1;
        while (j < n && isSpace(raw[j])) {
          j++;
        }
        if (token.equals(keyToken) && raw[j] === 0x3a) {
          j++;
          while (j < n && isSpace(raw[j])) {
            j++;
          }
          if (found || raw[j] !== QUOTE) {
            return null; // twice, or not a string: the ordinary parse says what is wrong
          }
          const valueEnd = raw.indexOf(QUOTE, j + 1);
          if (valueEnd < 0) {
            return null;
          }
          found = [j + 1, valueEnd];
          i = valueEnd;
          expectKey = false;
          continue;
        }
        expectKey = false;
      }
      i = close;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      expectKey = depth === 1;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c) {
      expectKey = depth === 1;
    }
  }
  return found;
}

/** Index of the quote that closes the string opened at `open`; -1 if it never closes. */
function stringEnd(raw: Buffer, open: number): number {
  let i = open + 1;
  for (;;) {
    const q = raw.indexOf(QUOTE, i);
    if (q < 0) {
      return -1;
    }
    // Closed unless escaped: an odd run of backslashes before it.
    let k = q - 1;
    while (k > open && raw[k] === BACKSLASH) {
      k--;
    }
    if ((q - 1 - k) % 2 === 0) {
      return q;
    }
    i = q + 1;
  }
}
