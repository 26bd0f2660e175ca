// pdf templates: a PDF with an AcroForm. Detection lists its fillable fields; filling sets the
// values, generates the fields' appearances and flattens the form into page content, so the
// values are part of the page (what the signers sign) and can no longer be edited.
// Pure: bytes in, bytes out (@libpdf/core, no external program).
import {
  PDF,
  PdfArray,
  PdfName,
  PdfNumber,
  PdfStream,
  PdfDict,
  PdfString,
  type CheckboxField,
  type DropdownField,
  type EmbeddedFont,
  type FormField,
  type ListBoxField,
  type PDFForm,
  type PdfRef,
  type RadioField,
  type TextField,
} from '@libpdf/core';
import { bundledRobotoFont } from './pdfmake-template.js';
import { TemplateError, type DetectedTemplate, type FieldType, type FillValues } from './types.js';

type Fillable = TextField | CheckboxField | RadioField | DropdownField | ListBoxField;

/** A fillable field as the engine sees it: its kind and, for buttons, export value → state name. */
interface Entry {
  field: Fillable;
  type: FieldType;
  /** Allowed values (checkbox: 'Off' first, then the on values). Undefined for text. */
  options?: string[];
  /** Checkbox and radio: export value → appearance state name of the widget that shows it. */
  states?: Map<string, string>;
}

/** One planned change, decided for every value before anything is modified. */
interface Change {
  entry: Entry;
  /** Text or choice value, or the button state name ('Off' or an on state). */
  value: string;
}

const READ_ONLY = 1;
const BOOLEAN_ON = new Set(['true', 'yes', 'on']);
const BOOLEAN_OFF = new Set(['false', 'no', 'off', '']);

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

async function loadForm(bytes: Uint8Array): Promise<{ pdf: PDF; form: PDFForm; entries: Map<string, Entry[]> }> {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (!head.includes('%PDF-')) {
    throw new TemplateError('INVALID_TEMPLATE', 'the template is not a PDF (no %PDF- header)');
  }
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (err) {
    throw new TemplateError('INVALID_TEMPLATE', `the PDF cannot be read: ${(err as Error).message}`);
  }
  // Refused even with owner-only protection (which opens without a password): the filled document
  // is signed afterwards, and encrypted PDFs do not take reliable signatures.
  if (pdf.isEncrypted) {
    throw new TemplateError('INVALID_TEMPLATE', 'the PDF is encrypted; remove the password or protection and upload it again');
  }
  let form: PDFForm | null;
  const entries = new Map<string, Entry[]>();
  try {
    form = pdf.getForm();
    for (const field of form?.getFields() ?? []) {
      const entry = describe(field);
      if (!entry) {
        continue;
      }
      // Two fields with the same fully qualified name are one field to PDF viewers (a value
      // shared by both): report it once, fill both.
      const group = entries.get(field.name);
      if (group) {
        group.push(entry);
      } else {
        entries.set(field.name, [entry]);
      }
    }
  } catch (err) {
    throw new TemplateError('INVALID_TEMPLATE', `the PDF form cannot be read: ${(err as Error).message}`);
  }
  if (!form || entries.size === 0) {
    throw new TemplateError('INVALID_TEMPLATE', 'the PDF has no form fields');
  }
  return { pdf, form, entries };
}

/** The engine's view of a field; null for what cannot be filled (signatures, push buttons). */
function describe(field: FormField): Entry | null {
  const f = field as Fillable | FormField;
  switch (f.type) {
    case 'text':
      return { field: f as TextField, type: 'text' };
    case 'checkbox': {
      const states = buttonStates(f as CheckboxField);
      // A checkbox without appearance streams has no declared on state: the library (and
      // viewers) use "Yes".
      if (states.size === 0) {
        states.set('Yes', 'Yes');
      }
      return { field: f as CheckboxField, type: 'checkbox', options: ['Off', ...states.keys()], states };
    }
    case 'radio': {
      const states = buttonStates(f as RadioField);
      return { field: f as RadioField, type: 'radio', options: [...states.keys()], states };
    }
    case 'dropdown':
    case 'listbox': {
      const field = f as DropdownField | ListBoxField;
      return { field, type: 'choice', options: [...new Set(field.getOptions().map((o) => o.value))] };
    }
    default:
      return null; // signature, button, unknown
  }
}

/**
 * Export value → appearance state of a checkbox's or radio group's widgets, in widget order.
 * The state names (/AP /N keys) are the values unless the field has /Opt: then /Opt[i] is the
 * export value of the i-th widget and its state may be just "0", "1", ... (ISO 32000-1 12.7.4.2.4).
 */
function buttonStates(field: CheckboxField | RadioField): Map<string, string> {
  const opt = field.acroField().get('Opt');
  const exports: string[] = [];
  if (opt instanceof PdfArray) {
    for (const item of opt.toArray()) {
      exports.push(item instanceof PdfString ? item.asString() : item instanceof PdfName ? item.value : '');
    }
  }
  const widgets = field.getWidgets();
  const useOpt = exports.length === widgets.length && exports.every((e) => e !== '');
  const states = new Map<string, string>();
  widgets.forEach((widget, i) => {
    const state = widget.getOnValue();
    if (!state || state === 'Off') {
      return;
    }
    const value = useOpt ? exports[i] : state;
    if (!states.has(value)) {
      states.set(value, state);
    }
  });
  return states;
}

/** The value to set for a raw input, or INVALID_VALUE naming the field and the allowed values. */
function resolveValue(id: string, entry: Entry, raw: string): string {
  const { field, options = [], states } = entry;
  switch (entry.type) {
    case 'text': {
      const text = field as TextField;
      // A single-line field draws line breaks as nothing ("a\nb" shows "ab"): they become spaces.
      const value = text.isMultiline ? raw : raw.replace(/\r\n|[\r\n]/g, ' ');
      // The library would silently cut the value at /MaxLen: a signed document missing the end
      // of a value is worse than an error.
      const max = text.maxLength;
      if (max > 0 && value.length > max) {
        throw new TemplateError('INVALID_VALUE', `${id}: the value is longer than ${max} characters`, { field: id, maxLength: max });
      }
      return value;
    }
    case 'checkbox': {
      if (raw === 'Off') {
        return 'Off';
      }
      const exact = states!.get(raw);
      if (exact) {
        return exact;
      }
      const word = raw.trim().toLowerCase();
      if (BOOLEAN_OFF.has(word)) {
        return 'Off';
      }
      // "true" means the on state only when there is one (a checkbox group has several).
      if (BOOLEAN_ON.has(word) && states!.size === 1) {
        return [...states!.values()][0];
      }
      throw notOneOf(id, raw, options, ' (or true/false, yes/no, on/off)');
    }
    case 'radio': {
      const state = states!.get(raw);
      if (!state) {
        throw notOneOf(id, raw, options);
      }
      return state;
    }
    case 'choice':
      if (!options.includes(raw)) {
        throw notOneOf(id, raw, options);
      }
      return raw;
  }
}

function notOneOf(field: string, value: string, allowed: string[], extra = ''): TemplateError {
  return new TemplateError('INVALID_VALUE', `${field}: "${value}" is not one of ${allowed.join(', ')}${extra}`, { field, allowed });
}

/**
 * Picks the font each regenerated appearance is drawn with. The template's own font (from the
 * field's /DA) is kept whenever it shows the text correctly; otherwise Roboto (bundled with pdfmake,
 * embedded with a Unicode mapping) is used. The library would draw such text with the template's
 * font regardless: it writes text as PDFDocEncoding bytes whatever the font's encoding (so "Zoë"
 * drawn with the /Helv of a form made by @libpdf/core, which has no /Encoding and thus uses
 * Helvetica's StandardEncoding, prints "Zoº"), and characters outside Latin-1 come out as garbage.
 */
class FontChooser {
  private roboto: EmbeddedFont | null = null;

  constructor(
    private readonly pdf: PDF,
    private readonly form: PDFForm,
  ) {}

  prepare(field: Fillable, newValue: string | undefined): void {
    const text = this.displayedText(field, newValue);
    if (text === null || this.templateFontShows(field, text)) {
      return;
    }
    this.roboto ??= this.pdf.embedFont(bundledRobotoFont('normal'));
    const roboto = this.roboto;
    const missing = roboto.getUnencodableCharacters(text.replace(/[\r\n\t]/g, ''));
    if (missing.length > 0) {
      throw new TemplateError('INVALID_VALUE', `${field.name}: no available font can show ${missing.map((c) => `"${c}"`).join(', ')}`, {
        field: field.name,
        characters: missing,
      });
    }
    field.setFont(roboto);
  }

  /** The text an appearance of the field shows (null for buttons: they draw a symbol). */
  private displayedText(field: Fillable, newValue: string | undefined): string | null {
    switch (field.type) {
      case 'text':
        return newValue ?? field.getValue();
      case 'dropdown': {
        const value = newValue ?? field.getValue();
        const option = field.getOptions().find((o) => o.value === value);
        return `${value}${option?.display ?? ''}`;
      }
      case 'listbox': // a list box shows all its options
        return field
          .getOptions()
          .map((o) => o.display)
          .join('');
      default:
        return null;
    }
  }

  private templateFontShows(field: Fillable, text: string): boolean {
    const plain = text.replace(/[\r\n\t]/g, '');
    // Every simple font encoding agrees on printable ASCII.
    if (/^[\x20-\x7e]*$/.test(plain)) {
      return true;
    }
    const acroForm = this.form.acroForm();
    const da = field.defaultAppearance ?? acroForm.defaultAppearance;
    const name = /\/([^\s/()<>[\]{}%]+)\s+[-+\d.]+\s+Tf/.exec(da ?? '')?.[1];
    if (!name) {
      return false;
    }
    const font = acroForm.getExistingFont(`/${name}`);
    if (!font) {
      return false;
    }
    // CID fonts are written glyph by glyph through their own cmap: correct whenever they can.
    if (font.isCIDFont) {
      return font.canUseForAppearance(plain);
    }
    // Simple fonts: the library writes PDFDocEncoding bytes, which match WinAnsiEncoding on
    // Latin-1 (but not 0x80-0x9F nor the soft hyphen). Any other encoding: ASCII only.
    const resolve = (ref: PdfRef) => this.pdf.getObject(ref);
    const dict = acroForm.getDefaultResources()?.getDict('Font', resolve)?.getDict(name, resolve);
    const encoding = dict?.get('Encoding', resolve);
    return encoding instanceof PdfName && encoding.value === 'WinAnsiEncoding' && /^[\x20-\x7e\xa0-\xac\xae-\xff]*$/.test(plain);
  }
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
