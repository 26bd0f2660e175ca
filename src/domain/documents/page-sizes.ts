// The page sizes of a stored PDF for the signer pages (GET /sign/api/{token}, the set's and the
// public document page): kept in pdf_page_sizes by the creation's statement (the creation reads
// the file anyway: store/create-document-repo.ts), else read in the PDF jail on the first open only (a file stored before they
// were kept). A long contract opened on a phone waited for the whole file to be parsed before the
// viewer could lay out its pages (seconds for 300 pages), and most links are opened once. The blob
// is content-addressed, so its hash names its pages for good.
import type { Deps } from '../deps.js';
import { findPageSizes, savePageSizes, type StoredPageSize } from '../../store/page-sizes-repo.js';
import type { PdfInfo } from '../../pdf/inspect-pdf.js';
import { readPdf } from './read-pdf.js';

export type PageSize = StoredPageSize & { page: number };

export async function storedPageSizes(
  deps: Pick<Deps, 'db' | 'blobs' | 'config' | 'pdfJail'>,
  sha256: string,
  opts: { shared?: boolean } = {},
): Promise<PageSize[]> {
  let sizes = await findPageSizes(deps.db, sha256);
  if (!sizes) {
    // Only the jail reads the file: in shared memory, its worker reaches it without a copy.
    const pdf = await readPdf(deps.pdfJail, await deps.blobs.get(sha256, { shared: opts.shared }), deps.config.limits.pages);
    sizes = await keepPageSizes(deps.db, sha256, pdf.pages);
  }
  return sizes.map((p, i) => ({ page: i, width: p.width, height: p.height, rotation: p.rotation }));
}

/** The sizes the signer pages show of the pages read from a file: its CropBox and /Rotate. */
export function pageSizesOf(pages: PdfInfo['pages']): StoredPageSize[] {
  return pages.map((p) => ({ width: p.cropBox.width, height: p.cropBox.height, rotation: p.rotation }));
}

/** Keeps the sizes of the pages read from the file stored as `sha256`. */
async function keepPageSizes(db: Deps['db'], sha256: string, pages: PdfInfo['pages']): Promise<StoredPageSize[]> {
  const sizes = pageSizesOf(pages);
  await savePageSizes(db, sha256, sizes);
  return sizes;
}
