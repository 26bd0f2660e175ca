// A remote signing provider on loopback, speaking the Cloud Signature Consortium API v2 as a
// qualified trust service provider offers it: oauth2/authorize (an approval page; its button sends
// the signer back with a code) of scope `service` or of scope `credential` for one credential and
// the hashes it may sign (§8.4.2), oauth2/token (authorization code with PKCE, RFC 7636 S256, the
// client authenticated by its secret), credentials/list and credentials/info (the certificate
// chain, the key's algorithms, the SCAL, the authMode) under a `service` token,
// credentials/authorize (the SAD of an `implicit` credential, bound to the hashes it may sign,
// §11.6) and signatures/signHash: under a `service` token with a SAD, or under a `credential` token
// for the very hashes it was granted for, as many as it said (RSASSA-PKCS1-v1_5 over SHA-256,
// RSASSA-PSS with its parameters, ECDSA: openssl signs the given digest as a token would). Each
// signer's credential is a key and a certificate from a test CA (cert-pki.ts) the operator trusts.
import { execFileSync } from 'node:child_process';
import { createHash, privateEncrypt, constants, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CscCredential {
  credentialID: string;
  /** Whose credential it is: the user the approval page signs in. */
  user: string;
  certificateDer: Buffer;
  chainDer: Buffer[];
  privateKey: KeyObject;
  /** credentials/info's key/algo; default sha256WithRSAEncryption, or ecdsa-with-SHA256 for an EC key. */
  algo?: string[];
  /** Sole Control Assurance Level: "2" signs only hashes the signer authorized. Default "1". */
  scal?: '1' | '2';
  /**
   * How the credential is authorized (§11.5): `implicit` (credentials/authorize, no PIN), or
   * `oauth2code` (an OAuth 2.0 authorization of scope `credential` with the hashes). Default
   * `implicit` for SCAL1, `oauth2code` for SCAL2.
   */
  authMode?: 'implicit' | 'explicit' | 'oauth2code';
}

const authModeOf = (c: CscCredential) => c.authMode ?? ((c.scal ?? '1') === '2' ? 'oauth2code' : 'implicit');

/** What an access token authorizes: the `service` (list, info, authorize), or one credential's signatures of these hashes. */
type Grant =
  | { user: string; scope: 'service' }
  | { user: string; scope: 'credential'; credentialID: string; hashes: Set<string>; left: number };

// The OIDs the simulated provider speaks (CSC API v2 §11.5, §11.9; RFC 8017, RFC 5758).
const OIDS = {
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  rsassaPss: '1.2.840.113549.1.1.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
};

export interface CscProvider {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Every API call received, in order (path and the token's user). */
  calls: { path: string; body: Record<string, unknown> }[];
  add(c: CscCredential): void;
  /** Who the approval page signs in as (the signer at the provider). */
  signInAs(user: string): void;
  /** An access token of scope `service` for `user`, as the token endpoint would give after their approval. */
  tokenFor(user: string): string;
  close(): Promise<void>;
}

// DigestInfo prefix for SHA-256 (RFC 8017 §9.2 note 1): what PKCS#1 v1.5 signs around the hash.
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');
const PSS_SHA256_PARAMS = Buffer.from(
  '3034a00f300d06096086480165030402010500a11c301a06092a864886f70d010108300d06096086480165030402010500a203020120',
  'hex',
);

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
  const codes = new Map<string, { grant: Grant; challenge: string; redirectUri: string }>();
  const tokens = new Map<string, Grant>();
  const calls: CscProvider['calls'] = [];
  /** SADs given by credentials/authorize: whose, for which credential, the hashes and how many signatures left. */
  const sads = new Map<string, { user: string; credentialID: string; hashes: Set<string>; left: number }>();
  const keyDir = mkdtempSync(join(tmpdir(), 'sello-csc-keys-'));
  let user = '';

  /** openssl signs the digest as given (pkeyutl takes its input as the hash), as a signing device does. */
  const signDigest = (cred: CscCredential, digest: Buffer, options: string[]) => {
    const keyFile = join(keyDir, `${cred.credentialID.replace(/[^\w.-]/g, '_')}.pem`);
    writeFileSync(keyFile, cred.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    return execFileSync('openssl', ['pkeyutl', '-sign', '-inkey', keyFile, ...options], { input: digest });
  };

  const sign = (cred: CscCredential, b: Record<string, unknown>, hash: Buffer): Buffer | string => {
    const hashOid = b.hashAlgorithmOID;
    if (b.signAlgo === OIDS.sha256WithRsa && hashOid === OIDS.sha256) {
      return privateEncrypt({ key: cred.privateKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA256_DIGEST_INFO, hash]));
    }
    if (b.signAlgo === OIDS.ecdsaWithSha256 || b.signAlgo === OIDS.ecdsaWithSha384) {
      const expected = b.signAlgo === OIDS.ecdsaWithSha256 ? 32 : 48;
      return hash.length === expected ? signDigest(cred, hash, []) : 'the hash does not fit signAlgo';
    }
    if (b.signAlgo === OIDS.rsassaPss && hashOid === OIDS.sha256) {
      // RSASSA-PSS-params of SHA-256, MGF1 with SHA-256, a 32-byte salt (RFC 4055 §3.1), DER in Base64.
      if (typeof b.signAlgoParams !== 'string' || !PSS_SHA256_PARAMS.equals(Buffer.from(b.signAlgoParams, 'base64'))) {
        return 'signAlgoParams: RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt expected';
      }
      const options = ['rsa_padding_mode:pss', 'rsa_pss_saltlen:32', 'digest:sha256', 'rsa_mgf1_md:sha256'];
      return signDigest(
        cred,
        hash,
        options.flatMap((o) => ['-pkeyopt', o]),
      );
    }
    return `signAlgo ${String(b.signAlgo)} with hash ${String(hashOid)} is not offered`;
  };

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
        const scope = q.get('scope');
        if (q.get('client_id') !== clientId || q.get('response_type') !== 'code' || (scope !== 'service' && scope !== 'credential')) {
          return json(400, { error: 'invalid_request' });
        }
        if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
          return json(400, { error: 'invalid_request', error_description: 'PKCE S256 required' });
        }
        let grant: Grant = { user, scope: 'service' };
        if (scope === 'credential') {
          // §8.4.2: the credential, how many signatures, and the hashes (base64url, comma-separated) with their algorithm.
          const cred = credentials.find((c) => c.user === user && c.credentialID === q.get('credentialID'));
          const hashes = (q.get('hashes') ?? '').split(',').filter((h) => h !== '');
          const n = Number(q.get('numSignatures'));
          if (!cred || !Number.isInteger(n) || n < 1 || hashes.length !== n || !q.get('hashAlgorithmOID')) {
            return json(400, {
              error: 'invalid_request',
              error_description: 'credentialID, numSignatures, hashes and hashAlgorithmOID required',
            });
          }
          grant = {
            user,
            scope: 'credential',
            credentialID: cred.credentialID,
            hashes: new Set(hashes.map((h) => Buffer.from(h, 'base64url').toString('base64'))),
            left: n,
          };
        }
        const code = randomBytes(12).toString('hex');
        const redirectUri = q.get('redirect_uri') ?? '';
        codes.set(code, { grant, challenge: q.get('code_challenge')!, redirectUri });
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
        tokens.set(token, c.grant);
        return json(200, { access_token: token, token_type: 'Bearer', expires_in: 600 });
      }
      const grant = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!grant) {
        return json(401, { error: 'invalid_token' });
      }
      const who = grant.user;
      const b = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      calls.push({ path: url.pathname, body: b });
      const mine = credentials.filter((c) => c.user === who);
      if (grant.scope !== 'service' && url.pathname !== '/csc/v2/signatures/signHash') {
        return json(403, { error: 'insufficient_scope', error_description: 'this call needs an access token of scope service' });
      }
      if (url.pathname === '/csc/v2/credentials/list') {
        return json(200, { credentialIDs: mine.map((c) => c.credentialID) });
      }
      const cred = mine.find((c) => c.credentialID === b.credentialID);
      if (!cred) {
        return json(400, { error: 'invalid_request', error_description: 'unknown credentialID' });
      }
      if (url.pathname === '/csc/v2/credentials/info') {
        const ec = cred.privateKey.asymmetricKeyType === 'ec';
        return json(200, {
          key: { status: 'enabled', algo: cred.algo ?? [ec ? OIDS.ecdsaWithSha256 : OIDS.sha256WithRsa], len: ec ? 256 : 2048 },
          cert: { status: 'valid', certificates: [cred.certificateDer, ...cred.chainDer].map((d) => d.toString('base64')) },
          authMode: authModeOf(cred),
          SCAL: cred.scal ?? '1',
        });
      }
      if (url.pathname === '/csc/v2/credentials/authorize') {
        // An oauth2code credential is authorized at oauth2/authorize only; no PIN is asked of an implicit one.
        if (authModeOf(cred) === 'oauth2code') {
          return json(400, { error: 'invalid_request', error_description: 'this credential is authorized through oauth2/authorize' });
        }
        if (authModeOf(cred) === 'explicit' && typeof b.PIN !== 'string' && typeof b.OTP !== 'string') {
          return json(400, { error: 'invalid_request', error_description: 'PIN or OTP required' });
        }
        const hashes = Array.isArray(b.hashes) ? (b.hashes as unknown[]).filter((h): h is string => typeof h === 'string') : [];
        const n = Number(b.numSignatures);
        // §11.6: SCAL2 needs the hashes (and their algorithm); numSignatures is their count.
        if (
          !Number.isInteger(n) ||
          n < 1 ||
          ((cred.scal ?? '1') === '2' && (hashes.length !== n || typeof b.hashAlgorithmOID !== 'string'))
        ) {
          return json(400, { error: 'invalid_request', error_description: 'numSignatures, hashes and hashAlgorithmOID required' });
        }
        const sad = randomBytes(16).toString('hex');
        sads.set(sad, { user: who, credentialID: cred.credentialID, hashes: new Set(hashes), left: n });
        return json(200, { SAD: sad, expiresIn: 300 });
      }
      if (url.pathname === '/csc/v2/signatures/signHash') {
        if (!Array.isArray(b.hashes) || b.hashes.length === 0) {
          return json(400, { error: 'invalid_request', error_description: 'hashes required' });
        }
        const hashes = b.hashes as string[];
        if (grant.scope === 'credential') {
          // A credential-scoped token signs its credential's granted hashes only, as many times as it said.
          if (grant.credentialID !== cred.credentialID || grant.left < hashes.length) {
            return json(400, { error: 'invalid_request', error_description: 'the access token does not authorize this credential' });
          }
          if (!hashes.every((h) => grant.hashes.has(h))) {
            return json(400, { error: 'invalid_request', error_description: 'the access token does not authorize these hashes' });
          }
          grant.left -= hashes.length;
        } else {
          // A service token signs only with a SAD for these hashes of this credential (§11.9).
          const sad = typeof b.SAD === 'string' ? sads.get(b.SAD) : undefined;
          if (!sad || sad.user !== who || sad.credentialID !== cred.credentialID || sad.left < hashes.length) {
            return json(400, { error: 'invalid_request', error_description: 'a valid SAD is required with a service access token' });
          }
          if ((sad.hashes.size > 0 || (cred.scal ?? '1') === '2') && !hashes.every((h) => sad.hashes.has(h))) {
            return json(400, { error: 'invalid_request', error_description: 'the SAD does not authorize these hashes' });
          }
          sad.left -= hashes.length;
        }
        const signatures: string[] = [];
        for (const h of hashes) {
          const made = sign(cred, b, Buffer.from(h, 'base64'));
          if (typeof made === 'string') {
            return json(400, { error: 'invalid_request', error_description: made });
          }
          signatures.push(made.toString('base64'));
        }
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
    tokenFor: (u) => {
      const token = randomBytes(16).toString('hex');
      tokens.set(token, { user: u, scope: 'service' });
      return token;
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(keyDir, { recursive: true, force: true });
    },
  };
}
