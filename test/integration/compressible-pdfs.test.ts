// Files that compress extremely well are ordinary documents, not bombs: a scan with a blank page,
// a flat-colour image and a repetitive content stream are created and signed through the API
// (pdfsig judges the signature), and a 1,000-page, 50 MB scan is read in the PDF jail with the
// default budget. A 1 GiB bomb is still refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloApiError } from '../../src/client/index.js';
import { flatColourPdf, imagePagesPdf, repetitiveContentPdf, scanImage } from '../helpers/compressible-pdfs.js';
import { compressedPdf } from '../helpers/hostile-pdfs.js';
import { publicCall } from '../helpers/public-call.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

let s: TestServer;
let rootPem: string;

beforeAll(async () => {
  s = await startTestServer();
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
});
afterAll(() => s?.close());

/** Creates the document with one signer, signs it through the signing API, and answers the signed file. */
async function createAndSign(pdf: Buffer): Promise<Buffer> {
  const doc = await s.client.createDocument({
    b64_doc: pdf.toString('base64'),
    name: 'Escaneo',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
    ],
  });
  const token = doc.stickers[0].signer_url.split('/').pop()!;
  const signed = await publicCall(s.baseUrl, 'POST', `/sign/api/${token}/sign`, {
    signature: { type: 'typed', text: 'Ana García' },
    consent: true,
  });
  expect(signed.status, JSON.stringify(signed.json)).toBe(200);
  return (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
}

describe('highly compressible documents', () => {
  it.each([
    ['a 300-dpi scan of a blank page (8.7 MB of grey in about 8 KB)', () => imagePagesPdf(1, scanImage())],
    ['a flat-colour image (27 MB of RGB in about 26 KB)', flatColourPdf],
    ['a content stream drawing the same hatching for 8 MB', repetitiveContentPdf],
  ])('creates and signs %s; pdfsig finds the signature valid', async (_name, build) => {
    const pdf = build();
    const signed = await createAndSign(pdf);
    expect(signed.subarray(0, pdf.length).equals(pdf)).toBe(true);
    const report = await pdfsig(signed, rootPem);
    expect(report.signatures, report.output).toHaveLength(1);
    expect(report.signatures[0].valid, report.signatures[0].block).toBe(true);
    expect(report.signatures[0].totalDocumentSigned).toBe(true);
    expect((await qpdfCheckAsync(signed)).output).toMatch(/No syntax or stream encoding errors found/);
  });

  it('reads a 1,000-page, 50 MB scan with the default budget: its images are never inflated', async () => {
    const pdf = imagePagesPdf(1000, scanImage(18));
    expect(pdf.length).toBeGreaterThan(50 * 1000 * 1000);
    const info = await s.deps.pdfJail.inspect(pdf, 2000);
    expect(info.pageCount).toBe(1000);
  });

  it('still refuses a 1 GiB decompression bomb at creation', async () => {
    const err = await s.client
      .createDocument({
        b64_doc: compressedPdf({ objStmTailMiB: 1024 }).toString('base64'),
        stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SelloApiError);
    expect((err as SelloApiError).status).toBe(422);
    expect((err as SelloApiError).code).toBe('PDF_TOO_COMPLEX');
    expect((err as SelloApiError).message).toMatch(/decompress to more than 256 MB/);
  });
});
