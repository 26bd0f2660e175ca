// An external NOM-151 provider (PSC) for the tests: an RFC 3161 service on a loopback port with a
// CA of its own, made by the openssl CLI (openssl-pki.ts), answering each request with
// `openssl ts -reply`, an implementation independent of the service's. It can require HTTP basic
// credentials, answer as an authority nobody trusts (the rogue TSA of the same PKI), or be down.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestPki, type TestPki } from './openssl-pki.js';

const run = promisify(execFile);

/** rogue: answers as a TSA under a root nobody trusts; other-tsa: as another TSA under the PSC's own root. */
export type PscMode = 'up' | 'rogue' | 'other-tsa' | 'http-500' | 'down';

export interface TestPsc {
  url: string;
  pki: TestPki;
  /** PEM of the provider's root: what SELLO_NOM151_TRUST_PEM would hold. */
  rootPem: string;
  rootPath: string;
  /** PEM of the provider's own TSA certificate (what pins the authority in SELLO_NOM151_TRUST_PEM). */
  tsaPem: string;
  mode: PscMode;
  /** Basic credentials the provider requires; undefined: none. */
  credentials: { user: string; password: string } | undefined;
  /** Requests received (answered or not). */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startTestPsc(): Promise<TestPsc> {
  const pki = await createTestPki();
  let n = 0;
  const psc: TestPsc = {
    url: '',
    pki,
    rootPem: readFileSync(pki.rootPath, 'utf8'),
    rootPath: pki.rootPath,
    tsaPem: readFileSync(pki.tsaCertPath, 'utf8'),
    mode: 'up',
    credentials: undefined,
    get requests() {
      return n;
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      pki.dispose();
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      n++;
      void answer(Buffer.concat(chunks), req.headers.authorization).then(
        ({ status, body }) => {
          res.writeHead(status, { 'content-type': status === 200 ? 'application/timestamp-reply' : 'text/plain' });
          res.end(body);
        },
        (err: Error) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(err.message);
        },
      );
    });
  });

  async function answer(query: Buffer, authorization: string | undefined): Promise<{ status: number; body: Buffer | string }> {
    if (psc.mode === 'down') {
      return { status: 503, body: 'down' }; // not reached: the socket is dropped first (below)
    }
    if (psc.mode === 'http-500') {
      return { status: 500, body: 'internal error' };
    }
    if (psc.credentials) {
      const expected = `Basic ${Buffer.from(`${psc.credentials.user}:${psc.credentials.password}`).toString('base64')}`;
      if (authorization !== expected) {
        return { status: 401, body: 'unauthorized' };
      }
    }
    const id = `psc-${n}-${Date.now()}`;
    writeFileSync(join(pki.dir, `${id}.tsq`), query);
    const section = psc.mode === 'rogue' ? 'rogue_tsa' : psc.mode === 'other-tsa' ? 'other_tsa' : 'tsa';
    await run('openssl', ['ts', '-reply', '-config', 'tsa.cnf', '-section', section, '-queryfile', `${id}.tsq`, '-out', `${id}.tsr`], {
      cwd: pki.dir,
    });
    return { status: 200, body: readFileSync(join(pki.dir, `${id}.tsr`)) };
  }

  // An outage as a client sees it: the connection is dropped without an answer.
  server.prependListener('request', (req) => {
    if (psc.mode === 'down') {
      req.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  psc.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/tsr`;
  return psc;
}
