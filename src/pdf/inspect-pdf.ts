// Reads what the service needs to know of an uploaded PDF before accepting it: that it really is a
// PDF we can later sign incrementally, its pages and their geometry. Pure: bytes in, facts out.
//
// The file is read strictly, every object of it, as `qpdf --check` reads it: a file is accepted
// only if it reads as it is. The library's lenient mode repairs what it meets (a stray ")" or "}"
// in an array or dictionary, offsets that miss their objects, a missing cross-reference table),
// and on some such files it loops without end while allocating; what a repair makes of a file
// is also not what every other reader makes of it, so the signers could see different documents.
// Reading every object now, not only those the pages need, is what lets later readers of the
// stored file (signing, which runs on the main thread) meet no syntax they have not met here.
import { PDF, PdfArray, PdfDict, PdfRef, type PdfObject } from '@libpdf/core';
import { pageGeometry } from './page-geometry.js';

export interface PageInfo {
  /**
   * CropBox (the visible page, clipped to the MediaBox), in PDF points, unrotated user space: on a
   * page with /UserUnit, its user space units times that unit.
   */
  cropBox: { x: number; y: number; width: number; height: number };
  rotation: 0 | 90 | 180 | 270;
}

export interface PdfInfo {
  pageCount: number;
  pages: PageInfo[];
  version: string;
}

export type PdfProblem = 'NOT_PDF' | 'DAMAGED' | 'ENCRYPTED' | 'TOO_MANY_PAGES' | 'NO_PAGES' | 'TOO_COMPLEX';

export class PdfInputError extends Error {
  constructor(
    readonly problem: PdfProblem,
    message: string,
  ) {
    super(message);
    this.name = 'PdfInputError';
  }
}

/** PDF 32000-1 Annex C.2: the most indirect objects a file may have (8,388,607). */
const MAX_OBJECTS = 8_388_607;

const REPAIR_HINT = 'open and save it again with a PDF tool, then retry';

export async function inspectPdf(bytes: Uint8Array, opts: { maxPages: number }): Promise<PdfInfo> {
  const pdf = await loadStrict(bytes);
  // Owner-only encryption opens without a password but still encrypts every string and stream:
  // signatures over it are unreliable in validators, so both kinds are refused.
  if (pdf.isEncrypted) {
    throw new PdfInputError('ENCRYPTED', 'the PDF is encrypted; remove the password or protection and retry');
  }
  readEveryObject(pdf);
  checkPageTree(pdf);
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
      const { crop, rotation, userUnit: u } = pageGeometry(pdf, p);
      return { cropBox: { x: crop[0] * u, y: crop[1] * u, width: (crop[2] - crop[0]) * u, height: (crop[3] - crop[1]) * u }, rotation };
    }),
  };
}

/** The library in strict mode: no brute-force recovery, no repair of broken syntax. */
export async function loadStrict(bytes: Uint8Array): Promise<PDF> {
  // The header may be preceded by junk (PDF 32000-1 §7.5.2 tolerance in readers), but not by much.
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (!head.includes('%PDF-')) {
    throw new PdfInputError('NOT_PDF', 'the file is not a PDF (no %PDF- header)');
  }
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes, { lenient: false });
  } catch (err) {
    throw new PdfInputError('DAMAGED', `the PDF is damaged and cannot be read as it is (${(err as Error).message}); ${REPAIR_HINT}`);
  }
  // Strict mode never recovers by brute force; kept so that a library change cannot let one through.
  // Such a file cannot take incremental signatures without rewriting it, which would change what the
  // signers see.
  if (pdf.recoveredViaBruteForce) {
    throw new PdfInputError('DAMAGED', `the PDF is damaged (truncated or with a broken cross-reference table); ${REPAIR_HINT}`);
  }
  return pdf;
}

/** Parses every object the cross-reference data lists (numbers below the trailer's /Size). */
function readEveryObject(pdf: PDF): void {
  const size = pdf.context.info.trailer.getNumber('Size')?.value ?? 0;
  if (!Number.isInteger(size) || size < 1 || size - 1 > MAX_OBJECTS) {
    throw new PdfInputError('DAMAGED', `the PDF's trailer gives an impossible object count (/Size ${size}); ${REPAIR_HINT}`);
  }
  for (let n = 1; n < size; n++) {
    try {
      pdf.getObject(PdfRef.of(n, 0));
    } catch (err) {
      throw new PdfInputError('DAMAGED', `object ${n} of the PDF cannot be read (${(err as Error).message}); ${REPAIR_HINT}`);
    }
  }
}

/**
 * The page tree must be a tree (§7.7.3.2): a node that is its own ancestor, or reached twice, is a
 * loop the library silently cuts but other readers refuse or follow forever (qpdf: "Loop detected
 * in /Pages structure"). Walked without recursion, so a deep tree cannot exhaust the stack.
 */
function checkPageTree(pdf: PDF): void {
  const resolve = (o: PdfObject | undefined) => (o instanceof PdfRef ? pdf.getObject(o) : (o ?? null));
  const root = pdf.getCatalog().get('Pages');
  const seen = new Set<string>();
  const stack: (PdfObject | undefined)[] = [root];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof PdfRef) {
      const key = `${item.objectNumber} ${item.generation}`;
      if (seen.has(key)) {
        throw new PdfInputError('DAMAGED', `the PDF's page tree has a loop (object ${key} is reached twice); ${REPAIR_HINT}`);
      }
      seen.add(key);
    }
    const node = resolve(item);
    if (node instanceof PdfDict && node.getName('Type')?.value !== 'Page') {
      const kids = resolve(node.get('Kids'));
      if (kids instanceof PdfArray) {
        for (const kid of kids.toArray()) {
          stack.push(kid);
        }
      }
    }
  }
}
