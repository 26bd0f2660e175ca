// Signing with the signer's own SAT e.firma, without a browser: prepare, sign the returned bytes with
// node:crypto and the test key (as the page does with WebCrypto), finish. Judged by pdfsig trusting
// the test SAT root, `openssl cms -verify` and the report; then every refusal.
import { derPrefix } from '../helpers/openssl-cms.js';
import { execFile } from 'node:child_process';
import { sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMessages } from '../../src/store/mail-repo.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type SatCredential, type SatTestPki, createSatTestPki } from '../helpers/sat-pki.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';
import { publicCall } from '../helpers/public-call.js';

const MARIA = { rfc: 'GOLM800101AB1', curp: 'GOLM800101MDFMPR09', name: 'MARIA GOMEZ LOPEZ' };
const JUAN = { rfc: 'PELJ750505XY2', curp: 'PELJ750505HDFRPN01', name: 'JUAN PEREZ LOPEZ' };

let s: TestServer;
let sat: SatTestPki;
let ocsp: Awaited<ReturnType<SatTestPki['ocspResponder']>>;
let pdf: string;
let maria: SatCredential;
let offsetMs = 0;

beforeAll(async () => {
  sat = await createSatTestPki();
  ocsp = await sat.ocspResponder();
  s = await startTestServer({
    env: { SELLO_SAT_TRUST_PEM: sat.trustPemPath, SELLO_SAT_OCSP_URL: ocsp.url },
    clock: { now: () => new Date(Date.now() + offsetMs) },
  });
  pdf = (await makePdf([A4, A4])).toString('base64');
  maria = await sat.issue(MARIA);
}, 60_000);
afterAll(async () => {
  await s?.close();
  await ocsp?.close();
  sat?.dispose();
});

const call = (method: string, path: string, body?: unknown) => publicCall(s.baseUrl, method, path, body);

const box = (page: number, x = 60) => ({ page, rect: { lx: x, ly: 60, tx: x + 220, ty: 130 } });

/** A document with a SAT signer (two boxes) and, optionally, a second SAT signer. */
async function satDocument(second = false) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [
      { authority: 'SAT', data: MARIA.rfc, name: 'María Gómez', ...box(0) },
      { authority: 'SAT', data: MARIA.rfc, ...box(1) },
      ...(second ? [{ authority: 'SAT' as const, data: JUAN.rfc, name: 'Juan Pérez', ...box(1, 320) }] : []),
    ],
  });
  const tokenOf = (i: number) => doc.stickers[i].signer_url.split('/').pop()!;
  return { doc, token: tokenOf(0), second: second ? tokenOf(2) : '' };
}

const prepare = (token: string, cred: SatCredential) =>
  call('POST', `/sign/api/${token}/sat/prepare`, { certificate: cred.cer.toString('base64'), consent: true, language: 'es' });
const signValue = (attrs: string, cred: SatCredential) => sign('sha256', Buffer.from(attrs, 'base64'), cred.privateKey).toString('base64');
const finish = (token: string, id: string, signature: string) =>
  call('POST', `/sign/api/${token}/sat/finish`, { preparation_id: id, signature });

/** The CMS of the last signature and the bytes its /ByteRange covers. */
function lastSignature(file: Buffer) {
  const text = file.toString('latin1');
  const at = text.lastIndexOf('/ByteRange');
  const [a, b, c, d] = /\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text.slice(at))!.slice(1).map(Number);
  const signed = Buffer.concat([file.subarray(a, a + b), file.subarray(c, c + d)]);
  const hex = file.subarray(a + b + 1, c - 1).toString('latin1');
  return { signed, cms: derPrefix(Buffer.from(hex, 'hex')) };
}

describe('signing with the SAT e.firma', () => {
  it('prepare → sign in the signer’s hands → finish: valid and trusted in pdfsig and openssl, named SAT in the report', async () => {
    const { doc, token } = await satDocument();
    const prepared = await prepare(token, maria);
    expect(prepared.status, JSON.stringify(prepared.json)).toBe(200);
    expect(prepared.json).toMatchObject({
      signature_algorithm: 'RSASSA-PKCS1-v1_5',
      hash: 'SHA-256',
      certificate: { rfc: MARIA.rfc, curp: MARIA.curp, name: MARIA.name, serial: maria.serialHex, status: 'good' },
    });
    expect(prepared.json.certificate.certificate_number).toBe(maria.certificateNumber);
    const done = await finish(token, prepared.json.preparation_id, signValue(prepared.json.signed_attributes, maria));
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    expect(done.json).toMatchObject({ status: 'signed', document_status: 'completed' });

    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const source = Buffer.from(pdf, 'base64');
    expect(file.subarray(0, source.length).equals(source)).toBe(true);
    const checked = await pdfsig(file, sat.rootPem);
    expect(checked.signatures, checked.output).toHaveLength(1);
    expect(checked.signatures[0]).toMatchObject({ valid: true, trusted: true, type: 'ETSI.CAdES.detached', commonName: MARIA.name });
    expect(checked.signatures[0].totalDocumentSigned).toBe(true);
    expect((await qpdfCheckAsync(file)).output).toMatch(/No syntax or stream encoding errors found/);

    const { signed, cms } = lastSignature(file);
    const dir = mkdtempSync(join(tmpdir(), 'sello-sat-cms-'));
    try {
      writeFileSync(join(dir, 'cms.der'), cms);
      writeFileSync(join(dir, 'content.bin'), signed);
      const { stderr } = await promisify(execFile)(
        'openssl',
        [
          'cms',
          '-verify',
          '-binary',
          '-inform',
          'DER',
          '-in',
          'cms.der',
          '-content',
          'content.bin',
          '-CAfile',
          sat.trustPemPath,
          '-purpose',
          'any',
          '-out',
          '/dev/null',
        ],
        { cwd: dir },
      );
      expect(stderr).toMatch(/Verification successful/);
      const { stdout } = await promisify(execFile)('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', 'cms.der'], {
        cwd: dir,
      });
      expect(stdout).toMatch(/signingCertificateV2|id-smime-aa-signingCertificateV2/);
      expect(stdout).toMatch(/id-smime-aa-timeStampToken/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas).toHaveLength(1);
    expect(report.firmas[0]).toMatchObject({
      certType: 'SAT',
      validSignature: true,
      signatureType: 'PAdES-B-T',
      signCertificateSerial: maria.serialHex,
      ocsp: { certStatus: 'good', signatureValid: true },
    });
    expect(report.firmas[0].certificados[0]).toMatchObject({ commonName: MARIA.name, serial: maria.serialHex });
    const history = await s.client.documentHistory(doc.document_ticket);
    const entry = history.entries.find((e) => e.action === 'signed')!;
    expect(entry.details).toMatchObject({
      signature_type: 'efirma',
      authority: 'SAT',
      certificate_serial: maria.serialHex,
      rfc: MARIA.rfc,
      certificate_number: maria.certificateNumber,
    });
    expect(history.entries.map((e) => e.action)).toContain('completed');

    // The same preparation cannot be finished twice.
    const again = await finish(token, prepared.json.preparation_id, signValue(prepared.json.signed_attributes, maria));
    expect([again.status, again.json.error.code]).toEqual([409, 'PREPARATION_USED']);
  });

  it('a drawn signature posted to /sign for a SAT signer is refused with the e.firma steps named, nothing signed', async () => {
    const { doc, token } = await satDocument();
    const r = await call('POST', `/sign/api/${token}/sign`, { signature: { type: 'typed', text: 'María Gómez' }, consent: true });
    expect([r.status, r.json.error.code]).toEqual([409, 'SAT_EFIRMA_REQUIRED']);
    expect(r.json.error.message).toMatch(/e\.firma.*\/sat\/prepare.*\/sat\/finish/);
    expect(r.json.error.details).toEqual({
      authority: 'SAT',
      prepare: '/sign/api/{token}/sat/prepare',
      finish: '/sign/api/{token}/sat/finish',
    });
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
    expect(listed.signers[0].status).not.toBe('signed');
  });

  it('refuses a seal certificate (CSD), another RFC, an expired certificate, an untrusted issuer and a revoked one', async () => {
    const { token } = await satDocument();
    const reasonOf = async (cred: SatCredential) => {
      const r = await prepare(token, cred);
      expect(r.status, JSON.stringify(r.json)).toBe(422);
      expect(r.json.error.code).toBe('SAT_CERTIFICATE_REFUSED');
      return r.json.error.details.reason;
    };
    expect(await reasonOf(await sat.issue({ ...MARIA, kind: 'CSD' }))).toBe('csd');
    expect(await reasonOf(await sat.issue(JUAN))).toBe('rfc_mismatch');
    expect(await reasonOf(await sat.issue({ ...MARIA, rogue: true }))).toBe('untrusted');
    const revoked = await sat.issue(MARIA);
    sat.revoke(revoked.serialHex);
    expect(await reasonOf(revoked)).toBe('revoked');
    const shortLived = await sat.issue({ ...MARIA, days: 1 });
    offsetMs = 3 * 86_400_000;
    try {
      expect(await reasonOf(shortLived)).toBe('expired');
    } finally {
      offsetMs = 0;
    }
  });

  it('refuses a signature value that does not verify (another key, garbage), keeping the preparation for a retry', async () => {
    const { token } = await satDocument();
    const other = await sat.issue(MARIA);
    const prepared = await prepare(token, maria);
    const wrongKey = await finish(token, prepared.json.preparation_id, signValue(prepared.json.signed_attributes, other));
    expect([wrongKey.status, wrongKey.json.error.code]).toEqual([422, 'SAT_SIGNATURE_INVALID']);
    const garbage = await finish(token, prepared.json.preparation_id, Buffer.alloc(256, 7).toString('base64'));
    expect([garbage.status, garbage.json.error.code]).toEqual([422, 'SAT_SIGNATURE_INVALID']);
    const right = await finish(token, prepared.json.preparation_id, signValue(prepared.json.signed_attributes, maria));
    expect(right.status, JSON.stringify(right.json)).toBe(200);
  });

  it('refuses an expired preparation and another signer’s preparation', async () => {
    const { token, second } = await satDocument(true);
    const juan = await sat.issue(JUAN);
    const mine = await prepare(token, maria);
    const theirs = await prepare(second, juan);
    expect(theirs.status).toBe(200);
    const crossed = await finish(second, mine.json.preparation_id, signValue(mine.json.signed_attributes, juan));
    expect([crossed.status, crossed.json.error.code]).toEqual([404, 'PREPARATION_NOT_FOUND']);
    offsetMs = 6 * 60_000;
    try {
      const late = await finish(token, mine.json.preparation_id, signValue(mine.json.signed_attributes, maria));
      expect([late.status, late.json.error.code]).toEqual([409, 'PREPARATION_EXPIRED']);
    } finally {
      offsetMs = 0;
    }
    // Juan signs first: Maria's fresh preparation was made on the revision before Juan's.
    const fresh = await prepare(token, maria);
    expect((await finish(second, theirs.json.preparation_id, signValue(theirs.json.signed_attributes, juan))).status).toBe(200);
    const stale = await finish(token, fresh.json.preparation_id, signValue(fresh.json.signed_attributes, maria));
    expect([stale.status, stale.json.error.code]).toEqual([409, 'PREPARATION_USED']);
    const again = await prepare(token, maria);
    const ok = await finish(token, again.json.preparation_id, signValue(again.json.signed_attributes, maria));
    expect(ok.json).toMatchObject({ status: 'signed', document_status: 'completed' });
  });

  it('keeps at most five unfinished preparations per signer', async () => {
    const { token } = await satDocument();
    for (let i = 0; i < 5; i++) {
      expect((await prepare(token, maria)).status).toBe(200);
    }
    const sixth = await prepare(token, maria);
    expect([sixth.status, sixth.json.error.code]).toEqual([429, 'RATE_LIMITED']);
  });

  it('signs when the SAT responder cannot be reached, and the report says the status is unknown', async () => {
    const sat2 = s.deps.config.sat as { ocspUrl: string | undefined };
    const url = sat2.ocspUrl;
    sat2.ocspUrl = 'http://127.0.0.1:9/ocsp';
    try {
      const { doc, token } = await satDocument();
      const prepared = await prepare(token, maria);
      expect(prepared.json.certificate.status).toBe('unknown');
      expect((await finish(token, prepared.json.preparation_id, signValue(prepared.json.signed_attributes, maria))).status).toBe(200);
      const report = await s.client.signatureReport(doc.document_ticket);
      expect(report.firmas[0]).toMatchObject({
        certType: 'SAT',
        validSignature: true,
        ocsp: { certStatus: 'unknown', signatureValid: false },
      });
    } finally {
      sat2.ocspUrl = url;
    }
  });

  it('a SAT signer rejects with their personal link: the document stops for everyone, nothing prepared can finish', async () => {
    const { doc, token, second } = await satDocument(true);
    const prepared = await prepare(second, await sat.issue(JUAN));
    expect(prepared.status).toBe(200);
    const rejected = await call('POST', `/sign/api/${token}/reject`, { reason: 'El RFC del contrato no es el mío' });
    expect(rejected.status, JSON.stringify(rejected.json)).toBe(200);
    expect(rejected.json).toMatchObject({ status: 'rejected', document_status: 'rejected' });
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
    expect(listed.status).toBe('rejected');
    const history = await s.client.documentHistory(doc.document_ticket);
    expect(history.entries.find((e) => e.action === 'rejected')?.details).toMatchObject({ reason: 'El RFC del contrato no es el mío' });
    // The other signer's preparation made before the rejection cannot be finished any more, and
    // preparing again cannot help: the document is not signable, which is what the answer says,
    // even once the preparation is past its time too.
    const late = await finish(second, prepared.json.preparation_id, 'AAAA');
    expect([late.status, late.json.error.code, late.json.error.details]).toEqual([409, 'DOCUMENT_NOT_SIGNABLE', { status: 'rejected' }]);
    offsetMs = 6 * 60_000;
    try {
      const expired = await finish(second, prepared.json.preparation_id, 'AAAA');
      expect([expired.status, expired.json.error.code]).toEqual([409, 'DOCUMENT_NOT_SIGNABLE']);
    } finally {
      offsetMs = 0;
    }
    // The answers table of the SAT section says the same.
    const api = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const section = api.slice(api.indexOf('#### Signing with the SAT e.firma'));
    const table = section.slice(section.indexOf('| Answer | When |'), section.indexOf('\n\n', section.indexOf('| Answer | When |')));
    expect(table).toMatch(/\| `409 DOCUMENT_NOT_SIGNABLE` \|[^\n]*`rejected`[^\n]*finish/);
    expect(table).not.toMatch(/`409 PREPARATION_USED` \|[^\n]*reject/);
  });

  it('on the document_url page a SAT signer asks for their link with the email the sender gave; without one they cannot', async () => {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      name: 'Contrato',
      stickers: [
        { authority: 'SAT', data: MARIA.rfc, email: 'maria@example.com', ...box(0) },
        { authority: 'SAT', data: JUAN.rfc, ...box(1) },
      ],
    });
    const ticket = doc.document_ticket;
    const page = await call('GET', `/sign/api/document/${ticket}`);
    expect(page.json.boxes.map((b: { signer: { link_by: string | null } }) => b.signer.link_by)).toEqual(['email', null]);
    const [mariaBox, juanBox] = page.json.boxes.map((b: { sticker_id: string }) => b.sticker_id);

    const before = (await listMessages(s.deps, 1000)).length;
    // The RFC reaches nobody: only the address on file gets the link.
    expect((await call('POST', `/sign/api/document/${ticket}/link`, { sticker_id: mariaBox, data: MARIA.rfc })).status).toBe(200);
    expect((await listMessages(s.deps, 1000)).length).toBe(before);
    const asked = await call('POST', `/sign/api/document/${ticket}/link`, { sticker_id: mariaBox, data: 'Maria@Example.com' });
    expect(asked.status).toBe(200);
    const [mail] = await listMessages(s.deps, 1);
    expect(mail.recipient).toBe('maria@example.com');
    expect(mail.body_text).toContain(doc.stickers[0].signer_url);

    const refused = await call('POST', `/sign/api/document/${ticket}/link`, { sticker_id: juanBox, data: 'juan@example.com' });
    expect([refused.status, refused.json.error.code]).toEqual([409, 'AUTHORITY_NOT_AVAILABLE']);
    expect(refused.json.error.message).toMatch(/no email address on file/);
  });

  it('a restart between prepare and finish loses nothing', async () => {
    const { doc, token } = await satDocument();
    const prepared = await prepare(token, maria);
    s = await s.restart();
    const done = await finish(token, prepared.json.preparation_id, signValue(prepared.json.signed_attributes, maria));
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    expect((await pdfsig(file, sat.rootPem)).signatures[0]).toMatchObject({ valid: true, trusted: true });
  });
});
