// Gap 1: @libpdf/core's sign() has no page, rectangle or appearance option. It merges the field
// with one widget at /Rect [0 0 0 0] on page 1 and, when it reuses a field, strips that field's
// widgets from the pages, so a box a template placed disappears. Here the signer's boxes are laid
// out on their pages ourselves: one /FT /Sig field per signer (PDF 32000-1 §12.7.4.5) whose widget
// (§12.5.6.19) sits in the first box, with /Rect, /P, /F and /AP, listed in its page's /Annots;
// see layoutSignature() for the other boxes.
import { PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfString, type PDF, type PDFPage, type PdfObject } from '@libpdf/core';
import { normalise, numbersOf, pageGeometry, resolverOf, type RectArray, type Rotation } from './page-geometry.js';
import { PdfSignError } from './sign-errors.js';

export { pageGeometry, type RectArray, type Rotation };

/** Smallest box (displayed width × height, points) whose legend stays legible at 4 pt. */
export const MIN_BOX_SIZE = { width: 36, height: 16 } as const;

/** A widget to create or refresh: where it is, and the size its appearance must fill. */
export interface WidgetPlacement {
  page: PDFPage;
  /** [llx lly urx ury] in the page's user space (what /Rect holds). */
  rect: RectArray;
  rotation: Rotation;
  /** Points per user space unit of the page (/UserUnit): the appearance is drawn at its size in points. */
  userUnit: number;
  /** An existing widget of a pre-placed field, refreshed in place; absent for a new one. */
  existing?: { ref: PdfRef; dict: PdfDict };
}

const sameRef = (a: PdfObject | undefined, b: PdfRef) =>
  a instanceof PdfRef && a.objectNumber === b.objectNumber && a.generation === b.generation;

/**
 * Each box as a /Rect in user space: its coordinates are points relative to the CropBox origin,
 * divided by the page's /UserUnit (decisions.md: rect is in points; on a page measured in inches,
 * /UserUnit 72, the box [72 72 288 144] is /Rect [1 1 4 2] from the CropBox origin).
 */
export function placeBoxes(
  pdf: PDF,
  boxes: { page: number; rect: { lx: number; ly: number; tx: number; ty: number } }[],
): WidgetPlacement[] {
  if (boxes.length === 0) {
    throw new PdfSignError('BOX_INVALID', 'a signer needs at least one signature box');
  }
  const pageCount = pdf.getPageCount();
  return boxes.map((box, i) => {
    const page = Number.isInteger(box.page) ? pdf.getPage(box.page) : null;
    if (!page || box.page < 0 || box.page >= pageCount) {
      throw new PdfSignError('BOX_INVALID', `box ${i}: page ${box.page} does not exist (the document has ${pageCount}, numbered from 0)`);
    }
    const { lx, ly, tx, ty } = box.rect;
    if (![lx, ly, tx, ty].every(Number.isFinite) || tx <= lx || ty <= ly) {
      throw new PdfSignError('BOX_INVALID', `box ${i}: the rectangle must have lx < tx and ly < ty`);
    }
    const { crop, rotation, userUnit: u } = pageGeometry(pdf, page);
    const cropW = (crop[2] - crop[0]) * u;
    const cropH = (crop[3] - crop[1]) * u;
    const eps = 0.01;
    if (lx < -eps || ly < -eps || tx > cropW + eps || ty > cropH + eps) {
      throw new PdfSignError(
        'BOX_INVALID',
        `box ${i}: [${lx} ${ly} ${tx} ${ty}] is not inside page ${box.page} (${cropW} × ${cropH} points)`,
      );
    }
    const [w, h] = rotation === 90 || rotation === 270 ? [ty - ly, tx - lx] : [tx - lx, ty - ly];
    if (w < MIN_BOX_SIZE.width || h < MIN_BOX_SIZE.height) {
      throw new PdfSignError('BOX_INVALID', `box ${i}: ${w} × ${h} points is smaller than ${MIN_BOX_SIZE.width} × ${MIN_BOX_SIZE.height}`);
    }
    return { page, rect: [crop[0] + lx / u, crop[1] + ly / u, crop[0] + tx / u, crop[1] + ty / u], rotation, userUnit: u };
  });
}

function pageOfWidget(pdf: PDF, ref: PdfRef, dict: PdfDict): PDFPage | null {
  const resolve = resolverOf(pdf);
  const pages = pdf.getPages();
  // /Annots is what viewers draw from; /P is only a hint (§12.5.2) and may be missing or stale.
  const holder = pages.find((p) =>
    p.dict
      .getArray('Annots', resolve)
      ?.toArray()
      .some((a) => sameRef(a, ref)),
  );
  if (holder) {
    return holder;
  }
  const p = dict.getRef('P');
  return (p && pages.find((pg) => sameRef(p, pg.ref))) || null;
}

/** How the signer's boxes are drawn: the field's one widget, and locked stamps for the others. */
export interface SignatureLayout {
  fieldRef: PdfRef;
  fieldDict: PdfDict;
  /** The field's widget (the field dictionary itself, merged), given the appearance in place. */
  widget: WidgetPlacement;
  /** The other boxes: /Stamp annotations carrying the same appearance (`existing` when reused). */
  stamps: WidgetPlacement[];
}

const near = (a: RectArray, b: RectArray) => a.every((v, i) => Math.abs(v - b[i]) < 0.5);
const rectArray = (r: RectArray) => new PdfArray(r.map((v) => PdfNumber.of(Math.round(v * 1000) / 1000)));

function annotsOf(pdf: PDF, page: PDFPage): PdfArray {
  let annots = page.dict.getArray('Annots', resolverOf(pdf));
  if (!annots) {
    annots = new PdfArray([]);
    page.dict.set('Annots', annots);
  }
  return annots;
}

/** Replaces `ref` in every page's /Annots by `by`, or drops it when `by` is null. */
function replaceInAnnots(pdf: PDF, ref: PdfRef, by: PdfRef | null): void {
  for (const page of pdf.getPages()) {
    const annots = page.dict.getArray('Annots', resolverOf(pdf));
    for (let i = (annots?.length ?? 0) - 1; i >= 0; i--) {
      if (sameRef(annots!.at(i), ref)) {
        if (by) {
          annots!.set(i, by);
        } else {
          annots!.remove(i);
        }
      }
    }
  }
}

/** The widgets of a field with something to show: itself when merged, else its widget kids. */
function visibleWidgets(pdf: PDF, ref: PdfRef, dict: PdfDict): { visible: WidgetPlacement[]; invisible: PdfRef[] } {
  const resolve = resolverOf(pdf);
  const candidates: [PdfObject, PdfObject | null][] = dict.has('Kids')
    ? (dict.getArray('Kids', resolve)?.toArray() ?? []).map((k) => [k, k instanceof PdfRef ? pdf.getObject(k) : null])
    : [[ref, dict]];
  const visible: WidgetPlacement[] = [];
  const invisible: PdfRef[] = [];
  for (const [kid, kidDict] of candidates) {
    if (!(kid instanceof PdfRef) || !(kidDict instanceof PdfDict) || kidDict.getName('Subtype', resolve)?.value !== 'Widget') {
      continue;
    }
    const rect = numbersOf(kidDict.get('Rect', resolve));
    const page = pageOfWidget(pdf, kid, kidDict);
    const r = rect ? normalise(rect) : null;
    if (r && page && r[2] - r[0] > 0 && r[3] - r[1] > 0) {
      const { rotation, userUnit } = pageGeometry(pdf, page);
      visible.push({ page, rect: r, rotation, userUnit, existing: { ref: kid, dict: kidDict } });
    } else {
      invisible.push(kid); // e.g. the [0 0 0 0] widget sign() leaves
    }
  }
  return { visible, invisible };
}

/**
 * Finds or creates the signer's signature field and makes it the merged field/widget of one box
 * (§12.7.1 allows field and widget in one dictionary when there is one widget). Other boxes are
 * locked stamps. Why not one widget kid per box: a field whose widgets are /Kids with /Parent,
 * though correct per §12.7.1 and Table 188, is read by poppler 22.12 (Debian 12's pdfsig, Okular,
 * Evince; fixed in later releases) as one *unsigned* field per widget: the signature would appear
 * missing there (checked: pdfsig said "The signature form field is not signed" for each box).
 * A field a template pre-placed keeps its boxes where they are, visible: its first widget is
 * merged into the field, its other widgets become stamps in place.
 */
export function layoutSignature(pdf: PDF, fieldName: string, boxes: WidgetPlacement[]): SignatureLayout {
  const resolve = resolverOf(pdf);
  const form = pdf.getOrCreateForm();
  const field = form.getField(fieldName);
  let ref: PdfRef | null;
  let dict: PdfDict;
  if (!field) {
    const created = form.createSignatureField(fieldName); // adds it to /Fields and sets /SigFlags 3
    ref = created.getRef();
    dict = created.getDict();
  } else {
    if (field.type !== 'signature') {
      throw new PdfSignError('SIGNING_FAILED', `field "${fieldName}" exists and is not a signature field`);
    }
    ref = field.getRef();
    dict = field.getDict();
    if (dict.has('V')) {
      throw new PdfSignError('SIGNING_FAILED', `signature field "${fieldName}" is already signed`);
    }
    // A reused field was not added by addField(): §12.7.2, SigFlags 1|2 (signatures exist, append only).
    const acroForm = pdf.getCatalog().getDict('AcroForm', resolve);
    if (acroForm && ((acroForm.getNumber('SigFlags', resolve)?.value ?? 0) & 3) !== 3) {
      acroForm.set('SigFlags', PdfNumber.of(3));
    }
  }
  if (!ref) {
    throw new PdfSignError('SIGNING_FAILED', `signature field "${fieldName}" has no object reference`);
  }
  const { visible, invisible } = visibleWidgets(pdf, ref, dict);
  for (const gone of invisible) {
    replaceInAnnots(pdf, gone, null);
  }
  const [first, ...others] = visible;
  let widget: WidgetPlacement;
  if (first && !sameRef(first.existing!.ref, ref)) {
    // Merge the first widget kid into the field, in its place in the page's /Annots.
    for (const key of first.existing!.dict.keys()) {
      if (key.value !== 'Parent') {
        dict.set(key, first.existing!.dict.get(key)!);
      }
    }
    replaceInAnnots(pdf, first.existing!.ref, ref);
    widget = { ...first, existing: { ref, dict } };
  } else if (first) {
    widget = first;
  } else {
    replaceInAnnots(pdf, ref, null);
    dict.set('Type', PdfName.of('Annot'));
    dict.set('Subtype', PdfName.of('Widget'));
    dict.set('Rect', rectArray(boxes[0].rect));
    annotsOf(pdf, boxes[0].page).push(ref);
    widget = { ...boxes[0], existing: { ref, dict } };
  }
  dict.delete('Kids');
  const placed = [widget, ...others];
  const stamps = [...others, ...boxes.filter((b) => !placed.some((w) => sameRef(w.page.ref, b.page.ref) && near(w.rect, b.rect)))];
  return { fieldRef: ref, fieldDict: dict, widget, stamps };
}

/**
 * Gives the field's widget its appearance: §12.5.5 (/AP /N), §12.5.2 (/P; /F Print set,
 * Hidden and NoView cleared, so a pre-placed box is never left hidden).
 */
export function refreshWidget(pdf: PDF, widget: WidgetPlacement, apRef: PdfRef): void {
  const dict = widget.existing!.dict;
  const flags = dict.getNumber('F', resolverOf(pdf))?.value ?? 0;
  dict.set('F', PdfNumber.of((flags | 4) & ~(2 | 32)));
  dict.set('AP', PdfDict.of({ N: apRef }));
  dict.delete('AS'); // one appearance, no states to choose from
  dict.set('P', widget.page.ref);
}

/**
 * Another box: a rubber-stamp annotation (§12.5.6.12) with the signature's appearance, in the
 * same revision, so the signature covers it; a reused widget is turned into one in place. /F:
 * Print (4), ReadOnly (64), Locked (128): readers neither let users move or delete it nor edit it.
 */
export function writeStamp(pdf: PDF, placement: WidgetPlacement, apRef: PdfRef, description: string): void {
  const stamp = placement.existing?.dict ?? new PdfDict();
  for (const key of ['Parent', 'FT', 'AS', 'MK', 'DA', 'Ff', 'T', 'V', 'A', 'AA']) {
    stamp.delete(key); // a stamp is no field, and does nothing when clicked
  }
  stamp.set('Type', PdfName.of('Annot'));
  stamp.set('Subtype', PdfName.of('Stamp'));
  stamp.set('Rect', rectArray(placement.rect));
  stamp.set('P', placement.page.ref);
  stamp.set('F', PdfNumber.of(4 | 64 | 128));
  stamp.set('AP', PdfDict.of({ N: apRef }));
  stamp.set('Contents', PdfString.fromString(description));
  if (!placement.existing) {
    annotsOf(pdf, placement.page).push(pdf.register(stamp));
  }
}
