// POST /api/print: a static, printable copy of a PDF. Form fields and annotations are drawn into the
// page content and removed, so what prints is what was shown and nothing stays interactive. The
// library does the drawing (PDF.flattenAll: optional-content layers, form fields with their
// appearances, annotations); here the file is first read as strictly as an upload is (inspectPdf:
// damaged, encrypted and oversized files are refused), and the result is checked to hold no field.
// Links stay: they have no appearance to draw and printing ignores them. Popups (the notes'
// windows) are not drawn: a printed page shows the note's icon, not the open window.
// The copy is a new file, saved whole: any signature in the input does not survive flattening.
import { type PDF, PdfArray, PdfDict, PdfNumber, PdfRef } from '@libpdf/core';
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
