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
