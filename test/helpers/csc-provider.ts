// A remote signing provider on loopback, speaking the Cloud Signature Consortium API v2 as a
// qualified trust service provider offers it: oauth2/authorize (an approval page; its button sends
// the signer back with a code), oauth2/token (authorization code with PKCE, RFC 7636 S256, the
// client authenticated by its secret), credentials/list, credentials/info (the certificate chain)
// and signatures/signHash (RSASSA-PKCS1-v1_5 over the given SHA-256 hashes). Each signer's
// credential is a key and a certificate from a test CA (cert-pki.ts) the operator trusts.
import { createHash, privateEncrypt, constants, randomBytes, type KeyObject } from 'node:crypto';
import { type Server, createServer, type IncomingMessage } from 'node:http';

export interface CscCredential {
  credentialID: string;
  /** Whose credential it is: the user the approval page signs in. */
  user: string;
  certificateDer: Buffer;
  chainDer: Buffer[];
  privateKey: KeyObject;
}

export interface CscProvider {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Every API call received, in order (path and the token's user). */
  calls: { path: string; body: Record<string, unknown> }[];
  add(c: CscCredential): void;
  /** Who the approval page signs in as (the signer at the provider). */
  signInAs(user: string): void;
  close(): Promise<void>;
}

// DigestInfo prefix for SHA-256 (RFC 8017 §9.2 note 1): what PKCS#1 v1.5 signs around the hash.
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) {
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startCscProvider(): Promise<CscProvider> {
  const clientId = 'sello-test-client';
  const clientSecret = randomBytes(16).toString('hex');
  const credentials: CscCredential[] = [];
  const codes = new Map<string, { user: string; challenge: string; redirectUri: string }>();
  const tokens = new Map<string, string>();
  const calls: CscProvider['calls'] = [];
  let user = '';

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://provider');
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    void (async () => {
      const text = await body(req);
      if (url.pathname === '/csc/v2/oauth2/authorize' && req.method === 'GET') {
        const q = url.searchParams;
        if (q.get('client_id') !== clientId || q.get('response_type') !== 'code' || q.get('scope') !== 'credential') {
          return json(400, { error: 'invalid_request' });
        }
        if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
          return json(400, { error: 'invalid_request', error_description: 'PKCE S256 required' });
        }
        const code = randomBytes(12).toString('hex');
        const redirectUri = q.get('redirect_uri') ?? '';
        codes.set(code, { user, challenge: q.get('code_challenge')!, redirectUri });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<!doctype html><title>Test TSP</title><h1>Authorize signing</h1><p>Signed in as ${user}</p>` +
            `<a id="approve" href="${back.toString().replace(/&/g, '&amp;')}">Approve</a>`,
        );
        return;
      }
      if (url.pathname === '/csc/v2/oauth2/token' && req.method === 'POST') {
        const f = new URLSearchParams(text);
        const c = codes.get(f.get('code') ?? '');
        const verifier = f.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (
          f.get('grant_type') !== 'authorization_code' ||
          f.get('client_id') !== clientId ||
          f.get('client_secret') !== clientSecret ||
          !c ||
          c.challenge !== challenge ||
          c.redirectUri !== f.get('redirect_uri')
        ) {
          return json(400, { error: 'invalid_grant' });
        }
        codes.delete(f.get('code')!);
        const token = randomBytes(16).toString('hex');
        tokens.set(token, c.user);
        return json(200, { access_token: token, token_type: 'Bearer', expires_in: 600 });
      }
      const who = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!who) {
        return json(401, { error: 'invalid_token' });
      }
      const b = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      calls.push({ path: url.pathname, body: b });
      const mine = credentials.filter((c) => c.user === who);
      if (url.pathname === '/csc/v2/credentials/list') {
        return json(200, { credentialIDs: mine.map((c) => c.credentialID) });
      }
      const cred = mine.find((c) => c.credentialID === b.credentialID);
      if (!cred) {
        return json(400, { error: 'invalid_request', error_description: 'unknown credentialID' });
      }
      if (url.pathname === '/csc/v2/credentials/info') {
        return json(200, {
          key: { status: 'enabled', algo: ['1.2.840.113549.1.1.11'], len: 2048 },
          cert: { status: 'valid', certificates: [cred.certificateDer, ...cred.chainDer].map((d) => d.toString('base64')) },
          authMode: 'oauth2code',
          SCAL: '1',
        });
      }
      if (url.pathname === '/csc/v2/signatures/signHash') {
        if (b.hashAlgorithmOID !== '2.16.840.1.101.3.4.2.1' || !Array.isArray(b.hashes)) {
          return json(400, { error: 'invalid_request' });
        }
        const signatures = (b.hashes as string[]).map((h) =>
          privateEncrypt(
            { key: cred.privateKey, padding: constants.RSA_PKCS1_PADDING },
            Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(h, 'base64')]),
          ).toString('base64'),
        );
        return json(200, { signatures });
      }
      return json(404, { error: 'not_found' });
    })().catch(() => json(500, { error: 'server_error' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  return {
    baseUrl: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/csc/v2`,
    clientId,
    clientSecret,
    calls,
    add: (c) => credentials.push(c),
    signInAs: (u) => {
      user = u;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
