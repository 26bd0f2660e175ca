// HMAC authentication of every API request (spec "Authentication", decisions.md "Authentication").
//
//   Authorization: <scheme> <webId>:<Base64(HMAC-SHA256(apiKey, stringToSign))>
//
// stringToSign is, for GET/DELETE, the request target as received (or the absolute URL built from
// SELLO_PUBLIC_URL and that target); for a JSON POST, the raw body bytes as received (or the body
// re-serialized compactly); for multipart, the Content-SHA256 header (checked against the file by
// the route once the file has been read).
//
// Every failure is the same 401 with an empty body, and the work done does not depend on which part
// was wrong: an unknown web id (or an account with fewer keys) opens sealed dummy keys, so every
// request decrypts MAX_ACTIVE_KEYS keys, and every candidate is compared against every key slot
// with timingSafeEqual, with no early exit; and no 401 leaves before UNAUTHORIZED_FLOOR_MS.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_ACTIVE_KEYS, findActiveApiKeys } from '../domain/accounts/find-api-keys.js';
import type { Deps } from '../domain/deps.js';

export interface AuthenticatedAccount {
  id: string;
  webId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    account: AuthenticatedAccount | null;
    /** Raw bytes of a JSON body, kept for the HMAC check. */
    rawBody: Buffer | undefined;
    /** The JSON body parsed once; see jsonBodyOf(). */
    jsonBody: { ok: true; value: unknown } | { ok: false } | undefined;
  }
}

/** Why a request was not authenticated: for the server log, never for the client. */
export interface AuthFailure {
  reason:
    | 'no_authorization'
    | 'malformed_authorization'
    | 'unknown_web_id'
    | 'no_active_key'
    | 'no_content_sha256'
    | 'content_sha256_mismatch'
    | 'signature_mismatch';
  webId?: string;
  /** What the signature was compared with: strings of the request line, or sizes and digests of the body; never a key or the body. */
  tried?: string[];
}

/** A 401 with an empty body: the only answer to any authentication failure. */
export class Unauthorized extends Error {
  constructor(readonly failure?: AuthFailure) {
    super(failure ? `authentication failed: ${failure.reason}` : 'authentication failed');
  }
}

const digestOf = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The strings tried, as the log shows them: request targets whole, bodies by size and SHA-256 only. */
export function describeTried(method: string, candidates: (string | Buffer)[]): string[] {
  if (method === 'GET' || method === 'DELETE' || method === 'HEAD') {
    return candidates.map(String);
  }
  return candidates.map((c, i) => {
    const what = i === 0 ? 'the body as received' : 'the body re-serialized compactly';
    return `${what}: ${Buffer.byteLength(c)} bytes, SHA-256 ${digestOf(c)}`;
  });
}

export interface ParsedAuthorization {
  webId: string;
  signature: Buffer;
}

/** Parses the Authorization header; undefined when it is absent or malformed. */
export function parseAuthorization(header: string | undefined, schemes: string[]): ParsedAuthorization | undefined {
  if (!header) {
    return undefined;
  }
  const m = /^\s*(\S+)\s+([^:\s]+):(\S+)\s*$/.exec(header);
  if (!m || !schemes.includes(m[1].toLowerCase())) {
    return undefined;
  }
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(m[3])) {
    return undefined;
  }
  return { webId: m[2], signature: Buffer.from(m[3], 'base64') };
}

export function hmac(key: string, data: string | Buffer): Buffer {
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(data).digest();
}

// Not a web id any account can have (web ids are base64url, this has a space).
const NO_ACCOUNT = 'no account';
const DUMMY_KEYS = Array.from({ length: MAX_ACTIVE_KEYS }, () => randomBytes(32).toString('base64url'));
const ZERO = Buffer.alloc(32);

/**
 * True when `signature` is the HMAC of one of `candidates` under one of `keys`. Always computes
 * MAX_ACTIVE_KEYS × candidates HMACs and as many comparisons, whatever matches.
 */
export function signatureMatches(signature: Buffer, keys: string[], candidates: (string | Buffer)[]): boolean {
  const slots = [...keys.slice(0, MAX_ACTIVE_KEYS)];
  const real = slots.length;
  while (slots.length < MAX_ACTIVE_KEYS) {
    slots.push(DUMMY_KEYS[slots.length]);
  }
  const given = signature.length === 32 ? signature : ZERO;
  let ok = 0;
  for (let i = 0; i < slots.length; i++) {
    for (const c of candidates) {
      const eq = timingSafeEqual(hmac(slots[i], c), given) ? 1 : 0;
      ok |= eq & (i < real ? 1 : 0);
    }
  }
  return (ok & (signature.length === 32 ? 1 : 0)) === 1;
}

export interface AuthOptions {
  /** Where the account's keys are found, and the box their sealed bytes open with. */
  deps: Pick<Deps, 'db' | 'secrets'>;
  schemes: string[];
  /** Read per request: the public base URL of absolute-URL signatures. */
  publicUrl: () => string;
}

/**
 * The strings a request may have been signed over, per decisions.md. `exact` are the bytes or
 * target as received; `compact` (JSON POST only) is the body re-serialized, computed only when
 * the exact bytes did not match: most clients sign exactly what they send, and re-serializing a
 * 30 MB body costs tens of milliseconds.
 */
export function candidatesFor(req: FastifyRequest, publicUrl: string): { exact: (string | Buffer)[]; compact: () => string | undefined } {
  const method = req.method.toUpperCase();
  const none = () => undefined;
  const target = req.raw.url ?? '/';
  if (method === 'GET' || method === 'DELETE' || method === 'HEAD') {
    return { exact: [target, publicUrl + target], compact: none };
  }
  const type = String(req.headers['content-type'] ?? '');
  if (type.startsWith('multipart/')) {
    const h = req.headers['content-sha256'];
    return { exact: typeof h === 'string' && h.length > 0 ? [h] : [], compact: none };
  }
  const raw = req.rawBody ?? Buffer.alloc(0);
  return {
    exact: [raw],
    compact: () => {
      const body = jsonBodyOf(req);
      if (!body.ok || body.value === undefined) {
        return undefined; // no JSON body: only the raw bytes can match; the route answers 400 later
      }
      const compact = JSON.stringify(body.value);
      return raw.equals(Buffer.from(compact, 'utf8')) ? undefined : compact;
    },
  };
}

/** The JSON body, parsed once per request (authentication and the route share it). */
export function jsonBodyOf(req: FastifyRequest): { ok: true; value: unknown } | { ok: false } {
  if (req.jsonBody === undefined) {
    const raw = req.rawBody;
    if (raw === undefined || raw.length === 0) {
      req.jsonBody = { ok: true, value: raw === undefined ? undefined : {} };
    } else {
      try {
        req.jsonBody = { ok: true, value: JSON.parse(raw.toString('utf8')) };
      } catch {
        req.jsonBody = { ok: false };
      }
    }
  }
  return req.jsonBody;
}

export function createAuthenticator(opts: AuthOptions) {
  const { secrets } = opts.deps;
  const sealedDummies = DUMMY_KEYS.map((k) => secrets.seal(k));
  return async function authenticate(req: FastifyRequest): Promise<AuthenticatedAccount> {
    const parsed = parseAuthorization(req.headers.authorization, opts.schemes);
    // The lookup runs even without a usable header, so a missing header answers in the same time.
    const found = await findActiveApiKeys(opts.deps, parsed?.webId ?? NO_ACCOUNT);
    const sealed = (found?.keys ?? []).slice(0, MAX_ACTIVE_KEYS);
    // Decrypting a key is the one step an unknown web id would skip: dummies fill the slots.
    const opened = [...sealed, ...sealedDummies.slice(sealed.length)].map((k) => secrets.open(k));
    const keys = opened.slice(0, sealed.length);
    const candidates = candidatesFor(req, opts.publicUrl());
    const signature = parsed?.signature ?? ZERO;
    let ok = signatureMatches(signature, keys, candidates.exact.length ? candidates.exact : ['']);
    if (!ok) {
      const compact = candidates.compact();
      ok = compact !== undefined && signatureMatches(signature, keys, [compact]);
    }
    if (!ok || !parsed || !found || candidates.exact.length === 0) {
      throw new Unauthorized(failureOf(req, parsed, found, candidates));
    }
    return { id: found.accountId, webId: parsed.webId };
  };
}

/** The first reason that applies, once the constant-time work is done. */
function failureOf(
  req: FastifyRequest,
  parsed: ParsedAuthorization | undefined,
  found: { keys: Buffer[] } | undefined,
  candidates: ReturnType<typeof candidatesFor>,
): AuthFailure {
  if (!req.headers.authorization) {
    return { reason: 'no_authorization' };
  }
  if (!parsed) {
    return { reason: 'malformed_authorization' };
  }
  const webId = parsed.webId;
  if (!found) {
    return { reason: 'unknown_web_id', webId };
  }
  if (found.keys.length === 0) {
    return { reason: 'no_active_key', webId };
  }
  if (candidates.exact.length === 0) {
    return { reason: 'no_content_sha256', webId };
  }
  const method = req.method.toUpperCase();
  const compact = method === 'POST' ? candidates.compact() : undefined;
  const tried = String(req.headers['content-type'] ?? '').startsWith('multipart/')
    ? candidates.exact.map((h) => `the Content-SHA256 header: ${String(h)}`)
    : describeTried(method, [...candidates.exact, ...(compact === undefined ? [] : [compact])]);
  return { reason: 'signature_mismatch', webId, tried };
}

/**
 * No 401 leaves before this many milliseconds after its request arrived. The work of a refusal is
 * the same on every path (see createAuthenticator), but not its cost: a known web id's key rows come
 * back from the database and the refusal is logged with what was tried, which an unknown web id
 * skips, and that showed as about 0.2 ms over loopback (the difference let an attacker tell which
 * web ids exist). A floor well above the refusal's own cost (about 1–3 ms) makes every 401 take the
 * same time. Only refused requests wait, on a timer: no CPU is spent and no signed request slows.
 */
export const UNAUTHORIZED_FLOOR_MS = 25;

export async function sendUnauthorized(reply: FastifyReply, floorMs = UNAUTHORIZED_FLOOR_MS) {
  await reply.server.answerFloor(reply, floorMs);
  return reply.code(401).header('content-length', '0').send();
}
