// The single gate for outbound HTTP made on a client's behalf (PDF fetch by URL, webhooks).
// It blocks server-side request forgery (SSRF): a client-given URL must never reach loopback,
// the private network, cloud metadata (169.254.169.254) or any other non-public address.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export interface GuardedFetchOptions {
  maxBytes: number;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  maxRedirects?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  allowPrivate?: boolean;
  isAllowedAddress?: (ip: string) => boolean;
  lookup?: (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;
}

export interface GuardedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  finalUrl: string;
}

export type UrlGuardReason =
  | 'BAD_URL'
  | 'SCHEME_NOT_ALLOWED'
  | 'ADDRESS_NOT_ALLOWED'
  | 'TOO_MANY_REDIRECTS'
  | 'TOO_LARGE'
  | 'TIMEOUT'
  | 'NETWORK'
  | 'REDIRECT_NOT_ALLOWED';

export class UrlGuardError extends Error {
  constructor(
    public readonly reason: UrlGuardReason,
    message: string,
  ) {
    super(message);
    this.name = 'UrlGuardError';
  }
}

/**
 * Whether an IPv6 address carries an IPv4 address inside it: IPv4-compatible ::a.b.c.d (RFC 4291
 * §2.5.5.1, deprecated), NAT64 64:ff9b::/96 (RFC 6052) and 64:ff9b:1::/48 (RFC 8215), 6to4
 * 2002::/16 (RFC 3056) and Teredo 2001::/32 (RFC 4380). IPv4-mapped ::ffff:a.b.c.d is not in the
 * list: it is the IPv4 address itself, judged as such.
 */
export function embedsIpv4(v6: ipaddr.IPv6): boolean {
  const b = v6.toByteArray();
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const compatible = zeros(0, 12);
  const nat64 = b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b;
  const sixToFour = b[0] === 0x20 && b[1] === 0x02;
  const teredo = b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00;
  return compatible || nat64 || sixToFour || teredo;
}

/**
 * Only plain global unicast passes; every special-purpose range (loopback, private, link-local,
 * CGNAT, unique-local, ...) is refused. An IPv6 address that embeds an IPv4 address is refused by
 * rule, whatever the IPv4 inside: the host may route it (a NAT64 gateway, a 6to4 or Teredo relay,
 * a kernel that still speaks IPv4-compatible addresses) to that IPv4 address, internal ones
 * included, and a public IPv4 server has its own plain address.
 */
export function isPublicAddress(ip: string): boolean {
  if (net.isIP(ip) === 0) {
    return false; // strict syntax: no octal/hex forms the kernel might read differently
  }
  try {
    const addr = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6') {
      const v6 = addr as ipaddr.IPv6;
      if (v6.isIPv4MappedAddress()) {
        return v6.toIPv4Address().range() === 'unicast'; // ::ffff:a.b.c.d is a.b.c.d
      }
      if (embedsIpv4(v6)) {
        return false;
      }
    }
    return addr.range() === 'unicast';
  } catch {
    return false;
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'Sello/1 (+url-fetch)';

function checkUrl(raw: string, base?: URL): URL {
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    throw new UrlGuardError('BAD_URL', 'unparseable URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new UrlGuardError('SCHEME_NOT_ALLOWED', `scheme ${u.protocol} not allowed`);
  }
  if (u.username || u.password) {
    throw new UrlGuardError('BAD_URL', 'credentials in URL not allowed');
  }
  if (!u.hostname) {
    throw new UrlGuardError('BAD_URL', 'URL has no host');
  }
  return u;
}

const defaultLookup = async (hostname: string) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: (a.family === 6 ? 6 : 4) as 4 | 6,
  }));

type Hop = { kind: 'redirect'; location: string } | { kind: 'final'; status: number; headers: GuardedResponse['headers']; body: Buffer };

interface HopContext {
  opts: GuardedFetchOptions;
  allowed: (ip: string) => boolean;
  signal: AbortSignal;
  headers: Record<string, string>;
}

type Finish = (err: Error | null, hop?: Hop) => void;

function oneHop(url: URL, ctx: HopContext): Promise<Hop> {
  const { opts, allowed, signal } = ctx;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1'); // bracketed IPv6 literal
  const literal = net.isIP(host) !== 0;
  // IP literals never go through DNS, so they are judged here before anything is opened.
  if (literal && !allowed(host)) {
    return Promise.reject(new UrlGuardError('ADDRESS_NOT_ALLOWED', `address ${host} not allowed`));
  }
  return new Promise<Hop>((resolvePromise, reject) => {
    let settled = false;
    const finish: Finish = (err, hop) => {
      if (settled) {
        return;
      }
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        reject(err instanceof UrlGuardError ? err : new UrlGuardError('NETWORK', err.message));
      } else {
        resolvePromise(hop!);
      }
    };
    const onAbort = () => finish(signal.reason as Error);

    const isHttps = url.protocol === 'https:';
    const reqOpts: https.RequestOptions = {
      method: opts.method ?? 'GET',
      hostname: host,
      port: url.port || undefined,
      path: url.pathname + url.search,
      headers: ctx.headers,
      agent: false, // fresh socket per hop, so 'connect' (and its address check) always happens
      lookup: judgedLookup(opts.lookup ?? defaultLookup, allowed),
      ...(isHttps && !literal ? { servername: host } : {}), // TLS verifies the name, not the IP
    };
    const req = (isHttps ? https : http).request(reqOpts);
    req.on('socket', (socket: net.Socket) => checkPeer(socket, url, ctx, finish));
    req.on('error', (err) => finish(err));
    req.on('response', (res) => readResponse(req, res, opts.maxBytes, finish));

    if (signal.aborted) {
      return onAbort();
    }
    signal.addEventListener('abort', onAbort, { once: true });
    req.end(opts.body);
  });
}

/**
 * DNS rebinding defence: resolve once, judge every address, and give the socket exactly the
 * address that was judged, so a second (different) answer can never be connected to.
 */
function judgedLookup(resolve: NonNullable<GuardedFetchOptions['lookup']>, allowed: (ip: string) => boolean): net.LookupFunction {
  return (hostname, lookupOpts, cb) => {
    resolve(hostname).then(
      (addrs) => {
        if (addrs.length === 0) {
          return cb(new UrlGuardError('NETWORK', `no address for ${hostname}`), '');
        }
        const bad = addrs.find((a) => !allowed(a.address));
        if (bad) {
          return cb(new UrlGuardError('ADDRESS_NOT_ALLOWED', `${hostname} resolves to ${bad.address}`), '');
        }
        const { address, family } = addrs[0];
        if (lookupOpts.all) {
          cb(null, [{ address, family }]);
        } else {
          cb(null, address, family);
        }
      },
      (err: unknown) => cb(new UrlGuardError('NETWORK', `DNS lookup failed: ${(err as Error).message}`), ''),
    );
  };
}

/** The connect timeout, and the final word on the peer actually connected to, before the request is written. */
function checkPeer(socket: net.Socket, url: URL, ctx: HopContext, finish: Finish): void {
  const timer = setTimeout(() => finish(new UrlGuardError('TIMEOUT', `connect timeout to ${url.host}`)), ctx.opts.connectTimeoutMs ?? 5000);
  const onConnect = () => {
    clearTimeout(timer);
    const peer = socket.remoteAddress ?? '';
    if (!ctx.allowed(peer)) {
      finish(new UrlGuardError('ADDRESS_NOT_ALLOWED', `connected to ${peer}`));
    }
  };
  if (socket.connecting) {
    socket.once('connect', onConnect);
  } else {
    onConnect();
  }
  socket.once('close', () => clearTimeout(timer));
}

/** A redirect (its body never read), or the body read up to maxBytes. */
function readResponse(req: http.ClientRequest, res: http.IncomingMessage, maxBytes: number, finish: Finish): void {
  const status = res.statusCode ?? 0;
  const location = res.headers.location;
  if (REDIRECT_STATUSES.has(status) && location) {
    finish(null, { kind: 'redirect', location });
    req.destroy();
    return;
  }
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    finish(new UrlGuardError('TOO_LARGE', `Content-Length ${declared} > ${maxBytes}`));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      finish(new UrlGuardError('TOO_LARGE', `body exceeds ${maxBytes} bytes`));
    } else {
      chunks.push(chunk);
    }
  });
  res.on('end', () => finish(null, { kind: 'final', status, headers: res.headers, body: Buffer.concat(chunks) }));
  res.on('error', (err) => finish(err));
  res.on('close', () => finish(new UrlGuardError('NETWORK', 'connection closed before end of body')));
}

export async function guardedFetch(url: string, options: GuardedFetchOptions): Promise<GuardedResponse> {
  let current = checkUrl(url);
  const method = options.method ?? 'GET';
  const maxRedirects = options.maxRedirects ?? 3;
  // allowPrivate is a development switch: it lifts the address rule and nothing else.
  const allowed = options.allowPrivate ? () => true : (options.isAllowedAddress ?? isPublicAddress);

  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    if (k.toLowerCase() !== 'cookie') {
      headers[k] = v; // never send cookies
    }
  }
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent')) {
    headers['User-Agent'] = USER_AGENT;
  }

  const controller = new AbortController();
  const total = options.totalTimeoutMs ?? 30000;
  const timer = setTimeout(() => controller.abort(new UrlGuardError('TIMEOUT', `total timeout of ${total} ms exceeded`)), total);
  try {
    for (let redirects = 0; ; redirects++) {
      const hop = await oneHop(current, { opts: options, allowed, signal: controller.signal, headers });
      if (hop.kind === 'final') {
        return { status: hop.status, headers: hop.headers, body: hop.body, finalUrl: current.href };
      }
      // A POST body must never be replayed (or silently turned into a GET) at another place.
      if (method === 'POST') {
        throw new UrlGuardError('REDIRECT_NOT_ALLOWED', 'redirect of a POST');
      }
      if (redirects >= maxRedirects) {
        throw new UrlGuardError('TOO_MANY_REDIRECTS', `more than ${maxRedirects} redirects`);
      }
      const next = checkUrl(hop.location, current); // each hop: same scheme and address checks
      if (next.origin !== current.origin) {
        for (const k of Object.keys(headers)) {
          if (k.toLowerCase() === 'authorization') {
            delete headers[k];
          }
        }
      }
      current = next;
    }
  } finally {
    clearTimeout(timer);
  }
}
