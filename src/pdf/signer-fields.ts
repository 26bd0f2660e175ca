// The fields signers fill, as AcroForm fields (PDF 32000-1 §12.7). Two moments:
//
//  1. At creation (placeSignerFields, in the PDF jail like the QR stamp): every field is added to
//     the form empty and read-only, one merged field/widget per box, in the file that becomes the
//     document's original. They must exist before anyone signs: a field *added* after a signature
//     is a change no signature allows (§12.8.2.2; pyHanko and EU DSS judge it so, and so does
//     verify/change-rules.ts), while *filling* one is allowed by DocMDP level 2 and by an approval
//     signature.
//  2. In a signer's own revision (fillSignerFields, from signature-revision.ts, before the
//     signature dictionary and its /ByteRange): each of that signer's fields gets its /V and an
//     appearance (/AP /N) drawn with the any-script fonts (text-pdf-fonts.ts: shaped, bidi
//     ordered, with ToUnicode), so the signature covers the values and text extraction reads them.
//     Only /V, /AS and /AP of existing fields change, plus new appearance streams and fonts: what
//     the verifier classifies as form filling.
// Pure, as pdf/ must be.
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfRef, PdfString } from '@libpdf/core';
import { pageGeometry, resolverOf, type Rotation } from './page-geometry.js';
import type { EmbeddedLines } from './text-pdf-fonts.js';
import { shapedLineOps } from './signature-appearance.js';

export type SignerFieldKind = 'text' | 'date' | 'checkbox' | 'initials' | 'dropdown';

/** A field to place: its AcroForm name (no period), what it is and where (points, CropBox origin). */
export interface SignerFieldPlacement {
  name: string;
  type: SignerFieldKind;
  page: number;
  rect: { lx: number; ly: number; tx: number; ty: number };
  /** Shown as the field's tooltip (/TU); null: none. */
  label: string | null;
  /** Dropdown: its choices. */
  options?: string[];
}

/** A value to write: text (a date as written) or a checkbox's state. */
export interface SignerFieldFill {
  name: string;
  value: string | boolean;
}

export class SignerFieldError extends Error {}

// §12.7.3.1 Table 221: ReadOnly. The service writes the values; a viewer must not offer to edit them.
const READ_ONLY = 1;
// §12.7.4.4 Table 230: Combo (a drop-down list).
const COMBO = 1 << 17;
// §12.5.3: Print.
const PRINT = 4;

// The first letter of the value decides its direction (UAX #9 rules P2-P3, letters only).
const RTL_FIRST = /^[^\p{L}]*[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/u;

const n = (v: number) => PdfNumber.of(Math.round(v * 1000) / 1000);
const num = (v: number) => (Math.round(v * 1000) / 1000).toString();

// §12.5.5: the BBox mapped through /Matrix is fitted to /Rect; on a turned page the appearance is
// counter-rotated so that it reads upright, as the signature's does (signature-appearance.ts).
const MATRIX: Record<Rotation, number[]> = {
  0: [1, 0, 0, 1, 0, 0],
  90: [0, 1, -1, 0, 0, 0],
  180: [-1, 0, 0, -1, 0, 0],
  270: [0, -1, 1, 0, 0, 0],
};

/** A form XObject of w × h (as the reader sees it) drawing `content`. */
function appearance(pdf: PDF, w: number, h: number, rotation: Rotation, content: string, fonts?: PdfDict): PdfRef {
  return pdf.createStream(
    {
      Type: PdfName.of('XObject'),
      Subtype: PdfName.of('Form'),
      BBox: new PdfArray([0, 0, w, h].map(n)),
      Matrix: new PdfArray(MATRIX[rotation].map((v) => PdfNumber.of(v))),
      Resources: PdfDict.of(fonts ? { Font: fonts } : {}),
    },
    new TextEncoder().encode(content),
  );
}

/** The checkbox's two states: a frame, and the frame with a tick stroked (no font needed). */
function checkboxStates(pdf: PDF, w: number, h: number, rotation: Rotation): PdfDict {
  const frame = `0.35 G 0.8 w 0.4 0.4 ${num(w - 0.8)} ${num(h - 0.8)} re S`;
  const s = Math.min(w, h);
  const x0 = (w - s) / 2;
  const y0 = (h - s) / 2;
  const tick = `0 G ${num(Math.max(1, s * 0.12))} w 1 J 1 j ${num(x0 + s * 0.2)} ${num(y0 + s * 0.52)} m ${num(x0 + s * 0.42)} ${num(y0 + s * 0.28)} l ${num(x0 + s * 0.8)} ${num(y0 + s * 0.75)} l S`;
  return PdfDict.of({
    Yes: appearance(pdf, w, h, rotation, `q ${frame} ${tick} Q`),
    Off: appearance(pdf, w, h, rotation, `q ${frame} Q`),
  });
}

/** The form's /Fields array, made when the file has no form yet. */
function formFields(pdf: PDF): PdfArray {
  const resolve = resolverOf(pdf);
  pdf.getOrCreateForm();
  let acroForm = pdf.getCatalog().getDict('AcroForm', resolve);
  if (!acroForm) {
    acroForm = new PdfDict();
    pdf.getCatalog().set('AcroForm', pdf.register(acroForm));
  }
  let fields = acroForm.getArray('Fields', resolve);
  if (!fields) {
    fields = new PdfArray([]);
    acroForm.set('Fields', fields);
  }
  // §12.7.3.3: /DA needs a font in the form's default resources; Helvetica for a reader that
  // regenerates an appearance (ours are drawn with embedded fonts and need none of it).
  if (!acroForm.has('DA')) {
    acroForm.set('DA', PdfString.fromString('/Helv 0 Tf 0 g'));
  }
  let dr = acroForm.getDict('DR', resolve);
  if (!dr) {
    dr = new PdfDict();
    acroForm.set('DR', dr);
  }
  let drFonts = dr.getDict('Font', resolve);
  if (!drFonts) {
    drFonts = new PdfDict();
    dr.set('Font', drFonts);
  }
  if (!drFonts.has('Helv')) {
    drFonts.set(
      'Helv',
      pdf.register(
        PdfDict.of({
          Type: PdfName.of('Font'),
          Subtype: PdfName.of('Type1'),
          BaseFont: PdfName.of('Helvetica'),
          Encoding: PdfName.of('WinAnsiEncoding'),
        }),
      ),
    );
  }
  return fields;
}

/**
 * Adds the fields, empty and read-only, as one incremental update (a file the library cannot
 * update incrementally is written anew: nothing of this service has signed it yet). Throws
 * SignerFieldError for a page or box the file does not have, or a name already in its form.
 */
export async function placeSignerFields(bytes: Uint8Array, fields: SignerFieldPlacement[]): Promise<Uint8Array> {
  if (fields.length === 0) {
    return bytes;
  }
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (err) {
    throw new SignerFieldError(`the PDF cannot be read: ${(err as Error).message}`);
  }
  const resolve = resolverOf(pdf);
  // A field added after a signature is a change that signature does not allow (§12.8.2.2): an
  // uploaded file already signed, or certified, would show as modified.
  const signed = (pdf.getForm()?.getSignatureFields() ?? []).some((f) => f.getDict().has('V'));
  if (signed || pdf.getCatalog().getDict('Perms', resolve)?.has('DocMDP')) {
    throw new SignerFieldError('the PDF is already signed: fields added now would be a change its signatures do not allow');
  }
  const list = formFields(pdf);
  const existing = new Set((pdf.getForm()?.getFields() ?? []).map((f) => f.name));
  const pageCount = pdf.getPageCount();
  fields.forEach((f, i) => {
    if (!f.name || f.name.includes('.') || existing.has(f.name)) {
      throw new SignerFieldError(`field ${i}: the name ${JSON.stringify(f.name)} is not free`);
    }
    const page = Number.isInteger(f.page) && f.page >= 0 && f.page < pageCount ? pdf.getPage(f.page) : null;
    if (!page) {
      throw new SignerFieldError(`field ${i}: page ${f.page} does not exist (the document has ${pageCount}, numbered from 0)`);
    }
    const { crop, rotation, userUnit: u } = pageGeometry(pdf, page);
    const { lx, ly, tx, ty } = f.rect;
    if (![lx, ly, tx, ty].every(Number.isFinite) || tx <= lx || ty <= ly) {
      throw new SignerFieldError(`field ${i}: the rectangle must have lx < tx and ly < ty`);
    }
    const rect = [crop[0] + lx / u, crop[1] + ly / u, crop[0] + tx / u, crop[1] + ty / u];
    const dict = PdfDict.of({
      Type: PdfName.of('Annot'),
      Subtype: PdfName.of('Widget'),
      Rect: new PdfArray(rect.map(n)),
      F: PdfNumber.of(PRINT),
      P: page.ref,
      T: PdfString.fromString(f.name),
      DA: PdfString.fromString('/Helv 0 Tf 0 g'),
    });
    if (f.label) {
      dict.set('TU', PdfString.fromString(f.label));
    }
    if (f.type === 'checkbox') {
      const [w, h] = rotation === 90 || rotation === 270 ? [ty - ly, tx - lx] : [tx - lx, ty - ly];
      dict.set('FT', PdfName.of('Btn'));
      dict.set('Ff', PdfNumber.of(READ_ONLY));
      dict.set('AP', PdfDict.of({ N: checkboxStates(pdf, w, h, rotation) }));
      dict.set('AS', PdfName.of('Off'));
      dict.set('V', PdfName.of('Off'));
    } else if (f.type === 'dropdown') {
      dict.set('FT', PdfName.of('Ch'));
      dict.set('Ff', PdfNumber.of(READ_ONLY | COMBO));
      dict.set('Opt', new PdfArray((f.options ?? []).map((o) => PdfString.fromString(o))));
    } else {
      dict.set('FT', PdfName.of('Tx'));
      dict.set('Ff', PdfNumber.of(READ_ONLY));
    }
    const ref = pdf.register(dict);
    list.push(ref);
    let annots = page.dict.getArray('Annots', resolve);
    if (!annots) {
      annots = new PdfArray([]);
      page.dict.set('Annots', annots);
    }
    annots.push(ref);
    existing.add(f.name);
  });
  return pdf.save({ incremental: pdf.canSaveIncrementally() === null });
}

/** The lines fillSignerFields will draw, for text-pdf-fonts' embedLines. */
export function fillLines(fills: SignerFieldFill[]): string[] {
  return fills.flatMap((f) => (typeof f.value === 'string' && f.value !== '' ? [f.value] : []));
}

/**
 * Writes each value into its field in the loaded `pdf` (the signer's revision being made): /V and
 * a new /AP. `lines` are the values shaped and embedded (text-pdf-fonts.ts, embedLines over
 * fillLines(fills)). Throws SignerFieldError for a field the file does not have.
 */
export function fillSignerFields(pdf: PDF, fills: SignerFieldFill[], lines: EmbeddedLines | undefined): void {
  const resolve = resolverOf(pdf);
  const form = pdf.getForm();
  for (const fill of fills) {
    const field = form?.getField(fill.name);
    if (!field) {
      throw new SignerFieldError(`the field ${fill.name} is not in the document`);
    }
    const dict = field.getDict();
    const ft = dict.getName('FT', resolve)?.value;
    if (typeof fill.value === 'boolean') {
      if (ft !== 'Btn') {
        throw new SignerFieldError(`the field ${fill.name} is not a checkbox`);
      }
      const state = PdfName.of(fill.value ? 'Yes' : 'Off');
      dict.set('V', state);
      dict.set('AS', state);
      continue;
    }
    if (ft !== 'Tx' && ft !== 'Ch') {
      throw new SignerFieldError(`the field ${fill.name} does not take text`);
    }
    dict.set('V', PdfString.fromString(fill.value));
    const page = pdf.getPages().find((p) => p.ref.objectNumber === dict.getRef('P')?.objectNumber);
    const rect = dict
      .getArray('Rect', resolve)
      ?.toArray()
      .map((x) => (x instanceof PdfNumber ? x.value : 0));
    if (!page || !rect || rect.length !== 4) {
      throw new SignerFieldError(`the field ${fill.name} has no place on a page`);
    }
    const { rotation, userUnit: u } = pageGeometry(pdf, page);
    const rw = Math.abs(rect[2] - rect[0]) * u;
    const rh = Math.abs(rect[3] - rect[1]) * u;
    const [w, h] = rotation === 90 || rotation === 270 ? [rh, rw] : [rw, rh];
    dict.set('AP', PdfDict.of({ N: textAppearance(pdf, w, h, rotation, fill.value, lines) }));
  }
}

/** One line of text, left-aligned, vertically centred, at up to 12 pt; squeezed when too wide. */
function textAppearance(pdf: PDF, w: number, h: number, rotation: Rotation, value: string, lines: EmbeddedLines | undefined): PdfRef {
  const line = value === '' ? undefined : lines?.lines.get(`regular:${value}`);
  if (value !== '' && (!line || !lines)) {
    throw new SignerFieldError('the value was not shaped before it was drawn');
  }
  const pad = Math.min(2, w * 0.05);
  const size = Math.max(4, Math.min(12, h * 0.7));
  const baseline = (h - size) / 2 + size * 0.22;
  // Right-to-left text (Arabic, Hebrew first) starts at the right edge, as its readers expect.
  const width = line ? Math.min(line.width * size, w - 2 * pad) : 0;
  const x = RTL_FIRST.test(value) ? w - pad - width : pad;
  const ops = line && lines ? shapedLineOps(line, 'regular', size, x, baseline, w - 2 * pad, lines, '0 0 0') : [];
  const fonts = new PdfDict();
  for (const [name, ref] of lines?.fonts ?? []) {
    fonts.set(name, ref);
  }
  // §12.7.3.3: a variable text field's appearance marks its text as /Tx.
  return appearance(pdf, w, h, rotation, ['/Tx BMC', 'q', ...ops, 'Q', 'EMC'].join('\n'), fonts);
}
