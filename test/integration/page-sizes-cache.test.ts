// Page sizes read once: the signer page's API (GET /sign/api/{token}), the public document page and
// a set's signing API answer the sizes the PDF jail reads from the file. They are kept in
// pdf_page_sizes when the document is created, so even the first open does not read the file; a
// file whose sizes were not kept (stored before) is read on its first open only. Counted on the
// server's own PDF jail, the dependency every read of a PDF goes through.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readPdf } from '../../src/domain/documents/read-pdf.js';
import { publicCall } from '../helpers/public-call.js';
import { rawPdf } from '../helpers/raw-pdf.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());
afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Three pages whose sizes take more than the MediaBox: an A4 page cropped to 500 × 700, a Letter page
 * turned 90° by its parent, and a page with its own smaller MediaBox.
 */
function threePages(tag: number): Buffer {
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 3 /MediaBox [0 0 595.28 841.89] >>',
    '<< /Type /Page /Parent 2 0 R /CropBox [40 50 540 750] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    { dict: '<< >>', stream: `BT /F1 12 Tf 60 700 Td (Contrato ${tag}) Tj ET` },
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Pages /Parent 2 0 R /Kids [7 0 R 8 0 R] /Count 2 /Rotate 90 >>',
    '<< /Type /Page /Parent 6 0 R /MediaBox [0 0 612 792] >>',
    '<< /Type /Page /Parent 6 0 R /MediaBox [0 0 300 400] /Rotate 0 >>',
  ]);
}

/** What the endpoints answered before the sizes were kept: the file read in the jail at each open. */
async function sizesReadFromFile(bytes: Buffer) {
  const pdf = await readPdf(s.deps.pdfJail, bytes, s.deps.config.limits.pages);
  return pdf.pages.map((p, i) => ({ page: i, width: p.cropBox.width, height: p.cropBox.height, rotation: p.rotation }));
}

const box = { page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } };
let seq = 0;

/** The hash naming a document's file. */
const shaOf = async (ticket: string) =>
  (await s.deps.db.selectFrom('documents').select('original_sha256').where('ticket', '=', ticket).executeTakeFirstOrThrow())
    .original_sha256;

/** As for a file stored before its page sizes were kept at creation. */
const forgetSizes = async (ticket: string) =>
  s.deps.db
    .deleteFrom('pdf_page_sizes')
    .where('sha256', '=', await shaOf(ticket))
    .execute();

describe('page sizes of a document', () => {
  it('are kept at creation: the first open reads nothing from the file, and they are the sizes the file gives', async () => {
    const bytes = threePages(++seq);
    const expected = await sizesReadFromFile(bytes);
    expect(expected).toEqual([
      { page: 0, width: 500, height: 700, rotation: 0 },
      { page: 1, width: 612, height: 792, rotation: 90 },
      { page: 2, width: 300, height: 400, rotation: 0 },
    ]);
    const doc = await s.client.createDocument({
      b64_doc: bytes.toString('base64'),
      name: 'Contrato con páginas distintas',
      stickers: [{ authority: 'EMAIL_LINK', data: `ana.${seq}@example.com`, ...box }],
    });
    const kept = await s.deps.db
      .selectFrom('pdf_page_sizes')
      .select('pages')
      .where('sha256', '=', await shaOf(doc.document_ticket))
      .executeTakeFirstOrThrow();
    expect(kept.pages).toEqual(expected.map(({ page: _, ...size }) => size));

    const api = doc.stickers[0].signer_url.replace('/sign/', '/sign/api/');
    const inspect = vi.spyOn(s.deps.pdfJail, 'inspect');
    const first = await fetch(api);
    expect(first.status).toBe(200);
    expect((await first.json()).pages).toEqual(expected);
    const page = await publicCall(s.baseUrl, 'GET', `/sign/api/document/${doc.document_ticket}`);
    expect(page.status).toBe(200);
    expect(page.json.pages).toEqual(expected);
    expect(inspect).toHaveBeenCalledTimes(0);
  });

  it('of a file stored before they were kept are read in the jail on the first open only', async () => {
    const bytes = threePages(++seq);
    const expected = await sizesReadFromFile(bytes);
    const doc = await s.client.createDocument({
      b64_doc: bytes.toString('base64'),
      name: 'Contrato anterior',
      stickers: [{ authority: 'EMAIL_LINK', data: `ana.${seq}@example.com`, ...box }],
    });
    await forgetSizes(doc.document_ticket);
    const api = doc.stickers[0].signer_url.replace('/sign/', '/sign/api/');
    const inspect = vi.spyOn(s.deps.pdfJail, 'inspect');

    const first = await fetch(api);
    expect(first.status).toBe(200);
    expect((await first.json()).pages).toEqual(expected);
    expect(inspect).toHaveBeenCalledTimes(1);

    const second = await fetch(api);
    expect(second.status).toBe(200);
    expect((await second.json()).pages).toEqual(expected);
    const page = await publicCall(s.baseUrl, 'GET', `/sign/api/document/${doc.document_ticket}`);
    expect(page.status).toBe(200);
    expect(page.json.pages).toEqual(expected);
    expect(inspect).toHaveBeenCalledTimes(1);
  });

  it('are shared by every document made of the same bytes, whichever page opens first', async () => {
    const bytes = threePages(++seq);
    const expected = await sizesReadFromFile(bytes);
    const make = (n: number) =>
      s.client.createDocument({
        b64_doc: bytes.toString('base64'),
        name: `Copia ${n}`,
        stickers: [{ authority: 'EMAIL_LINK', data: `eva.${seq}.${n}@example.com`, ...box }],
      });
    const [a, b] = [await make(1), await make(2)];
    await forgetSizes(a.document_ticket);
    const inspect = vi.spyOn(s.deps.pdfJail, 'inspect');

    const page = await publicCall(s.baseUrl, 'GET', `/sign/api/document/${a.document_ticket}`);
    expect(page.json.pages).toEqual(expected);
    expect(inspect).toHaveBeenCalledTimes(1);
    const other = await fetch(b.stickers[0].signer_url.replace('/sign/', '/sign/api/'));
    expect((await other.json()).pages).toEqual(expected);
    expect(inspect).toHaveBeenCalledTimes(1);
  });
});
