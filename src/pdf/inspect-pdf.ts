// Reads what the service needs to know of an uploaded PDF before accepting it: that it really is a
// PDF we can later sign incrementally, its pages and their geometry. Pure: bytes in, facts out.
import { PDF } from '@libpdf/core';
import { pageGeometry } from './page-geometry.js';

export interface PageInfo {
  /** CropBox (the visible page, clipped to the MediaBox), in PDF points, unrotated user space. */
  cropBox: { x: number; y: number; width: number; height: number };
  rotation: 0 | 90 | 180 | 270;
}

export interface PdfInfo {
  pageCount: number;
  pages: PageInfo[];
  version: string;
}

export type PdfProblem = 'NOT_PDF' | 'DAMAGED' | 'ENCRYPTED' | 'TOO_MANY_PAGES' | 'NO_PAGES';

export class PdfInputError extends Error {
  constructor(
    readonly problem: PdfProblem,
    message: string,
  ) {
    super(message);
  }
}

export async function inspectPdf(bytes: Uint8Array, opts: { maxPages: number }): Promise<PdfInfo> {
  // The header may be preceded by junk (PDF 32000-1 §7.5.2 tolerance in readers), but not by much.
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (!head.includes('%PDF-')) {
    throw new PdfInputError('NOT_PDF', 'the file is not a PDF (no %PDF- header)');
  }
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (err) {
    throw new PdfInputError('DAMAGED', `the PDF cannot be read: ${(err as Error).message}`);
  }
  // A file that only opens by brute-force recovery (truncated, broken cross-reference table) cannot
  // take incremental signatures without rewriting it, which would change what the signers see.
  if (pdf.recoveredViaBruteForce) {
    throw new PdfInputError(
      'DAMAGED',
      'the PDF is damaged (truncated or with a broken cross-reference table); open and save it again with a PDF tool, then retry',
    );
  }
  // Owner-only encryption opens without a password but still encrypts every string and stream:
  // signatures over it are unreliable in validators, so both kinds are refused.
  if (pdf.isEncrypted) {
    throw new PdfInputError('ENCRYPTED', 'the PDF is encrypted; remove the password or protection and retry');
  }
  let pages: ReturnType<typeof pdf.getPages>;
  try {
    pages = pdf.getPages();
  } catch (err) {
    throw new PdfInputError('DAMAGED', `the PDF's page tree cannot be read: ${(err as Error).message}`);
  }
  if (pages.length === 0) {
    throw new PdfInputError('NO_PAGES', 'the PDF has no pages');
  }
  if (pages.length > opts.maxPages) {
    throw new PdfInputError('TOO_MANY_PAGES', `the PDF has ${pages.length} pages; the limit is ${opts.maxPages}`);
  }
  return {
    pageCount: pages.length,
    version: pdf.version,
    pages: pages.map((p) => {
      const { crop, rotation } = pageGeometry(pdf, p);
      return { cropBox: { x: crop[0], y: crop[1], width: crop[2] - crop[0], height: crop[3] - crop[1] }, rotation };
    }),
  };
}
