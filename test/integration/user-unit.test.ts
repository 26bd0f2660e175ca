// Pages with /UserUnit (PDF 1.6, PDF 32000-1 §7.7.3.3): `/MediaBox [0 0 8.5 11] /UserUnit 72` is a
// Letter page measured in inches. The API speaks points (decisions.md): page data says 612 × 792, a
// sticker at a Letter position is accepted, and the signature's widget is written in the page's own
// units (the box divided by 72), where poppler draws it: checked with qpdf, pdfsig and pdftoppm.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPage, px } from '../helpers/qr.js';
import { rawPdf } from '../helpers/raw-pdf.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

let s: TestServer;
let rootPem: string;
let dir: string;
beforeAll(async () => {
  s = await startTestServer();
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  dir = mkdtempSync(join(tmpdir(), 'sello-userunit-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A Letter page in inches: a frame one inch in from each edge, and a line of text. */
const INCHES = rawPdf(
  [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 8.5 11] /UserUnit 72 /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    { dict: '<< >>', stream: '0.01 w 1 1 6.5 9 re S BT /F1 0.25 Tf 1.2 9.6 Td (Pagare, medido en pulgadas) Tj ET' },
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ],
  '1.6',
);

/** Widget and stamp rectangles of every page, as qpdf reads them. */
function annotationRects(pdf: Uint8Array): { subtype: string; rect: number[] }[] {
  const file = join(dir, `q${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=pages', '--json-key=qpdf', file], { encoding: 'utf8' }));
  const objects = json.qpdf[1] as Record<string, { value?: Record<string, unknown> }>;
  const deref = (v: unknown) => (typeof v === 'string' && / R$/.test(v) ? objects[`obj:${v}`]?.value : v);
  const out: { subtype: string; rect: number[] }[] = [];
  for (const p of json.pages as { object: string }[]) {
    const page = deref(p.object) as Record<string, unknown>;
    for (const a of (deref(page['/Annots']) as unknown[] | undefined) ?? []) {
      const annot = deref(a) as Record<string, unknown>;
      out.push({ subtype: String(annot['/Subtype']), rect: (deref(annot['/Rect']) as number[]).map(Number) });
    }
  }
  return out;
}

describe('a page with /UserUnit 72 (a Letter page in inches)', () => {
  it('page data reports its size in points', async () => {
    expect(await s.client.pageData(INCHES)).toEqual({ page: 0, pages: 1, width: 612, height: 792, rotation: 0 });
  });

  it('takes a sticker at a Letter position in points and signs it there, in the page’s own units', async () => {
    const rect = { lx: 360, ly: 72, tx: 540, ty: 144 };
    const doc = await s.client.createDocument({
      b64_doc: INCHES.toString('base64'),
      name: 'Pagaré en pulgadas',
      stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana Pérez', page: 0, rect }],
    });
    expect(doc.stickers[0].sticker_coordinates).toEqual(rect);
    // A box outside the page in points is still refused, naming the page's size in points.
    const outside = await s.client.raw('POST', '/developers/json', {
      b64_doc: INCHES.toString('base64'),
      stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: { lx: 500, ly: 72, tx: 700, ty: 144 } }],
    });
    expect(outside.status).toBe(400);
    expect(JSON.parse(outside.text).error.message).toContain('0 ≤ x ≤ 612, 0 ≤ y ≤ 792 points');

    const token = doc.stickers[0].signer_url.split('/sign/')[1];
    const signed = await fetch(`${s.baseUrl}/sign/api/${token}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signature: { type: 'typed', text: 'Ana Pérez' }, consent: true }),
    });
    expect(signed.status, await signed.clone().text()).toBe(200);
    const pdf = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;

    // The widget's /Rect is the box in inches: [360 72 540 144] / 72.
    const [widget] = annotationRects(pdf);
    expect(widget.subtype).toBe('/Widget');
    expect(widget.rect.map((v) => Math.round(v * 1000) / 1000)).toEqual([5, 1, 7.5, 2]);
    const report = await pdfsig(pdf, rootPem);
    expect(report.signatures.map((x) => [x.valid, x.totalDocumentSigned])).toEqual([[true, true]]);
    // The signature report gives the box back in points, from the top-left corner.
    const ours = await s.client.signatureReport(doc.document_ticket);
    expect(ours.firmas[0]).toMatchObject({ page: 0, left: 360, top: 648, width: 180, height: 72, validSignature: true });

    // Rendered by poppler, which does not apply /UserUnit (it reads the page as 8.5 × 11 points):
    // at 72 times 150 dpi, one pixel is what 150 dpi makes of a point. Ink inside the box, none above.
    const img = await renderPage(pdf, 0, 72 * 150);
    expect([img.width, img.height]).toEqual([Math.round(px(612)), Math.round(px(792))]);
    const ink = (x0: number, y0: number, x1: number, y1: number) => {
      let n = 0;
      for (let y = Math.round(img.height - px(y1)); y < Math.round(img.height - px(y0)); y++) {
        for (let x = Math.round(px(x0)); x < Math.round(px(x1)); x++) {
          n += img.data[(y * img.width + x) * 4] < 128 ? 1 : 0;
        }
      }
      return n;
    };
    expect(ink(362, 74, 538, 142)).toBeGreaterThan(200);
    expect(ink(362, 200, 538, 268)).toBe(0);
  });
});
