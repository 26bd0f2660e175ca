// The service's keys in a PKCS#11 token (SoftHSM2, initialised in a directory of this test): the
// PKI is generated in the token on the first start, and what the token signs is judged by tools
// Sello did not write (pdfsig with the service's root trusted, `openssl ts -verify`, `openssl
// ocsp`). A token that cannot be opened stops the start naming the setting; one that goes away
// while the service runs makes /healthz say which key, and signing answer 503, never sign with
// another key.
import { execFile, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { loadPki } from '../../src/domain/pki/load-pki.js';
import { openServiceKeyStore, tokenStartError } from '../../src/domain/pki/open-key-store.js';
import { timeStampTokenFromReply } from '../../src/pki/index.js';
import { loadPkiMaterial } from '../../src/store/pki-repo.js';
import { firstSignature } from '../helpers/openssl-cms.js';
import { opensslTsVerify } from '../helpers/openssl-ts.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { postDrawnSignature, signerToken } from '../helpers/signer-page.js';
import { pdfsig } from '../helpers/validators.js';

const MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const TOKEN = 'sello-test';
const PIN = '4711';

let dir: string;
let tokens: string;
let env: Record<string, string>;

/** A SoftHSM2 token of this test: its own configuration and token directory (SOFTHSM2_CONF). */
function initToken(): void {
  dir = mkdtempSync(join(tmpdir(), 'sello-pkcs11-'));
  tokens = join(dir, 'tokens');
  spawnSync('mkdir', ['-p', tokens]);
  writeFileSync(join(dir, 'softhsm2.conf'), `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  // Read by the module at C_Initialize, in this process and in softhsm2-util.
  process.env.SOFTHSM2_CONF = join(dir, 'softhsm2.conf');
  const init = spawnSync('softhsm2-util', ['--init-token', '--free', '--label', TOKEN, '--pin', PIN, '--so-pin', '123456'], {
    encoding: 'utf8',
  });
  if (init.status !== 0) {
    throw new Error(`softhsm2-util (Debian package softhsm2) could not initialise a token: ${init.stderr || init.error}`);
  }
  writeFileSync(join(dir, 'pin'), `${PIN}\n`);
  writeFileSync(join(dir, 'wrong-pin'), '0000\n');
  env = {
    SELLO_PKCS11_MODULE: MODULE,
    SELLO_PKCS11_TOKEN_LABEL: TOKEN,
    SELLO_PKCS11_PIN_FILE: join(dir, 'pin'),
  };
}

/** The ConfigError (or other failure) of opening the token as the runtime does. */
async function startError(extra: Record<string, string>): Promise<unknown> {
  const config = loadConfig({ NODE_ENV: 'test', ...env, ...extra });
  return openServiceKeyStore(config.pki.pkcs11).then(
    (opened) => {
      opened.close();
      return undefined;
    },
    (error: unknown) => error,
  );
}

beforeAll(() => {
  initToken();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

// First, while no session of this process is logged in: PKCS#11 logins are per process (v2.40
// §5.6), so a wrong PIN is only refused by a token nobody here has logged in to yet.
describe('a token that cannot be opened stops the start, naming the setting', () => {
  it('a wrong PIN', async () => {
    const error = await startError({ SELLO_PKCS11_PIN_FILE: join(dir, 'wrong-pin') });
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/SELLO_PKCS11_PIN_FILE: cannot log in to token "sello-test": the PIN is wrong/);
  });

  it('a module that is not there, a token that is not there, a PIN file that cannot be read', async () => {
    const module = await startError({ SELLO_PKCS11_MODULE: join(dir, 'no-such-module.so') });
    expect((module as Error).message).toMatch(/SELLO_PKCS11_MODULE: the PKCS#11 module .*no-such-module\.so cannot be loaded/);
    const token = await startError({ SELLO_PKCS11_TOKEN_LABEL: 'other-token' });
    expect((token as Error).message).toMatch(/SELLO_PKCS11_TOKEN_LABEL: no token "other-token" is present/);
    const pinFile = await startError({ SELLO_PKCS11_PIN_FILE: join(dir, 'no-pin-file') });
    expect((pinFile as Error).message).toMatch(/SELLO_PKCS11_PIN_FILE: the PIN file cannot be read \(ENOENT\)/);
  });

  it('incomplete token settings are configuration errors listed at start', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', SELLO_PKCS11_MODULE: MODULE })).toThrow(
      /SELLO_PKCS11_SLOT or SELLO_PKCS11_TOKEN_LABEL: set one of them[\s\S]*SELLO_PKCS11_PIN or SELLO_PKCS11_PIN_FILE: set one of them/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', SELLO_PKCS11_PIN: '1' })).toThrow(
      /SELLO_PKCS11_PIN: token settings without SELLO_PKCS11_MODULE/,
    );
  });
});

describe('the service keys in the token', () => {
  let s: TestServer;
  let rootPem: string;
  let chainPem: string;

  beforeAll(async () => {
    s = await startTestServer({ env });
    rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
    chainPem = await (await fetch(`${s.baseUrl}/pki/chain.pem`)).text();
  });
  afterAll(async () => {
    await s?.close();
  });

  const file = (name: string) => join(dir, name);

  /** One signer signs a one-page document; the signed PDF and the signer's certificate. */
  async function signOne() {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Contrato',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
      ],
    });
    const res = await postDrawnSignature(s.baseUrl, signerToken(doc.stickers[0].signer_url));
    return { doc, res };
  }

  it('are generated in the token on the first start: the database stores certificates and labels, no key', async () => {
    const stored = await loadPkiMaterial(s.deps.db);
    const { root, issuing, tsa, ocsp } = stored!.sealed;
    expect([root, issuing, tsa, ocsp].map((k) => [k.tokenLabel, k.sealedKey])).toEqual([
      ['sello-root', undefined],
      ['sello-ca', undefined],
      ['sello-tsa', undefined],
      ['sello-ocsp', undefined],
    ]);
    expect([s.deps.pki.pki.issuing.key.location, s.deps.pki.pki.tsa.key.location, s.deps.pki.pki.ocsp.key.location]).toEqual([
      'token',
      'token',
      'token',
    ]);
    const health = await fetch(`${s.baseUrl}/healthz`);
    expect(health.status).toBe(200);
  });

  it('sign a document whose signature pdfsig finds valid and trusted, and whose signer certificate the OCSP responder answers for', async () => {
    const { doc, res } = await signOne();
    expect(res.status, await res.clone().text()).toBe(200);
    const pdf = Buffer.from((await s.client.downloadDocument('original', doc.document_ticket)).bytes);
    const report = await pdfsig(pdf, rootPem);
    expect(
      report.signatures.map((x) => [x.commonName, x.valid, x.trusted, x.totalDocumentSigned]),
      report.output,
    ).toEqual([['Ana García', true, true, true]]);

    // The signer certificate (issued by the token's CA key), asked about by openssl at /pki/ocsp:
    // the answer is signed by the token's OCSP responder key and verifies to the root.
    const { der } = firstSignature(pdf);
    writeFileSync(file('sig.p7s'), der);
    const printed = spawnSync('openssl', ['pkcs7', '-inform', 'DER', '-in', file('sig.p7s'), '-print_certs'], { encoding: 'utf8' }).stdout;
    const certs = (printed.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((p) => new X509Certificate(p));
    const signer = certs.find((c) => c.subject.includes('CN=Ana García'));
    expect(signer, printed).toBeDefined();
    writeFileSync(file('ana.pem'), signer!.toString());
    writeFileSync(file('root.pem'), rootPem);
    writeFileSync(file('issuing.pem'), chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0]);
    const { stdout, stderr } = await promisify(execFile)(
      'openssl',
      ['ocsp', '-url', `${s.baseUrl}/pki/ocsp`, '-issuer', file('issuing.pem'), '-cert', file('ana.pem'), '-CAfile', file('root.pem')],
      { encoding: 'utf8' },
    );
    expect(`${stdout}${stderr}`).toMatch(/Response verify OK/);
    expect(stdout).toMatch(/ana\.pem: good/);
  });

  it('time-stamps with the token: openssl ts -verify accepts the token against the data and the root', async () => {
    const data = Buffer.from('sellado con la llave del token');
    writeFileSync(file('data.bin'), data);
    const query = spawnSync('openssl', ['ts', '-query', '-data', file('data.bin'), '-sha256', '-cert', '-out', file('q.tsq')], {
      encoding: 'utf8',
    });
    expect(query.status, query.stderr).toBe(0);
    const res = await fetch(`${s.baseUrl}/tsa`, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query' },
      body: spawnSync('cat', [file('q.tsq')]).stdout,
    });
    expect(res.status).toBe(200);
    const token = timeStampTokenFromReply(new Uint8Array(await res.arrayBuffer()));
    const verified = await opensslTsVerify(token, { data }, rootPem, { untrustedPem: chainPem });
    expect(verified.ok, verified.output).toBe(true);
  });

  it('refuses to start with a key label the token does not hold, naming its setting', async () => {
    const config = loadConfig({ NODE_ENV: 'test', ...env, SELLO_PKCS11_CA_KEY_LABEL: 'sello-ca-elsewhere' });
    const opened = await openServiceKeyStore(config.pki.pkcs11);
    try {
      const error = await loadPki(
        { db: s.deps.db, secrets: s.deps.secrets, clock: s.deps.clock, keyStore: opened.store },
        { organization: 'Sello Test' },
        s.baseUrl,
      ).then(
        () => undefined,
        (e: unknown) => tokenStartError(e),
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(
        /SELLO_PKCS11_CA_KEY_LABEL=sello-ca-elsewhere: token "sello-test" has no private key labelled "sello-ca-elsewhere" \(the issuing CA key\)/,
      );
    } finally {
      opened.close();
    }
  });

  it('when the token goes away: /healthz names the keys, a signature answers 503 and nothing is signed', async () => {
    renameSync(tokens, `${tokens}-away`);
    try {
      const health = await fetch(`${s.baseUrl}/healthz`);
      expect(health.status).toBe(503);
      const body = (await health.json()) as { error: { code: string; message: string; details: { keys: { role: string }[] } } };
      expect(body.error.code).toBe('SERVICE_KEY_UNAVAILABLE');
      expect(body.error.details.keys.map((k) => k.role)).toEqual(['root', 'issuing', 'tsa', 'ocsp']);
      expect(body.error.message).toMatch(/issuing \("sello-ca"\)/);

      const { doc, res } = await signOne();
      expect(res.status).toBe(503);
      const refused = (await res.json()) as { error: { code: string } };
      expect(refused.error.code).toBe('SERVICE_KEY_UNAVAILABLE');
      // Nothing was signed: the document is still its source, with no signature in it.
      const original = await s.client.downloadDocument('original', doc.document_ticket);
      const source = await s.client.downloadDocument('source', doc.document_ticket);
      expect(Buffer.from(original.bytes).equals(Buffer.from(source.bytes))).toBe(true);

      const stamp = await fetch(`${s.baseUrl}/tsa`, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query' },
        body: spawnSync('cat', [file('q.tsq')]).stdout,
      });
      expect(stamp.status).toBe(503);

      // An OCSP client is told to ask again (tryLater), by an answer nobody signed.
      const ocsp = await promisify(execFile)(
        'openssl',
        ['ocsp', '-url', `${s.baseUrl}/pki/ocsp`, '-issuer', file('issuing.pem'), '-cert', file('ana.pem'), '-CAfile', file('root.pem')],
        { encoding: 'utf8' },
      ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
      expect(`${ocsp.stdout}${ocsp.stderr}`).toMatch(/Responder Error: trylater \(3\)/);
    } finally {
      renameSync(`${tokens}-away`, tokens);
    }
  });
});
