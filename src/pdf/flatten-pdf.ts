// POST /api/print: a static, printable copy of a PDF. Form fields and annotations are drawn into the
// page content and removed, so what prints is what was shown and nothing stays interactive. The
// library does the drawing (PDF.flattenAll: optional-content layers, form fields with their
// appearances, annotations); here the file is first read as strictly as an upload is (inspectPdf:
// damaged, encrypted and oversized files are refused), and the result is checked to hold no field.
// Links stay: they have no appearance to draw and printing ignores them. Popups (the notes'
// windows) are not drawn: a printed page shows the note's icon, not the open window.
// The copy is a new file, saved whole: any signature in the input does not survive flattening.
import { type PDF, PdfArray, PdfDict, PdfNumber, PdfRef, type PdfStream } from '@libpdf/core';
import { addGeometricAppearance, GEOMETRIC_SUBTYPES } from './annotation-appearance.js';
import { PdfInputError, inspectPdf, loadStrict } from './inspect-pdf.js';

export interface FlattenResult {
  pdf: Uint8Array;
  formFields: number;
  annotations: number;
  layers: number;
}

export async function flattenPdf(bytes: Uint8Array, opts: { maxPages: number }): Promise<FlattenResult> {
  await inspectPdf(bytes, opts);
  const pdf = await loadStrict(bytes);
  giveFieldAppearances(pdf);
  giveAppearances(pdf);
  let counts: { formFields: number; annotations: number; layers: number };
  try {
    counts = pdf.flattenAll({ annotations: { exclude: ['Link', 'Popup'], removeLinks: false } });
  } catch (err) {
    throw new PdfInputError('DAMAGED', `the PDF's fields or annotations cannot be drawn into its pages: ${(err as Error).message}`);
  }
  const acroForm = pdf.getCatalog().get('AcroForm');
  const fields = acroForm instanceof PdfDict ? acroForm.get('Fields') : undefined;
  if (fields instanceof PdfArray && fields.length > 0) {
    throw new PdfInputError('DAMAGED', `${fields.length} form fields could not be flattened`);
  }
  return { pdf: await pdf.save({ incremental: false }), ...counts };
}

/** Field flag ReadOnly (PDF 32000-1 §12.7.3.1, table 221). */
const READ_ONLY = 1;

/**
 * Form fields drawn as readers show them. A field may hold a value (/V) and no appearance stream,
 * when its producer left the drawing to the reader (NeedAppearances true, PDF 32000-1 §12.7.2, as
 * many form fillers do): readers then make one from the value, but the library's flattener draws
 * only appearance streams, and the value would vanish from the printout. So every field with a
 * widget that has no normal appearance gets one made from its value, and, when the form asks for
 * NeedAppearances, text fields are drawn again from their values (readers show those, not a stale
 * stream); a checkbox, radio or choice that has an appearance keeps it. A read-only field is drawn
 * too (the library would skip it): it is removed by the flattening in any case.
 */
function giveFieldAppearances(pdf: PDF): void {
  const form = pdf.getForm();
  if (!form) {
    return;
  }
  const raw = pdf.getCatalog().get('AcroForm');
  const acroForm = raw instanceof PdfRef ? pdf.context.resolve(raw) : raw;
  const needAll = acroForm instanceof PdfDict && acroForm.getBool('NeedAppearances')?.value === true;
  const stateless: WidgetLike[] = [];
  let marked = false;
  for (const field of form.getFields()) {
    if (!('needsAppearanceUpdate' in field) || field.type === 'signature' || field.type === 'button') {
      continue;
    }
    const missing = field.getWidgets().some((w) => !w.hasNormalAppearance());
    if (!missing && !(needAll && field.type === 'text')) {
      continue;
    }
    if (field.isReadOnly()) {
      field.getDict().set('Ff', PdfNumber.of(field.flags & ~READ_ONLY));
    }
    field.needsAppearanceUpdate = true;
    marked = true;
    if (field.type === 'checkbox' || field.type === 'radio') {
      stateless.push(...field.getWidgets().filter((w) => !w.hasNormalAppearance()));
    }
  }
  if (!marked) {
    return;
  }
  form.updateAppearances();
  // A checkbox or radio button is drawn in the state its /AS names; without an appearance to take
  // the on state's name from, the library draws the on state as "Yes": it is given the name /AS uses.
  for (const w of stateless) {
    const state = w.appearanceState;
    const on = w.getOnValue();
    const stream = on ? w.getNormalAppearance(on) : null;
    if (state && state !== 'Off' && !w.getNormalAppearance(state) && stream) {
      w.setNormalAppearance(stream, state);
    }
  }
}

type WidgetLike = {
  appearanceState: string | null;
  getOnValue(): string | null;
  getNormalAppearance(state?: string): PdfStream | null;
  setNormalAppearance(stream: PdfStream, state?: string): void;
};

/** Subtypes that need no appearance: form fields (drawn by the form flattener), links, popups. */
const NOT_DRAWN = new Set(['Widget', 'Link', 'Popup']);
/** Flags that keep an annotation off the page: Invisible, Hidden, NoView (PDF 32000-1 §12.5.3). */
const HIDDEN_FLAGS = 1 | 2 | 32;

/**
 * Every annotation the page shows must have an appearance to draw, or the library's flattener would
 * drop it: geometric ones get one from their geometry; any other is refused by name.
 */
function giveAppearances(pdf: PDF): void {
  const resolve = (o: unknown) => (o instanceof PdfRef ? pdf.context.resolve(o) : o);
  pdf.getPages().forEach((page, index) => {
    const annots = resolve(page.dict.get('Annots'));
    if (!(annots instanceof PdfArray)) {
      return;
    }
    for (const item of annots.toArray()) {
      const annot = resolve(item);
      if (!(annot instanceof PdfDict) || annot.get('AP') !== undefined) {
        continue;
      }
      const subtype = annot.getName('Subtype')?.value ?? '';
      const flags = resolve(annot.get('F'));
      if (NOT_DRAWN.has(subtype) || (flags instanceof PdfNumber && (flags.value & HIDDEN_FLAGS) !== 0)) {
        continue;
      }
      const drawn = (GEOMETRIC_SUBTYPES as readonly string[]).includes(subtype) && addGeometricAppearance(pdf, annot, subtype);
      if (!drawn) {
        throw new PdfInputError(
          'DAMAGED',
          `a ${subtype || 'untyped'} annotation on page ${index + 1} has no appearance stream, so it cannot be drawn into the page as readers show it`,
        );
      }
    }
  });
}
