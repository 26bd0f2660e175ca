// pdf templates: a PDF with an AcroForm. Detection lists its fillable fields; filling sets the
// values, generates the fields' appearances and flattens the form into page content, so the
// values are part of the page (what the signers sign) and can no longer be edited.
// Pure: bytes in, bytes out (@libpdf/core, no external program).
import { PdfArray, PdfDict, PdfNumber, PdfStream, type PDF } from '@libpdf/core';
import { FontChooser } from './pdf-form-fonts.js';
import { loadForm, type Entry, type Fillable } from './pdf-form-fields.js';
import { resolveValue } from './pdf-form-values.js';
import type { DetectedTemplate, FillValues } from '../../template-types.js';

/** One planned change, decided for every value before anything is modified. */
interface Change {
  entry: Entry;
  /** Text or choice value, or the button state name ('Off' or an on state). */
  value: string;
}

const READ_ONLY = 1;

export async function detectPdfForm(bytes: Uint8Array): Promise<DetectedTemplate> {
  const { entries } = await loadForm(bytes);
  return {
    fields: [...entries].map(([id, [e]]) => ({ id, value: '', type: e.type, ...(e.options ? { options: [...e.options] } : {}) })),
    tables: [],
  };
}

export async function fillPdfForm(bytes: Uint8Array, values: FillValues): Promise<Buffer> {
  const { pdf, form, entries } = await loadForm(bytes);

  // Validate every value first: an invalid one must not leave a half-filled document behind (and
  // gives the caller one clear error instead of a library exception halfway through).
  const changes: Change[] = [];
  for (const [id, raw] of values.fields) {
    const group = entries.get(id);
    if (!group) {
      continue; // not a fillable field of this form (unknown, signature, push button)
    }
    for (const entry of group) {
      changes.push({ entry, value: resolveValue(id, entry, raw) });
    }
  }

  // NeedAppearances asks viewers to draw the fields themselves: the appearances in the file are
  // stale or missing. Read it now: the library clears it on the first setValue.
  const staleAppearances = form.properties.needAppearances;
  const changed = new Set(changes.map((c) => c.entry.field));
  const regenerate = new Set<Fillable>(changed);
  for (const group of entries.values()) {
    for (const { field } of group) {
      // Untouched fields keep their appearance; without one (or with stale ones) their current value
      // would vanish when flattening, which only draws existing appearance streams.
      if (staleAppearances || field.getWidgets().some((w) => !w.hasNormalAppearance())) {
        regenerate.add(field);
      }
    }
  }

  // Fonts are decided (and a value no font can show refused) before any field changes, and before
  // setValue, which draws the new appearance right away.
  const fonts = new FontChooser(pdf, form);
  const newValues = new Map(changes.map((c) => [c.entry.field, c.value]));
  for (const field of regenerate) {
    fonts.prepare(field, newValues.get(field));
  }

  for (const field of regenerate) {
    // The library neither sets values on nor draws appearances of read-only fields. The flag
    // only concerns viewers; after flattening there is no field left to protect.
    const flags = field.flags;
    if (flags & READ_ONLY) {
      field.acroField().set('Ff', PdfNumber.of(flags & ~READ_ONLY));
    }
  }

  for (const { entry, value } of changes) {
    const { field } = entry;
    switch (field.type) {
      case 'text':
      case 'checkbox':
      case 'radio':
      case 'dropdown':
        field.setValue(value);
        break;
      case 'listbox':
        field.setValue([value]);
        break;
    }
  }
  for (const field of regenerate) {
    if (!changed.has(field)) {
      field.needsAppearanceUpdate = true;
    }
  }

  ensurePageContents(pdf);
  // Flattening draws every widget's appearance into its page, removes the widgets, the fields
  // (signature fields and push buttons too) and the AcroForm: the values cannot be edited anymore.
  form.flatten();

  // A full save writes one clean revision. An incremental one would append to the template: its
  // fillable form would stay in the file (a reader truncating at the first %%EOF gets it back) and
  // the signatures applied later would cover a needlessly layered file.
  return Buffer.from(await pdf.save({ incremental: false }));
}

/**
 * Gives a content stream to pages that carry annotations but have none. The library's flattener
 * appends "Q <fields>" after a "q" it prepends to the existing content; with no content it writes
 * the "Q" alone, an unbalanced operator after which poppler drops the text (pdftotext printed
 * nothing at all).
 */
function ensurePageContents(pdf: PDF): void {
  for (const page of pdf.getPages()) {
    if (!page.dict.has('Annots')) {
      continue;
    }
    const contents = page.dict.get('Contents');
    const empty = contents === undefined || (contents instanceof PdfArray && contents.length === 0);
    if (empty) {
      page.dict.set('Contents', pdf.register(new PdfStream(new PdfDict(), new Uint8Array())));
    }
  }
}
