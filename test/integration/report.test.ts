// GET /api/report/{ticket}: the signature report of documents signed through the signing API,
// checked against what the service knows (stickers, certificates, its TSA and OCSP responder) and
// against pdfsig, an independent validator, on validity and coverage.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF } from '@libpdf/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignatureReport } from '../../src/client/index.js';
import { parsePdfDate, revisionEnds } from '../../src/pdf/pdf-revisions.js';
import { readSignatures } from '../../src/pdf/read-signatures.js';
import { revokeCertificate } from '../../src/store/pki-repo.js';
import { apiError } from '../helpers/api-error.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig, signaturePng } from '../helpers/validators.js';

let s: TestServer;
let rootPem: string;
let pdf: string;

beforeAll(async () => {
  s = await startTestServer();
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(() => s?.close());

const box = (page: number, x = 60) => ({ page, rect: { lx: x, ly: 60, tx: x + 200, ty: 130 } });
const dn = (der: Buffer) => new X509Certificate(der).subject.split('\n').join(', ');
const cn = (der: Buffer) => /^CN=(.*)$/m.exec(new X509Certificate(der).subject)![1];

async function sign(token: string, signature: Record<string, string>) {
  const res = await fetch(`${s.baseUrl}/sign/api/${token}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signature, consent: true }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** Ana (two boxes, drawn) then Bruno (one box, typed) sign; returns the document and the final PDF. */
async function signedByTwo() {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0) },
      { authority: 'EMAIL_LINK', data: 'ana@example.com', ...box(1) },
      { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', ...box(1, 320) },
    ],
  });
  const token = (i: number) => doc.stickers[i].signer_url.split('/').pop()!;
  await sign(token(0), { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` });
  await sign(token(2), { type: 'typed', text: 'Bruno Díaz' });
  const final = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
  return { doc, final, ana: doc.stickers[0].signer_id, bruno: doc.stickers[2].signer_id };
}

async function agreesWithPdfsig(report: SignatureReport, file: Buffer) {
  const checked = await pdfsig(file, rootPem);
  expect(
    checked.signatures.map((x) => x.field),
    checked.output,
  ).toEqual(report.firmas.map((f) => f.campoFirma));
  expect(checked.signatures.map((x) => x.valid)).toEqual(report.firmas.map((f) => f.validSignature));
  expect(checked.signatures.map((x) => x.totalDocumentSigned)).toEqual(report.firmas.map((f) => f.coversDocument));
  expect(checked.signatures.map((x) => x.commonName)).toEqual(report.firmas.map((f) => f.certificados[0].commonName));
}

describe('signature report', () => {
  it('reports both signatures: position, coverage, revisions, certificates, time stamp and status', async () => {
    const started = Date.now();
    const { doc, final, ana, bruno } = await signedByTwo();
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(Object.keys(report)).toEqual(['InkSignatures', 'firmas', 'documentIntegrity', 'attacks', 'endorsements']);
    expect(report.endorsements).toEqual([]);
    // The second signature is a change the first allows: nothing was modified after either.
    expect(report.documentIntegrity).toBe('intact');
    expect(report.attacks).toEqual([]);
    expect(report.firmas.map((f) => [f.modifiedAfterSigning, f.level, f.timestampValid, f.validationData, f.problem])).toEqual([
      [false, 'B-T', true, 'service', null],
      [false, 'B-T', true, 'service', null],
    ]);
    expect(report.firmas[0].changes.length).toBeGreaterThan(0);
    expect(report.firmas[0].changes.every((c) => c.allowed && c.revision === 3)).toBe(true);
    expect(report.firmas[1].changes).toEqual([]);
    const [a, b] = report.firmas;
    expect(report.firmas).toHaveLength(2);
    expect([a.campoFirma, b.campoFirma]).toEqual([`Sello-${ana}`, `Sello-${bruno}`]);
    expect(report.firmas.map((f) => f.validSignature)).toEqual([true, true]);
    expect(report.firmas.map((f) => f.coversDocument)).toEqual([false, true]);
    expect(report.firmas.map((f) => f.totalRevisions)).toEqual([3, 3]);
    expect(report.firmas.map((f) => f.revision)).toEqual([2, 3]);
    expect(report.firmas.map((f) => f.downstream)).toEqual([true, false]);

    // Boxes from the top-left corner of the page: the stickers' rects turned upside down.
    expect(a).toMatchObject({ page: 0, box: 0, left: 60, width: 200, height: 70 });
    expect(a.top).toBeCloseTo(A4.height - 130, 3);
    expect(b).toMatchObject({ page: 1, box: 2, left: 320, width: 200, height: 70 });
    expect(b.top).toBeCloseTo(A4.height - 130, 3);

    const issuingCn = cn(s.deps.pki.pki.issuing.certificateDer);
    const signers = (
      await sql<{ signer_id: string; certificate_serial: string }>`select signer_id, certificate_serial from signers`.execute(s.deps.db)
    ).rows;
    const serialOf = (id: string) => signers.find((x) => x.signer_id === id)!.certificate_serial;
    expect(a).toMatchObject({
      signatureType: 'PAdES-B-T',
      certType: 'SELLO',
      signCertificateSerial: serialOf(ana),
      email: 'ana@example.com',
      ipAddress: '127.0.0.1',
      timestampAuthority: dn(s.deps.pki.pki.tsa.certificateDer),
      downstreamData: { authority: 'EMAIL_LINK', dataType: 'email', subject: 'ana@example.com' },
      ocsp: { signatureValid: true, certStatus: 'good', signer: dn(s.deps.pki.pki.ocsp.certificateDer) },
    });
    expect(b.signCertificateSerial).toBe(serialOf(bruno));
    expect(a.certificados[0]).toEqual({
      commonName: 'Ana García',
      email: 'ana@example.com',
      serial: serialOf(ana),
      signatureAlgorithm: 'sha256WithRSAEncryption',
      issuerCommonName: issuingCn,
    });
    expect(a.certificados.map((c) => c.commonName)).toContain(issuingCn);
    expect(a.timestampAuthority).toMatch(/CN=Sello Test Time-Stamping Authority/);
    for (const f of report.firmas) {
      const at = Date.parse(f.signDate);
      expect(at).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000 - 1000);
      expect(at).toBeLessThanOrEqual(Date.now());
    }
    expect(Date.parse(a.signDate)).toBeLessThanOrEqual(Date.parse(b.signDate));

    // Ana drew her signature in both her boxes; Bruno typed his.
    expect(report.InkSignatures).toEqual([
      { campoFirma: `Sello-${ana}`, box: 0, page: 0, left: 60, top: expect.closeTo(A4.height - 130, 3), width: 200, height: 70 },
      { campoFirma: `Sello-${ana}`, box: 1, page: 1, left: 60, top: expect.closeTo(A4.height - 130, 3), width: 200, height: 70 },
    ]);
    await agreesWithPdfsig(report, final);
  });

  it('shows a revoked certificate; the signature stays valid only if revoked after its time stamp', async () => {
    const { doc } = await signedByTwo();
    const before = await s.client.signatureReport(doc.document_ticket);
    const [a, b] = before.firmas;
    expect(await revokeCertificate(s.deps.db, a.signCertificateSerial, new Date(), 1)).toBe(true);
    // Bruno's certificate revoked an hour before he signed: his signature no longer stands.
    expect(await revokeCertificate(s.deps.db, b.signCertificateSerial, new Date(Date.now() - 3_600_000), 1)).toBe(true);
    const after = await s.client.signatureReport(doc.document_ticket);
    expect(after.firmas.map((f) => f.ocsp.certStatus)).toEqual(['revoked', 'revoked']);
    expect(after.firmas.map((f) => f.ocsp.signatureValid)).toEqual([true, false]);
    expect(after.firmas.map((f) => f.validSignature)).toEqual([true, true]);
  });

  it('finds the signature whose signed bytes were changed, as pdfsig does', async () => {
    const { final } = await signedByTwo();
    // Change Bruno's claimed signing time (/M, in the last revision): inside his signed range,
    // after Ana's.
    const tampered = Buffer.from(final);
    const at = tampered.lastIndexOf('/M (D:');
    expect(at).toBeGreaterThan(0);
    const digit = at + '/M (D:'.length + 3; // the last digit of the year
    tampered[digit] = tampered[digit] === 0x30 ? 0x31 : 0x30;
    const copy = await s.client.createDocument({ b64_doc: tampered.toString('base64'), name: 'Copia' });
    const report = await s.client.signatureReport(copy.document_ticket);
    expect(report.firmas.map((f) => f.validSignature)).toEqual([true, false]);
    expect(report.firmas.map((f) => f.coversDocument)).toEqual([false, true]);
    // Signed elsewhere (by another document's signers): no box, no signer row, no ink.
    expect(report.firmas.map((f) => f.box)).toEqual([-1, -1]);
    expect(report.firmas[0].downstreamData).toEqual({ authority: '', dataType: 'email', subject: 'ana@example.com' });
    expect(report.firmas.map((f) => f.ocsp.signatureValid)).toEqual([true, false]);
    expect(report.InkSignatures).toEqual([]);
    await agreesWithPdfsig(report, tampered);
  });

  it('answers empty arrays for an unsigned document', async () => {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', ...box(0) }],
    });
    expect(await s.client.signatureReport(doc.document_ticket)).toEqual({
      InkSignatures: [],
      firmas: [],
      documentIntegrity: 'intact',
      attacks: [],
      endorsements: [],
    });
  });

  it("is 404 for another account's document or an unknown ticket, 409 for a deleted one", async () => {
    const doc = await s.client.createDocument({ b64_doc: pdf });
    const other = await s.newAccount('Other');
    const foreign = await apiError(other.client.signatureReport(doc.document_ticket));
    expect([foreign.status, foreign.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    const unknown = await apiError(s.client.signatureReport('no-such-ticket'));
    expect([unknown.status, unknown.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    await s.client.deleteDocument(doc.document_ticket);
    const deleted = await apiError(s.client.signatureReport(doc.document_ticket));
    expect([deleted.status, deleted.code]).toEqual([409, 'DOCUMENT_DELETED']);
  });
});

describe('read-signatures, the pure library', () => {
  it('counts a linearized file as one revision, and each incremental update after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-lin-'));
    let linearized: Buffer;
    try {
      writeFileSync(join(dir, 'in.pdf'), Buffer.from(pdf, 'base64'));
      execFileSync('qpdf', ['--linearize', join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
      linearized = readFileSync(join(dir, 'out.pdf'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Its first-page trailer ends in "startxref 0 %%EOF", which closes no revision.
    expect(linearized.toString('latin1').match(/%%EOF/g)).toHaveLength(2);
    expect(revisionEnds(linearized)).toEqual([linearized.length]);
    const doc = await PDF.load(linearized);
    doc.getPage(0)!.drawText('added later', { x: 10, y: 10, size: 10 });
    const updated = await doc.save({ incremental: true });
    expect(revisionEnds(updated)).toEqual([linearized.length, updated.length]);
    const read = await readSignatures(updated, { trustedRootsDer: [] });
    expect(read).toMatchObject({ totalRevisions: 2, signatures: [] });
    expect(read.pages).toEqual([
      { width: A4.width, height: A4.height },
      { width: A4.width, height: A4.height },
    ]);
  });

  it('reads PDF dates with and without a time zone', () => {
    expect(parsePdfDate("D:20240102030405+01'30'")?.toISOString()).toBe('2024-01-02T01:34:05.000Z');
    expect(parsePdfDate('D:20240102030405Z')?.toISOString()).toBe('2024-01-02T03:04:05.000Z');
    expect(parsePdfDate('D:2024')?.toISOString()).toBe('2024-01-01T00:00:00.000Z');
    expect(parsePdfDate('yesterday')).toBeNull();
  });
});
