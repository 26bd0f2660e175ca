// POST /api/print: a static, printable PDF. Judged by qpdf (no form fields, no annotations but
// links, a sound file), pdftotext (the field values are page text) and poppler's renderer (what
// the annotation showed is still on the page).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF, rgb } from '@libpdf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFormPdf } from '../helpers/pdf-forms.js';
import { A4, encryptWithQpdf, makePdf } from '../helpers/pdfs.js';
import { rawPdf } from '../helpers/raw-pdf.js';
import { px, renderPage, RENDER_DPI } from '../helpers/qr.js';
import { apiError } from '../helpers/api-error.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let dir: string;
beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'sello-print-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
function tool(cmd: string, args: string[], pdf: Uint8Array): string {
  const file = join(dir, `f${n++}.pdf`);
  writeFileSync(file, pdf);
  return execFileSync(cmd, [...args.map((a) => (a === 'FILE' ? file : a))], { encoding: 'utf8' });
}

/** qpdf's view: the form's fields, and each page's annotation subtypes. */
function structure(pdf: Uint8Array): { fields: number; hasAcroForm: boolean; annotations: string[] } {
  const json = JSON.parse(tool('qpdf', ['--json=2', '--json-key=acroform', '--json-key=pages', '--json-key=qpdf', 'FILE'], pdf));
  const objects = json.qpdf[1] as Record<string, { value?: Record<string, unknown> }>;
  const deref = (v: unknown) => (typeof v === 'string' && / R$/.test(v) ? objects[`obj:${v}`]?.value : v);
  const annotations: string[] = [];
  for (const p of json.pages as { object: string }[]) {
    const page = deref(p.object) as Record<string, unknown>;
    for (const a of (deref(page['/Annots']) as unknown[] | undefined) ?? []) {
      annotations.push(String((deref(a) as Record<string, unknown>)['/Subtype']));
    }
  }
  return { fields: json.acroform.fields.length, hasAcroForm: json.acroform.hasacroform, annotations };
}

describe('POST /api/print', () => {
  it('a filled form: no field left, the values are page text, the file is sound', async () => {
    const pdf = await PDF.load(await makeFormPdf());
    const form = pdf.getForm()!;
    // ASCII: the library that fills this test form draws only what its standard font encodes.
    form.getTextField('person.name')!.setValue('Ana Garcia Flores');
    form.getTextField('city')!.setValue('Guadalajara');
    form.getCheckbox('agree')!.check();
    const filled = await pdf.save();
    expect(structure(filled).fields).toBeGreaterThan(5);

    const flat = await s.client.flattenPdf(filled);
    expect(flat.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(structure(flat)).toEqual({ fields: 0, hasAcroForm: false, annotations: [] });
    const text = tool('pdftotext', ['-layout', 'FILE', '-'], flat);
    expect(text).toContain('Ana Garcia Flores');
    expect(text).toContain('Guadalajara');
    expect(tool('qpdf', ['--check', 'FILE'], flat)).toContain('No syntax or stream encoding errors found');
  });

  it('fields with a value and no appearance stream (NeedAppearances true): drawn from their values, not dropped', async () => {
    // As a form filler that leaves the drawing to the reader writes it: /V set, no /AP. A text field,
    // a read-only one, a combo box and a checkbox whose on state is /Accepted.
    const da = '/DA (/Helv 12 Tf 0 g)';
    const widget = (body: string) => `<< /Type /Annot /Subtype /Widget /P 3 0 R /F 4 ${body} >>`;
    const unfilled = rawPdf([
      '<< /Type /Catalog /Pages 2 0 R /AcroForm 5 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 10 0 R >> >> /Contents 4 0 R /Annots [6 0 R 7 0 R 8 0 R 9 0 R] >>',
      { dict: '<< >>', stream: 'BT /F1 12 Tf 72 706 Td (Ciudad:) Tj 0 -40 Td (Folio:) Tj 0 -40 Td (Estado:) Tj 0 -40 Td (Acepto:) Tj ET' },
      '<< /Fields [6 0 R 7 0 R 8 0 R 9 0 R] /NeedAppearances true /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 10 0 R /ZaDb 11 0 R >> >> >>',
      widget(`/FT /Tx /T (city) /V (Monterrey Nuevo Leon) /Rect [150 700 450 722] ${da}`),
      widget(`/FT /Tx /T (folio) /Ff 1 /V (MTY-2291) /Rect [150 660 450 682] ${da}`),
      widget(`/FT /Ch /Ff 131072 /T (state) /Opt [(Jalisco) (Nuevo Leon)] /V (Nuevo Leon) /Rect [150 620 450 642] ${da}`),
      widget('/FT /Btn /T (agree) /V /Accepted /AS /Accepted /Rect [150 580 166 596] /MK << /CA (4) >> /DA (/ZaDb 0 Tf 0 g)'),
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /ZapfDingbats >>',
    ]);
    expect(tool('qpdf', ['--check', 'FILE'], unfilled)).toContain('No syntax or stream encoding errors found');
    // What a reader shows (poppler makes the appearances the file asks for).
    expect(tool('pdftotext', ['-layout', 'FILE', '-'], unfilled)).toMatch(
      /Ciudad:\s+Monterrey Nuevo Leon[\s\S]*Folio:\s+MTY-2291[\s\S]*Estado:\s+Nuevo Leon/,
    );

    const flat = await s.client.flattenPdf(unfilled);
    expect(structure(flat)).toEqual({ fields: 0, hasAcroForm: false, annotations: [] });
    expect(tool('qpdf', ['--check', 'FILE'], flat)).toContain('No syntax or stream encoding errors found');
    const text = tool('pdftotext', ['-layout', 'FILE', '-'], flat);
    expect(text).toMatch(/Ciudad:\s+Monterrey Nuevo Leon/);
    expect(text).toMatch(/Folio:\s+MTY-2291/);
    expect(text).toMatch(/Estado:\s+Nuevo Leon/);
    // The check mark, drawn from page content alone: dark ink inside the box, none beside it.
    const img = await renderPage(flat);
    const dark = (x0: number, y0: number, x1: number, y1: number) => {
      let n = 0;
      for (let y = Math.round(img.height - px(y1)); y < Math.round(img.height - px(y0)); y++) {
        for (let x = Math.round(px(x0)); x < Math.round(px(x1)); x++) {
          n += img.data[(y * img.width + x) * 4] < 100 ? 1 : 0;
        }
      }
      return n;
    };
    expect(dark(150, 580, 166, 596)).toBeGreaterThan(20);
    expect(dark(170, 580, 186, 596)).toBe(0);
  });

  it('an annotated page: the square and circle (without appearance streams) are drawn into the page and removed as annotations; the link stays', async () => {
    const pdf = await PDF.load(await makePdf([A4]));
    const page = pdf.getPage(0)!;
    page.addSquareAnnotation({ rect: { x: 100, y: 500, width: 150, height: 100 }, color: rgb(0, 0, 0), fillColor: rgb(0, 0, 0) });
    page.addCircleAnnotation({ rect: { x: 300, y: 300, width: 100, height: 100 }, color: rgb(0, 0, 0), fillColor: rgb(0, 0, 0) });
    page.addLinkAnnotation({ rect: { x: 100, y: 100, width: 100, height: 20 }, uri: 'https://example.com' });
    const annotated = await pdf.save();
    expect(structure(annotated).annotations.sort()).toEqual(['/Circle', '/Link', '/Square']);

    const flat = await s.client.flattenPdf(annotated);
    expect(structure(flat).annotations).toEqual(['/Link']);
    // The square's middle, rendered by poppler from page content alone: dark, as it was shown.
    const img = await renderPage(flat);
    const x = Math.round(px(175));
    const y = Math.round(img.height - px(550));
    const at = (y * img.width + x) * 4;
    expect(RENDER_DPI).toBe(150);
    expect(img.data[at]).toBeLessThan(60);
    // The circle's centre is dark; the corner of its box, outside the ellipse, is white.
    const pixel = (xPt: number, yPt: number) => img.data[(Math.round(img.height - px(yPt)) * img.width + Math.round(px(xPt))) * 4];
    expect(pixel(350, 350)).toBeLessThan(60);
    expect(pixel(303, 303)).toBeGreaterThan(200);
    // Outside it, the page is white.
    const out = (Math.round(img.height - px(700)) * img.width + x) * 4;
    expect(img.data[out]).toBeGreaterThan(200);
  });

  it('an annotation the page shows but that has no appearance and no geometry to draw: 422 naming it, not dropped', async () => {
    const pdf = await PDF.load(await makePdf([A4]));
    pdf.getPage(0)!.addTextAnnotation({ rect: { x: 100, y: 500, width: 20, height: 20 }, contents: 'Revisar' });
    const e = await apiError(s.client.flattenPdf(await pdf.save()));
    expect([e.status, e.code]).toEqual([422, 'PDF_INVALID']);
    expect(e.message).toMatch(/Text annotation on page 1 has no appearance stream/);
  });

  it('encrypted or damaged files: 422 with the reason; not a PDF: 422 PDF_INVALID', async () => {
    const enc = await apiError(s.client.flattenPdf(encryptWithQpdf(await makePdf([A4]))));
    expect([enc.status, enc.code]).toEqual([422, 'PDF_ENCRYPTED']);
    const good = await makePdf([A4]);
    const truncated = good.subarray(0, Math.floor(good.length * 0.6));
    const damaged = await apiError(s.client.flattenPdf(truncated));
    expect([damaged.status, damaged.code]).toEqual([422, 'PDF_INVALID']);
    const text = await apiError(s.client.flattenPdf(Buffer.from('hello, not a pdf')));
    expect([text.status, text.code]).toEqual([422, 'PDF_INVALID']);
  });

  it('is authenticated through Content-SHA256: a file that is not the one signed is 401', async () => {
    const good = await makePdf([A4]);
    const res = await fetch(`${s.baseUrl}/api/print`, { method: 'POST' });
    expect(res.status).toBe(401);
    expect((await s.client.flattenPdf(good)).length).toBeGreaterThan(100);
  });
});
