// A QR code drawn on pages of a PDF, as vector graphics: the dark modules are filled rectangles in
// the page's content stream, so the code stays crisp at any zoom and in print. It is added before
// any signature (at creation), so every later signature covers it. Pure: bytes in, bytes out.
//
// ISO/IEC 18004: error correction level M (15 % of the symbol may be lost), and a quiet zone of
// four modules on every side, painted white with the symbol so that page content under the box
// cannot break the code. The code is the largest square centred in the box, turned against the
// page's /Rotate so that it reads upright on screen (§8.3.2.3), and a URI link annotation
// (§12.5.6.5, §12.6.4.8) over it opens the same address when the file is read on a screen.
import QRCode from 'qrcode';
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfString, ops, type PDFPage } from '@libpdf/core';
import { pageGeometry, resolverOf, type Rotation } from './page-geometry.js';

/** Where a code goes: 0-based page; PDF points in unrotated user space, origin at the CropBox's lower-left corner. */
export interface QrPlacement {
  page: number;
  rect: { lx: number; ly: number; tx: number; ty: number };
}

/** Light modules around the symbol on each side (ISO/IEC 18004 §6.3.8 asks for four). */
export const QUIET_ZONE = 4;

export class QrStampError extends Error {}

/** The symbol's modules, row by row from the top, true for dark; level M. */
export function qrModules(text: string): boolean[][] {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = modules.size;
  return Array.from({ length: n }, (_, row) => Array.from({ length: n }, (_, col) => modules.data[row * n + col] === 1));
}

/**
 * The square in user space the code fills, for a box relative to the CropBox: the largest one,
 * centred, as [x, y, side].
 */
export function qrSquare(crop: [number, number, number, number], rect: QrPlacement['rect']): [number, number, number] {
  const w = rect.tx - rect.lx;
  const h = rect.ty - rect.ly;
  const side = Math.min(w, h);
  return [crop[0] + rect.lx + (w - side) / 2, crop[1] + rect.ly + (h - side) / 2, side];
}

/**
 * Maps the symbol's upright square [0, size]² (one unit per module, y up) onto the page square
 * at (x, y) of the given side, turned against the page's rotation as the signature appearances
 * are (signature-appearance.ts): the reader turns the page clockwise by /Rotate, we turn the
 * symbol counter-clockwise by as much.
 */
function placementMatrix(x: number, y: number, side: number, size: number, rotation: Rotation): number[] {
  const m = side / size;
  switch (rotation) {
    case 90:
      return [0, m, -m, 0, x + side, y];
    case 180:
      return [-m, 0, 0, -m, x + side, y + side];
    case 270:
      return [0, -m, m, 0, x, y + side];
    default:
      return [m, 0, 0, m, x, y];
  }
}

/**
 * The drawing operators of one code: a white square (quiet zone included), then the dark
 * modules, a horizontal run of them as one rectangle, all filled as one path (no seams between
 * neighbouring modules when anti-aliased).
 */
function qrOperators(modules: boolean[][], matrix: number[]) {
  const n = modules.length;
  const size = n + 2 * QUIET_ZONE;
  const out = [
    ops.pushGraphicsState(),
    ops.concatMatrix(matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5]),
    ops.setNonStrokingGray(1),
    ops.rectangle(0, 0, size, size),
    ops.fill(),
    ops.setNonStrokingGray(0),
  ];
  modules.forEach((row, r) => {
    const y = size - QUIET_ZONE - r - 1; // row 0 is the top
    for (let c = 0; c < n; ) {
      if (!row[c]) {
        c++;
        continue;
      }
      const start = c;
      while (c < n && row[c]) {
        c++;
      }
      out.push(ops.rectangle(QUIET_ZONE + start, y, c - start, 1));
    }
  });
  out.push(ops.fill(), ops.popGraphicsState());
  return out;
}

const num = (v: number) => PdfNumber.of(Math.round(v * 1000) / 1000);

function addLink(pdf: PDF, page: PDFPage, square: [number, number, number], url: string): void {
  const [x, y, side] = square;
  const link = PdfDict.of({
    Type: PdfName.of('Annot'),
    Subtype: PdfName.of('Link'),
    Rect: new PdfArray([x, y, x + side, y + side].map(num)),
    Border: new PdfArray([0, 0, 0].map((v) => PdfNumber.of(v))),
    F: PdfNumber.of(4), // Print
    P: page.ref,
    A: PdfDict.of({ S: PdfName.of('URI'), URI: PdfString.fromString(url) }),
  });
  let annots = page.dict.getArray('Annots', resolverOf(pdf));
  if (!annots) {
    annots = new PdfArray([]);
    page.dict.set('Annots', annots);
  }
  annots.push(pdf.register(link));
}

/**
 * Draws a QR code of `url` in each placement and returns the new file: the input followed by one
 * incremental update, so a signature already in an uploaded file keeps its byte range. A file
 * the library cannot update incrementally (linearized, for one) is written anew instead: nothing
 * of this service has signed it yet.
 */
export async function stampQrCodes(bytes: Uint8Array, placements: QrPlacement[], url: string): Promise<Uint8Array> {
  if (placements.length === 0) {
    return bytes;
  }
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (err) {
    throw new QrStampError(`the PDF cannot be read: ${(err as Error).message}`);
  }
  const modules = qrModules(url);
  const size = modules.length + 2 * QUIET_ZONE;
  const pageCount = pdf.getPageCount();
  placements.forEach((p, i) => {
    const page = Number.isInteger(p.page) && p.page >= 0 && p.page < pageCount ? pdf.getPage(p.page) : null;
    if (!page) {
      throw new QrStampError(`code ${i}: page ${p.page} does not exist (the document has ${pageCount}, numbered from 0)`);
    }
    const { lx, ly, tx, ty } = p.rect;
    if (![lx, ly, tx, ty].every(Number.isFinite) || tx <= lx || ty <= ly) {
      throw new QrStampError(`code ${i}: the rectangle must have lx < tx and ly < ty`);
    }
    const { crop, rotation, userUnit: u } = pageGeometry(pdf, page);
    // The placement is in points; the page's user space may count in larger units (/UserUnit).
    const square = qrSquare(crop, { lx: lx / u, ly: ly / u, tx: tx / u, ty: ty / u });
    page.drawOperators(qrOperators(modules, placementMatrix(square[0], square[1], square[2], size, rotation)));
    addLink(pdf, page, square, url);
  });
  return pdf.save({ incremental: pdf.canSaveIncrementally() === null });
}
