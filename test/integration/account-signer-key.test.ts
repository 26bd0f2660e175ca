// The key type of signer certificates is an account's choice (`sello account update --signer-key`):
// an account set to ecdsa-p256 gets ECDSA P-256 signer certificates, the others the operator's
// (RSA-2048 by default), read at each signature; a bad value is refused naming the field, and
// changes nothing. The ECDSA signature is judged by pdfsig (NSS, the service's root trusted) and by
// `openssl cms -verify` over the signed bytes.
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelloClient } from '../../src/client/index.js';
import { updateAccount } from '../../src/domain/accounts/update-account.js';
import { AppError } from '../../src/domain/errors.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';
import { postDrawnSignature, signerToken } from '../helpers/signer-page.js';
import { firstSignature, opensslCmsVerify } from '../helpers/openssl-cms.js';

let s: TestServer;
let dir: string;
let rootPem: string;
let ecClient: SelloClient;
let ecWebId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sello-signer-key-'));
  s = await startTestServer();
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  const other = await s.newAccount('Cuenta ECDSA');
  ecClient = other.client;
  ecWebId = other.creds.webId;
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One signer signs a one-page document of `client`'s account; the signed PDF, its CMS, the signed bytes. */
async function signOne(client: SelloClient) {
  const doc = await client.createDocument({
    b64_doc: (await makePdf([A4])).toString('base64'),
    name: 'Contrato',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
    ],
  });
  const res = await postDrawnSignature(s.baseUrl, signerToken(doc.stickers[0].signer_url));
  expect(res.status, await res.clone().text()).toBe(200);
  const pdf = Buffer.from((await client.downloadDocument('original', doc.document_ticket)).bytes);
  const { der, signed } = firstSignature(pdf);
  return { pdf, der, signed, signer: signerCertificate(der) };
}

/** The signer's certificate in the CMS, as openssl reads it (the first one printed is the signer's). */
function signerCertificate(der: Buffer): X509Certificate {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.p7s`);
  writeFileSync(file, der);
  const out = spawnSync('openssl', ['pkcs7', '-inform', 'DER', '-in', file, '-print_certs'], { encoding: 'utf8' }).stdout;
  const certs = (out.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((p) => new X509Certificate(p));
  const signer = certs.find((c) => c.subject.includes('CN=Ana García'));
  if (!signer) {
    throw new Error(`no signer certificate in the CMS:\n${out}`);
  }
  return signer;
}

function opensslVerify(sig: { der: Buffer; signed: Buffer }): { ok: boolean; out: string } {
  return opensslCmsVerify(dir, `v${Math.random().toString(36).slice(2)}`, sig, rootPem);
}

describe('the signer key type, chosen per account', () => {
  it('an account set to ecdsa-p256 gets ECDSA P-256 signer certificates; another account keeps RSA-2048', async () => {
    expect(s.deps.config.pki.signerKey).toBe('rsa-2048');
    expect(await updateAccount(s.deps, { webId: ecWebId, signerKey: 'ecdsa-p256' })).toEqual({ webId: ecWebId, signerKey: 'ecdsa-p256' });

    const ec = await signOne(ecClient);
    expect(ec.signer.publicKey.asymmetricKeyType).toBe('ec');
    expect(ec.signer.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const rsa = await signOne(s.client);
    expect(rsa.signer.publicKey.asymmetricKeyType).toBe('rsa');
    expect(rsa.signer.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);

    // Judged by tools Sello did not write: NSS with the service's root trusted, and OpenSSL.
    const report = await pdfsig(ec.pdf, rootPem);
    expect(
      report.signatures.map((x) => [x.valid, x.trusted, x.totalDocumentSigned]),
      report.output,
    ).toEqual([[true, true, true]]);
    const verified = opensslVerify(ec);
    expect(verified.ok, verified.out).toBe(true);
  });

  it('refuses a key type it does not offer, naming the field, and changes nothing', async () => {
    await updateAccount(s.deps, { webId: ecWebId, signerKey: 'ecdsa-p256' });
    const refused = await updateAccount(s.deps, { webId: ecWebId, signerKey: 'rsa-4096' as 'rsa-2048' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'signer-key: expected rsa-2048, ecdsa-p256, default',
      details: { field: 'signer-key' },
    });
    expect((await signOne(ecClient)).signer.publicKey.asymmetricKeyType).toBe('ec');
  });

  it("`default` gives the account the operator's key type again, from its next signature", async () => {
    await updateAccount(s.deps, { webId: ecWebId, signerKey: 'ecdsa-p256' });
    expect((await signOne(ecClient)).signer.publicKey.asymmetricKeyType).toBe('ec');
    await updateAccount(s.deps, { webId: ecWebId, signerKey: 'default' });
    expect((await signOne(ecClient)).signer.publicKey.asymmetricKeyType).toBe('rsa');
  });

  it('an unknown account is refused', async () => {
    await expect(updateAccount(s.deps, { webId: 'no-such-account', signerKey: 'ecdsa-p256' })).rejects.toMatchObject({
      code: 'ACCOUNT_NOT_FOUND',
    });
  });
});
