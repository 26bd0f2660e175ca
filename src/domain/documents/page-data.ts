// POST /api/pdf/pageData: the size (CropBox, points) and rotation of one page of a given PDF, so a
// client can place stickers without parsing the PDF itself.
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { readPdf } from './read-pdf.js';
import type { PageDataResult } from '../../schemas/documents.js';

export async function pageData(deps: Pick<Deps, 'config' | 'pdfJail'>, opts: { bytes: Buffer; page?: string }): Promise<PageDataResult> {
  const page = opts.page === undefined || opts.page === '' ? 0 : Number(opts.page);
  if (!Number.isInteger(page) || page < 0) {
    throw invalid('page', 'expected a whole number, 0 for the first page');
  }
  // A file encrypted with an owner password only is accepted at creation (as a decrypted copy with the same pages).
  const info = await readPdf(deps.pdfJail, opts.bytes, deps.config.limits.pages, 'read');
  if (page >= info.pageCount) {
    throw invalid('page', `page ${page} does not exist; the document has ${info.pageCount} page(s), numbered from 0`);
  }
  const p = info.pages[page];
  return { page, pages: info.pageCount, width: p.cropBox.width, height: p.cropBox.height, rotation: p.rotation };
}
