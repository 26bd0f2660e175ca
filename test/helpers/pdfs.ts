// PDFs made for the tests with the PDF library, and an encrypted one made with qpdf.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF, PdfArray, PdfNumber } from '@libpdf/core';

/** A PDF with the given page sizes (points), each page carrying a line of text. */
export async function makePdf(sizes: { width: number; height: number }[] = [{ width: 595.28, height: 841.89 }]): Promise<Buffer> {
  const pdf = PDF.create();
  sizes.forEach((s, i) => {
    const page = pdf.addPage({ width: s.width, height: s.height });
    page.drawText(`Sello test page ${i + 1}`, { x: 50, y: s.height - 80, size: 18 });
  });
  return Buffer.from(await pdf.save());
}

/** The same PDF encrypted by qpdf (an independent tool), with a user password. */
export function encryptWithQpdf(bytes: Buffer, userPassword = 'secret'): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'sello-qpdf-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), bytes);
    execFileSync('qpdf', ['--encrypt', userPassword, 'owner-pw', '256', '--', join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
    return readFileSync(join(dir, 'out.pdf'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The strings the PDF's content streams show with Tj (hex or literal, single-byte fonts read as
 * Latin-1), one per line: every stream decompressed by qpdf (QDF mode), an independent reader.
 */
export function pdfShownText(bytes: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'sello-qdf-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), bytes);
    execFileSync('qpdf', ['--qdf', '--object-streams=disable', join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
    const qdf = readFileSync(join(dir, 'out.pdf')).toString('latin1');
    const shown: string[] = [];
    for (const m of qdf.matchAll(/<([0-9A-Fa-f\s]*)>\s*Tj|\(((?:\\.|[^\\)])*)\)\s*Tj/g)) {
      shown.push(m[1] !== undefined ? Buffer.from(m[1].replace(/\s/g, ''), 'hex').toString('latin1') : m[2].replace(/\\(.)/g, '$1'));
    }
    return shown.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `qpdf --check` on the bytes: its exit status and what it printed. */
export function qpdfCheck(bytes: Buffer): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sello-qpdf-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), bytes);
    try {
      const output = execFileSync('qpdf', ['--check', join(dir, 'f.pdf')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return { ok: true, output };
    } catch (err) {
      const e = err as { code?: string; status?: number | null; stdout?: string; stderr?: string };
      // A missing qpdf is no verdict: it must fail the test, not read as "qpdf refuses the file".
      if (e.code === 'ENOENT') {
        throw new Error('qpdf is not installed (Debian package qpdf): the independent check cannot run');
      }
      if (e.status !== 2 && e.status !== 3) {
        throw new Error(`qpdf --check gave no verdict (exit ${e.status}): ${e.stderr ?? ''}`);
      }
      return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const A4 = { width: 595.28, height: 841.89 };
export const LETTER = { width: 612, height: 792 };

/** An A4 page whose CropBox is [40 50 540 750]: a visible area of 500 × 700 points not at the origin. */
export async function makeCroppedPdf(): Promise<Buffer> {
  const pdf = PDF.create();
  const page = pdf.addPage({ width: 595.28, height: 841.89 });
  page.drawText('cropped page', { x: 60, y: 700, size: 12 });
  page.dict.set('CropBox', new PdfArray([40, 50, 540, 750].map((n) => PdfNumber.of(n))));
  return Buffer.from(await pdf.save());
}
