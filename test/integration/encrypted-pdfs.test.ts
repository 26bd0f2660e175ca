// Encrypted PDFs through the API. A file protected by an owner password only (an empty user
// password, as banks and government portals export them) is created as a decrypted copy, which
// the history records, and signed (pdfsig, qpdf); one that needs a password is refused with
// 422 PDF_ENCRYPTED and nothing stored; a signed encrypted file is verified as readers verify it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloApiError } from '../../src/client/index.js';
import { encryptOwnerOnly, encryptWithUserPassword, type Encryption, qpdfEncryption, signWithLibrary } from '../helpers/encrypted-pdfs.js';
import { createTestPki, type TestPki } from '../helpers/openssl-pki.js';
import { A4, makePdf, pdfShownText } from '../helpers/pdfs.js';
import { publicCall } from '../helpers/public-call.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

let s: TestServer;
let rootPem: string;
let plain: Buffer;
let pki: TestPki;

beforeAll(async () => {
  s = await startTestServer();
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  plain = await makePdf([A4, A4]);
  pki = await createTestPki();
});
afterAll(() => s?.close());

const sticker = {
  authority: 'EMAIL_LINK' as const,
  data: 'ana@example.com',
  name: 'Ana García',
  page: 1,
  rect: { lx: 60, ly: 60, tx: 260, ty: 130 },
};
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('a PDF protected by an owner password only', () => {
  it.each(['RC4-128', 'AES-128', 'AES-256'] as Encryption[])(
    '%s: created as a decrypted copy, the history says so, and the signature is valid for pdfsig',
    async (encryption) => {
      const encrypted = encryptOwnerOnly(plain, encryption);
      const doc = await s.client.createDocument({ b64_doc: encrypted.toString('base64'), name: 'Estado de cuenta', stickers: [sticker] });

      const source = (await s.client.downloadDocument('source', doc.document_ticket)).bytes;
      expect(qpdfEncryption(source)).toMatch(/File is not encrypted/);
      expect(pdfShownText(source)).toBe(pdfShownText(plain));

      const history = await s.client.documentHistory(doc.document_ticket);
      expect(history.entries.map((e) => e.action).slice(0, 2)).toEqual(['created', 'decrypted']);
      expect(history.entries[1]).toMatchObject({
        actor: 'system',
        details: { protection: 'owner_password', encryption, original_sha256: sha256(encrypted) },
      });

      const token = doc.stickers[0].signer_url.split('/').pop()!;
      const signed = await publicCall(s.baseUrl, 'POST', `/sign/api/${token}/sign`, {
        signature: { type: 'typed', text: 'Ana García' },
        consent: true,
      });
      expect(signed.status, JSON.stringify(signed.json)).toBe(200);
      const final = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
      expect(final.subarray(0, source.length).equals(source)).toBe(true);
      const report = await pdfsig(final, rootPem);
      expect(report.signatures.map((x) => [x.valid, x.trusted, x.totalDocumentSigned])).toEqual([[true, true, true]]);
      expect((await qpdfCheckAsync(final)).output).toMatch(/No syntax or stream encoding errors found/);
    },
  );

  it('is refused with 413 DOCUMENT_TOO_LARGE when its decrypted copy passes the size limit, though the file sent does not', async () => {
    // 3,000 pages: qpdf packs the objects into object streams; the copy is written without them.
    const many = await makePdf(Array.from({ length: 3000 }, () => A4));
    const encrypted = encryptOwnerOnly(many, 'AES-256', ['--object-streams=generate']);
    expect(encrypted.length).toBeLessThan(1024 * 1024);
    const small = await startTestServer({ env: { SELLO_MAX_DOCUMENT_MB: '1', SELLO_MAX_PAGES: '5000' } });
    try {
      const err = await small.client
        .createDocument({ b64_doc: encrypted.toString('base64'), stickers: [sticker] })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 413, code: 'DOCUMENT_TOO_LARGE', message: expect.stringMatching(/decrypted copy/) });
      expect((await small.client.listDocuments()).documents).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('gives its page data like any other file', async () => {
    const r = await s.client.pageData(encryptOwnerOnly(plain, 'AES-256'), 1);
    expect(r).toMatchObject({ page: 1, pages: 2, rotation: 0 });
  });
});

describe('a PDF that needs a password to open', () => {
  it('is refused at creation with 422 PDF_ENCRYPTED saying a password is needed, and nothing is stored', async () => {
    const before = (await s.client.listDocuments()).documents.length;
    const err = await s.client
      .createDocument({ b64_doc: encryptWithUserPassword(plain, 'AES-256').toString('base64'), stickers: [sticker] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SelloApiError);
    expect(err).toMatchObject({ status: 422, code: 'PDF_ENCRYPTED', message: expect.stringMatching(/password that is needed to open it/) });
    expect((await s.client.listDocuments()).documents.length).toBe(before);
  });
});

describe('the report of a signed, encrypted PDF (POST /api/report)', () => {
  it.each(['RC4-128', 'AES-128', 'AES-256'] as Encryption[])('%s: the signature is valid and the document intact', async (encryption) => {
    const signer = await pki.issueSigner({ cn: `Firmante ${encryption}`, email: 'externo@example.com' });
    const signed = await signWithLibrary(encryptOwnerOnly(plain, encryption), signer);
    const independent = await pdfsig(signed, readFileSync(pki.rootPath, 'utf8'));
    expect(independent.signatures.map((x) => x.valid)).toEqual([true]);
    const r = await s.client.verifyPdf(Buffer.from(signed));
    expect(r.documentIntegrity).toBe('intact');
    expect(r.firmas).toHaveLength(1);
    expect(r.firmas[0]).toMatchObject({ validSignature: true, modifiedAfterSigning: false, certType: 'external' });
  });

  it('is refused with 422 PDF_ENCRYPTED when the file needs a password', async () => {
    const err = await s.client.verifyPdf(encryptWithUserPassword(plain, 'AES-128')).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, code: 'PDF_ENCRYPTED' });
  });
});
