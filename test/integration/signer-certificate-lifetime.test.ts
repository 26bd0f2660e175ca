// A Sello signature stays valid in validators that judge the signer certificate at the current time
// and ignore the signature's time stamp (pdfsig, `openssl cms -verify` without -attime): checked a
// year after signing by moving those tools' clock (faketime for pdfsig, -attime for openssl).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNER_CERT_DAYS } from '../../src/pki/signer-defaults.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { firstSignature, opensslCmsVerify } from '../helpers/openssl-cms.js';
import { postDrawnSignature, signerToken } from '../helpers/signer-page.js';

const YEAR_DAYS = 365;
let dir: string;
let lasting: TestServer;
let shortLived: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sello-lifetime-'));
  [lasting, shortLived] = await Promise.all([startTestServer(), startTestServer({ env: { SELLO_SIGNER_CERT_DAYS: '1' } })]);
});
afterAll(async () => {
  await Promise.all([lasting?.close(), shortLived?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`;
}

/** One signer signs a one-page document; the signed PDF, its CMS and signed bytes, and the root. */
async function signedBy(s: TestServer) {
  const doc = await s.client.createDocument({
    b64_doc: (await makePdf([A4])).toString('base64'),
    name: 'Contrato',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
    ],
  });
  const res = await postDrawnSignature(s.baseUrl, signerToken(doc.stickers[0].signer_url));
  expect(res.status).toBe(200);
  const pdf = Buffer.from((await s.client.downloadDocument('original', doc.document_ticket)).bytes);
  const { der, signed } = firstSignature(pdf);
  const root = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  return { pdf, der, signed, root };
}

/** pdfsig's certificate verdict with its clock `days` ahead (no OCSP: the answer would be a year old). */
function pdfsigAhead(name: string, pdf: Buffer, root: string, days: number): string {
  const nss = join(dir, `nss-${name}`);
  writeFileSync(join(dir, `${name}.pem`), root);
  writeFileSync(join(dir, `${name}.pdf`), pdf);
  run('mkdir', ['-p', nss]);
  run('certutil', ['-N', '-d', `sql:${nss}`, '--empty-password']);
  run('certutil', ['-A', '-d', `sql:${nss}`, '-n', 'root', '-t', 'CT,C,C', '-i', join(dir, `${name}.pem`)]);
  const out = run('faketime', ['-f', `+${days}d`, 'pdfsig', '-no-ocsp', '-nssdir', `sql:${nss}`, join(dir, `${name}.pdf`)]);
  return /Certificate Validation: (.*)$/m.exec(out)?.[1] ?? out;
}

/** openssl's verdict on the CMS over the signed bytes, judging the chain `days` from now. */
function opensslAhead(name: string, sig: { der: Buffer; signed: Buffer; root: string }, days: number): string {
  return opensslCmsVerify(dir, name, sig, sig.root, Math.floor(Date.now() / 1000) + days * 86_400).out;
}

describe('signer certificate lifetime', () => {
  it(`lasts ${SIGNER_CERT_DAYS} days by default: a year later pdfsig still says "Certificate is Trusted" and openssl verifies`, async () => {
    const sig = await signedBy(lasting);
    expect(pdfsigAhead('lasting-now', sig.pdf, sig.root, 0)).toBe('Certificate is Trusted.');
    expect(pdfsigAhead('lasting', sig.pdf, sig.root, YEAR_DAYS)).toBe('Certificate is Trusted.');
    expect(opensslAhead('lasting', sig, YEAR_DAYS)).toContain('Verification successful');
  });

  it('the control: with SELLO_SIGNER_CERT_DAYS=1 the same checks a year later say expired', async () => {
    const sig = await signedBy(shortLived);
    expect(pdfsigAhead('short-now', sig.pdf, sig.root, 0)).toBe('Certificate is Trusted.');
    expect(pdfsigAhead('short', sig.pdf, sig.root, YEAR_DAYS)).toBe('Certificate has Expired');
    expect(opensslAhead('short', sig, YEAR_DAYS)).toMatch(/certificate has expired/);
  });
});
