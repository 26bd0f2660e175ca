// Validates the create payload's `signer_fields` (decisions.md, "Fields signers fill") against the
// parsed document and its stickers. Every refusal is 400 INVALID_INPUT naming the field as
// `signer_fields[i].key` and the rule, before anything is stored.
import { invalid } from '../errors.js';
import type { PdfInfo } from '../../pdf/inspect-pdf.js';
import { DATE_FORMATS, type DateFormat, SIGNER_FIELD_TYPES, type SignerFieldType } from '../../schemas/signer-fields.js';
import { isDateFormat, patternProblem } from './signer-field-rules.js';
import { type BoxRect, checkBox, type PlannedSticker } from './validate-stickers.js';

/** Most fields signers fill on one document. */
export const MAX_SIGNER_FIELDS = 200;
const MAX_OPTIONS = 100;

/** A field as planned, before its row is written. */
export interface PlannedSignerField {
  index: number;
  /** The sticker the payload named: its signer fills the field. */
  stickerIndex: number;
  signerPosition: number;
  type: SignerFieldType;
  page: number;
  rect: BoxRect;
  required: boolean;
  label: string | null;
  format: string | null;
  options: string[] | null;
  dateFormat: DateFormat | null;
}

const isType = (v: unknown): v is SignerFieldType => typeof v === 'string' && (SIGNER_FIELD_TYPES as readonly string[]).includes(v);

export function validateSignerFields(input: unknown, pdf: PdfInfo, stickers: PlannedSticker[]): PlannedSignerField[] {
  if (input === undefined || input === null) {
    return [];
  }
  if (!Array.isArray(input)) {
    throw invalid('signer_fields', 'expected an array');
  }
  if (input.length > MAX_SIGNER_FIELDS) {
    throw invalid('signer_fields', `at most ${MAX_SIGNER_FIELDS} fields per document`);
  }
  return input.map((raw: unknown, i: number): PlannedSignerField => {
    const at = (key: string) => `signer_fields[${i}]${key ? `.${key}` : ''}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw invalid(at(''), 'expected an object');
    }
    const f = raw as Record<string, unknown>;
    if (!isType(f.type)) {
      throw invalid(at('type'), `expected one of ${SIGNER_FIELD_TYPES.join(', ')}`);
    }
    const type = f.type;
    if (typeof f.signer !== 'number' || !Number.isInteger(f.signer) || f.signer < 0 || f.signer >= stickers.length) {
      throw invalid(
        at('signer'),
        stickers.length === 0
          ? 'no stickers: a field is filled by the signer of a sticker, named by its index in stickers'
          : `expected the index of a sticker, 0 to ${stickers.length - 1}; got ${JSON.stringify(f.signer)}`,
      );
    }
    const sticker = stickers[f.signer];
    const box = checkBox(f.page, f.rect, pdf);
    if (!box.ok) {
      throw invalid(at(box.field), box.rule);
    }
    if (f.required !== undefined && typeof f.required !== 'boolean') {
      throw invalid(at('required'), 'must be true or false');
    }
    const label = optionalText(f.label, at('label'), 100);
    let format: string | null = null;
    if (f.format !== undefined && f.format !== null) {
      if (type !== 'text') {
        throw invalid(at('format'), 'only a text field has a format');
      }
      if (typeof f.format !== 'string' || f.format === '') {
        throw invalid(at('format'), 'expected "email", "number" or a regular expression');
      }
      const problem = f.format === 'email' || f.format === 'number' ? null : patternProblem(f.format);
      if (problem) {
        throw invalid(at('format'), problem);
      }
      format = f.format;
    }
    let options: string[] | null = null;
    if (type === 'dropdown') {
      options = readOptions(f.options, at('options'));
    } else if (f.options !== undefined && f.options !== null) {
      throw invalid(at('options'), 'only a dropdown has options');
    }
    let dateFormat: DateFormat | null = null;
    if (type === 'date') {
      if (f.date_format !== undefined && f.date_format !== null && !isDateFormat(f.date_format)) {
        throw invalid(at('date_format'), `expected one of ${DATE_FORMATS.join(', ')}`);
      }
      dateFormat = isDateFormat(f.date_format) ? f.date_format : 'DD/MM/YYYY';
    } else if (f.date_format !== undefined && f.date_format !== null) {
      throw invalid(at('date_format'), 'only a date field has a date_format');
    }
    return {
      index: i,
      stickerIndex: f.signer,
      signerPosition: sticker.signerPosition,
      type,
      page: box.page,
      rect: box.rect,
      required: f.required === true,
      label,
      format,
      options,
      dateFormat,
    };
  });
}

function optionalText(v: unknown, field: string, max: number): string | null {
  if (v === undefined || v === null || v === '') {
    return null;
  }
  if (typeof v !== 'string' || [...v].length > max) {
    throw invalid(field, `must be a string of at most ${max} characters`);
  }
  return v.trim() || null;
}

function readOptions(v: unknown, field: string): string[] {
  if (!Array.isArray(v) || v.length === 0) {
    throw invalid(field, 'a dropdown needs its choices: a non-empty array of strings');
  }
  if (v.length > MAX_OPTIONS) {
    throw invalid(field, `at most ${MAX_OPTIONS} choices`);
  }
  const seen = new Set<string>();
  return v.map((o, j) => {
    if (typeof o !== 'string' || o.trim() === '' || [...o].length > 200) {
      throw invalid(`${field}[${j}]`, 'expected a non-empty string of at most 200 characters');
    }
    if (seen.has(o)) {
      throw invalid(`${field}[${j}]`, `${JSON.stringify(o)} is listed twice`);
    }
    seen.add(o);
    return o;
  });
}
