// Reading a pdf template's form: its fillable fields (text, checkbox, radio, choice), their
// allowed values and, for buttons, which appearance state shows which export value.
import {
  PDF,
  PdfArray,
  PdfName,
  PdfString,
  type CheckboxField,
  type DropdownField,
  type FormField,
  type ListBoxField,
  type PDFForm,
  type RadioField,
  type TextField,
} from '@libpdf/core';
import { TemplateError, type FieldType } from '../../template-types.js';
import { isEncryptedFile } from '../encrypted-pdf.js';

/** The field kinds a value can be given to (not signatures nor push buttons). */
export type Fillable = TextField | CheckboxField | RadioField | DropdownField | ListBoxField;

/** A fillable field as the engine sees it: its kind and, for buttons, export value → state name. */
export interface Entry {
  field: Fillable;
  type: FieldType;
  /** Allowed values (checkbox: 'Off' first, then the on values). Undefined for text. */
  options?: string[];
  /** Checkbox and radio: export value → appearance state name of the widget that shows it. */
  states?: Map<string, string>;
}

/**
 * The loaded PDF, its form and the fillable fields by fully qualified name; INVALID_TEMPLATE when
 * the file is not a readable, unencrypted PDF with at least one form field.
 */
export async function loadForm(bytes: Uint8Array): Promise<{ pdf: PDF; form: PDFForm; entries: Map<string, Entry[]> }> {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (!head.includes('%PDF-')) {
    throw new TemplateError('INVALID_TEMPLATE', 'the template is not a PDF (no %PDF- header)');
  }
  let pdf: PDF;
  try {
    // Strictly, as uploads are read (pdf/inspect-pdf.ts): a template the library would have to
    // repair is refused, rather than filled from a reading other tools may not share.
    pdf = await PDF.load(bytes, { lenient: false });
  } catch (err) {
    throw new TemplateError('INVALID_TEMPLATE', `the PDF cannot be read as it is: ${(err as Error).message}`);
  }
  // Refused even with owner-only protection (which opens without a password): the filled document
  // is signed afterwards, and encrypted PDFs do not take reliable signatures.
  if (isEncryptedFile(pdf)) {
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
