import { describe, it, expect, afterEach } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch, isPublicAddress, UrlGuardError, type GuardedFetchOptions } from '../../src/net/url-guard.js';

interface TestServer {
  server: http.Server;
  port: number;
  hits: string[];
  url: (path?: string) => string;
}
const servers: http.Server[] = [];
const cleanups: (() => void)[] = [];

async function startServer(host: string, handler: http.RequestListener = (_req, res) => res.end('ok'), port = 0): Promise<TestServer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return { server, port: actual, hits, url: (path = '/') => `http://${host}:${actual}${path}` };
}

afterEach(async () => {
  for (const fn of cleanups.splice(0)) {
    fn();
  }
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(UrlGuardError);
    return (err as UrlGuardError).reason;
  }
  throw new Error('expected guardedFetch to fail');
}

const allow2 = (ip: string) => ip === '127.0.0.2' || isPublicAddress(ip);
const base: GuardedFetchOptions = { maxBytes: 1024 * 1024, isAllowedAddress: allow2 };

describe('isPublicAddress', () => {
  const refused = [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001:db8::1',
    '198.18.0.1',
    'not-an-ip',
    '',
    '0177.0.0.1',
    '2130706433',
  ];
  it.each(refused)('refuses %s', (ip) => expect(isPublicAddress(ip)).toBe(false));
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (ip) => expect(isPublicAddress(ip)).toBe(true));

  // Every IPv6 form that embeds an IPv4 address, with loopback, private, metadata and public IPv4
  // addresses inside: refused by rule, not because this host happens not to route them.
  const embedded = [
    '::127.0.0.1', // IPv4-compatible, dotted
    '::7f00:1', // IPv4-compatible, hexadecimal
    '::a00:1', // 10.0.0.1
    '::a9fe:a9fe', // 169.254.169.254
    '::808:808', // 8.8.8.8
    '64:ff9b::a00:1', // NAT64 well-known prefix
    '64:ff9b::808:808',
    '64:ff9b:1::a00:1', // NAT64 local-use prefix
    '2002:a00:1::', // 6to4 of 10.0.0.1
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f5ff:fffe', // Teredo, client 10.0.0.1
    '2001:0:7f00:1::', // Teredo, server 127.0.0.1
  ];
  it.each(embedded)('refuses %s, an IPv6 address carrying an IPv4 address', (ip) => expect(isPublicAddress(ip)).toBe(false));
});

describe('guardedFetch address rule', () => {
  it('refuses loopback, private, metadata, mapped and localhost targets without contacting them', async () => {
    const srv = await startServer('127.0.0.1');
    const opts = { maxBytes: 1000, connectTimeoutMs: 500, totalTimeoutMs: 1000 };
    for (const url of [
      srv.url(),
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data',
      `http://[::ffff:127.0.0.1]:${srv.port}/`,
      `http://[::1]:${srv.port}/`,
      `http://[::127.0.0.1]:${srv.port}/`,
      `http://[::7f00:1]:${srv.port}/`,
      `http://[::a00:1]:${srv.port}/`,
      `http://[64:ff9b::7f00:1]:${srv.port}/`,
      `http://localhost:${srv.port}/`,
    ]) {
      expect(await reason(guardedFetch(url, opts)), url).toBe('ADDRESS_NOT_ALLOWED');
    }
    expect(srv.hits).toHaveLength(0);
  });

  it('refuses a hostname when any resolved address is not allowed', async () => {
    const srv = await startServer('127.0.0.1');
    const lookup = async () => [
      { address: '8.8.8.8', family: 4 as const },
      { address: '127.0.0.1', family: 4 as const },
    ];
    expect(await reason(guardedFetch(`http://mixed.test:${srv.port}/`, { maxBytes: 100, lookup }))).toBe('ADDRESS_NOT_ALLOWED');
    expect(srv.hits).toHaveLength(0);
  });

  it('connects to exactly the address that was checked (DNS rebinding)', async () => {
    const loop = await startServer('127.0.0.1', (_req, res) => res.end('internal'));
    const pub = await startServer('127.0.0.2', (_req, res) => res.end('public'), loop.port);
    let calls = 0;
    const lookup = async () => [{ address: calls++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 as const }];
    const res = await guardedFetch(`http://rebind.test:${loop.port}/`, { ...base, lookup });
    expect(res.body.toString()).toBe('public');
    expect(calls).toBe(1);
    expect(pub.hits).toHaveLength(1);
    expect(loop.hits).toHaveLength(0);
  });

  it('re-checks a rebound name on a redirect hop', async () => {
    const loop = await startServer('127.0.0.1');
    await startServer(
      '127.0.0.2',
      (_req, res) => {
        res.writeHead(302, { location: '/second' }).end();
      },
      loop.port,
    );
    let calls = 0;
    const lookup = async () => [{ address: calls++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 as const }];
    expect(await reason(guardedFetch(`http://rebind.test:${loop.port}/`, { ...base, lookup }))).toBe('ADDRESS_NOT_ALLOWED');
    expect(loop.hits).toHaveLength(0);
  });

  it('refuses a redirect from an allowed host to a loopback address', async () => {
    const inner = await startServer('127.0.0.1');
    const outer = await startServer('127.0.0.2', (_req, res) => {
      res.writeHead(302, { location: inner.url('/x') }).end();
    });
    expect(await reason(guardedFetch(outer.url(), base))).toBe('ADDRESS_NOT_ALLOWED');
    expect(outer.hits).toHaveLength(1);
    expect(inner.hits).toHaveLength(0);
  });

  it('checks the peer address on connect before sending anything', async () => {
    const srv = await startServer('127.0.0.2');
    let calls = 0; // first check (DNS answer) passes, second (socket peer) fails
    const isAllowedAddress = () => calls++ === 0;
    const lookup = async () => [{ address: '127.0.0.2', family: 4 as const }];
    expect(await reason(guardedFetch(`http://peer.test:${srv.port}/`, { maxBytes: 100, lookup, isAllowedAddress }))).toBe(
      'ADDRESS_NOT_ALLOWED',
    );
    expect(calls).toBe(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(srv.hits).toHaveLength(0);
  });

  it('allowPrivate lifts the address rule', async () => {
    const srv = await startServer('127.0.0.1', (_req, res) => res.end('dev'));
    const res = await guardedFetch(srv.url(), { maxBytes: 100, allowPrivate: true });
    expect(res.body.toString()).toBe('dev');
  });
});

describe('guardedFetch URL and scheme rules', () => {
  it('refuses other schemes, credentials and garbage', async () => {
    expect(await reason(guardedFetch('ftp://example.com/x.pdf', base))).toBe('SCHEME_NOT_ALLOWED');
    expect(await reason(guardedFetch('file:///etc/passwd', base))).toBe('SCHEME_NOT_ALLOWED');
    expect(await reason(guardedFetch('http://user:pw@example.com/', base))).toBe('BAD_URL');
    expect(await reason(guardedFetch('not a url', base))).toBe('BAD_URL');
  });

  it('refuses a redirect to another scheme', async () => {
    const srv = await startServer('127.0.0.2', (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
    expect(await reason(guardedFetch(srv.url(), base))).toBe('SCHEME_NOT_ALLOWED');
  });
});

describe('guardedFetch behaviour', () => {
  it('fetches a body, sets the User-Agent and sends no cookies', async () => {
    let seen: http.IncomingHttpHeaders = {};
    const srv = await startServer('127.0.0.2', (req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7');
    });
    const res = await guardedFetch(srv.url('/a.pdf'), { ...base, headers: { Cookie: 'sid=1' } });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('%PDF-1.7');
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.finalUrl).toBe(srv.url('/a.pdf'));
    expect(seen['user-agent']).toBe('Sello/1 (+url-fetch)');
    expect(seen.cookie).toBeUndefined();
  });

  it('returns non-2xx statuses as normal responses', async () => {
    const srv = await startServer('127.0.0.2', (_req, res) => res.writeHead(404).end('nope'));
    const res = await guardedFetch(srv.url(), base);
    expect(res.status).toBe(404);
    expect(res.body.toString()).toBe('nope');
  });

  async function chainServer(): Promise<TestServer> {
    return startServer('127.0.0.2', (req, res) => {
      const n = Number((req.url ?? '/0').slice(1));
      if (n > 0) {
        res.writeHead(302, { location: `/${n - 1}` }).end();
      } else {
        res.end('end of chain');
      }
    });
  }

  it('follows up to maxRedirects relative redirects', async () => {
    const srv = await chainServer();
    const res = await guardedFetch(srv.url('/3'), base);
    expect(res.body.toString()).toBe('end of chain');
    expect(res.finalUrl).toBe(srv.url('/0'));
  });

  it('fails with TOO_MANY_REDIRECTS beyond maxRedirects', async () => {
    const srv = await chainServer();
    expect(await reason(guardedFetch(srv.url('/4'), base))).toBe('TOO_MANY_REDIRECTS');
    expect(srv.hits).toEqual(['/4', '/3', '/2', '/1']);
  });

  it('posts a body and refuses to follow a redirect of a POST', async () => {
    const srv = await startServer('127.0.0.2', (req, res) => {
      if (req.url === '/moved') {
        return void res.writeHead(307, { location: '/' }).end();
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.end(`${req.method}:${Buffer.concat(chunks).toString()}`));
    });
    const ok = await guardedFetch(srv.url(), { ...base, method: 'POST', body: '{"a":1}' });
    expect(ok.body.toString()).toBe('POST:{"a":1}');
    expect(await reason(guardedFetch(srv.url('/moved'), { ...base, method: 'POST', body: 'x' }))).toBe('REDIRECT_NOT_ALLOWED');
  });

  it('fails early on a Content-Length above maxBytes', async () => {
    const srv = await startServer('127.0.0.2', (_req, res) => {
      res.writeHead(200, { 'content-length': '10000000' });
      res.write('x'); // then never finishes: the guard must not wait for the body
    });
    // Only the headers can end this fetch with TOO_LARGE; waiting for the body would end it with
    // TIMEOUT, at a limit far beyond what a busy machine takes to deliver the headers.
    expect(await reason(guardedFetch(srv.url(), { ...base, maxBytes: 1000, totalTimeoutMs: 30_000 }))).toBe('TOO_LARGE');
  });

  it('aborts a chunked body as soon as it exceeds maxBytes', async () => {
    const srv = await startServer('127.0.0.2', (_req, res) => {
      // 8 KiB at once, in 1 KiB chunks, then a stream that never ends: only the byte count can end
      // the fetch with TOO_LARGE, however slowly the machine runs; waiting for the end would end
      // it with TIMEOUT.
      for (let i = 0; i < 8; i++) {
        res.write(Buffer.alloc(1024, 0x61));
      }
      const timer = setInterval(() => res.write(Buffer.alloc(1024, 0x61)), 5);
      cleanups.push(() => clearInterval(timer));
      res.on('close', () => clearInterval(timer));
    });
    expect(await reason(guardedFetch(srv.url(), { ...base, maxBytes: 4096, totalTimeoutMs: 30_000 }))).toBe('TOO_LARGE');
  });

  it('accepts a body of exactly maxBytes', async () => {
    const srv = await startServer('127.0.0.2', (_req, res) => res.end(Buffer.alloc(100)));
    expect((await guardedFetch(srv.url(), { ...base, maxBytes: 100 })).body).toHaveLength(100);
  });

  it('times out on a server that never answers', async () => {
    const srv = await startServer('127.0.0.2', () => {
      /* never responds */
    });
    // The server never answers: only the guard's own timer can end the fetch, and it says so.
    expect(await reason(guardedFetch(srv.url(), { ...base, totalTimeoutMs: 200 }))).toBe('TIMEOUT');
  });

  it('applies the connect timeout (including a hanging DNS lookup)', async () => {
    const lookup = () => new Promise<{ address: string; family: 4 | 6 }[]>(() => {});
    expect(await reason(guardedFetch('http://hang.test/', { ...base, lookup, connectTimeoutMs: 100 }))).toBe('TIMEOUT');
  });

  it('reports DNS failures as NETWORK', async () => {
    const lookup = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await reason(guardedFetch('http://nx.test/', { ...base, lookup }))).toBe('NETWORK');
  });
});
