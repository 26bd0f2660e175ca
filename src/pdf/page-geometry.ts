// Page geometry read from the page tree itself: the visible area (CropBox clipped to MediaBox,
// both inherited per PDF 32000-1 §7.7.3.4), the rotation and the size of the page's unit (/UserUnit).
// The boxes are in the page's user space units; the API speaks PDF points (decisions.md), which are
// user space units times /UserUnit. @libpdf/core 0.4.2's
// PDFPage.getCropBox() returns [x1 y1 x2 y2] as if it were x, y, width, height and ignores
// inherited boxes, so it cannot be used for placing or checking boxes.
import { PdfArray, type PdfDict, PdfNumber, type PDF, type PDFPage, type PdfObject, type PdfRef } from '@libpdf/core';

export type Rotation = 0 | 90 | 180 | 270;
export type RectArray = [number, number, number, number];

export const resolverOf = (pdf: PDF) => (ref: PdfRef) => pdf.getObject(ref);

export function numbersOf(obj: PdfObject | undefined | null): number[] | null {
  if (!(obj instanceof PdfArray) || obj.length !== 4) {
    return null;
  }
  const out = obj.toArray().map((v) => (v instanceof PdfNumber ? v.value : NaN));
  return out.every(Number.isFinite) ? out : null;
}

/** [llx lly urx ury] from any two corners (§7.9.5: rectangles may be written in any corner order). */
export function normalise(n: number[]): RectArray {
  return [Math.min(n[0], n[2]), Math.min(n[1], n[3]), Math.max(n[0], n[2]), Math.max(n[1], n[3])];
}

/** A page attribute, looked up the page tree as §7.7.3.4 (inheritance) requires. */
function inherited(pdf: PDF, page: PDFPage, key: string): PdfObject | undefined {
  const resolve = resolverOf(pdf);
  let dict: PdfDict | undefined = page.dict;
  for (let depth = 0; dict && depth < 64; depth++) {
    const value = dict.get(key, resolve);
    if (value !== undefined && value !== null) {
      return value;
    }
    dict = dict.getDict('Parent', resolve);
  }
  return undefined;
}

/**
 * The size of one user space unit in points (PDF 32000-1 §7.7.3.3, Table 30, /UserUnit, PDF 1.6): a
 * page `/MediaBox [0 0 8.5 11] /UserUnit 72` is a Letter page measured in inches. 1 when absent or
 * not a positive number. A key of the page object itself: not inherited.
 */
export function userUnitOf(pdf: PDF, page: PDFPage): number {
  const v = page.dict.get('UserUnit', resolverOf(pdf));
  return v instanceof PdfNumber && Number.isFinite(v.value) && v.value > 0 ? v.value : 1;
}

/**
 * The visible page: the CropBox (defaulting to the MediaBox) clipped to the MediaBox, §14.11.2.
 * Read here rather than with PDFPage.getCropBox(), which in 0.4.2 returns [x1 y1 x2 y2] as if it
 * were x, y, width, height, and ignores inherited boxes.
 */
export function pageGeometry(pdf: PDF, page: PDFPage): { crop: RectArray; rotation: Rotation; userUnit: number } {
  const media = numbersOf(inherited(pdf, page, 'MediaBox'));
  const mediaBox = media ? normalise(media) : ([0, 0, 612, 792] as RectArray); // Letter: the usual reader default
  const cropRaw = numbersOf(inherited(pdf, page, 'CropBox'));
  const c = cropRaw ? normalise(cropRaw) : mediaBox;
  const crop: RectArray = [
    Math.max(c[0], mediaBox[0]),
    Math.max(c[1], mediaBox[1]),
    Math.min(c[2], mediaBox[2]),
    Math.min(c[3], mediaBox[3]),
  ];
  const rotate = inherited(pdf, page, 'Rotate');
  const degrees = rotate instanceof PdfNumber ? ((Math.round(rotate.value) % 360) + 360) % 360 : 0;
  const rotation = ([0, 90, 180, 270].includes(degrees) ? degrees : 0) as Rotation; // §7.7.3.3: multiples of 90
  return { crop, rotation, userUnit: userUnitOf(pdf, page) };
}
