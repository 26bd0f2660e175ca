// The fields a signer fills (decisions.md, "Fields signers fill"), at signing: what the signing
// session shows of them, and the check of `field_values` every body that makes the signer's
// revision carries (one-step sign, set link, the prepare step of SAT, own certificate and CSC).
// A refused value answers 400 naming `field_values.<id>`; nothing is signed.
import { AppError } from '../errors.js';
import type { FilledSignerField, FieldValues, SignerFieldView } from '../../schemas/signer-fields.js';
import type { SignerFieldFill } from '../../pdf/signer-fields.js';
import type { SignerFieldRow } from '../../store/signer-fields-repo.js';
import { MAX_VALUE_LENGTH, dayIn, formatDate, isDateFormat, matchesFormat, parseDate } from '../documents/signer-field-rules.js';

/** The AcroForm name of a field (no period: §12.7.3.2). */
export const fieldNameOf = (fieldId: string) => `SelloField-${fieldId}`;

/** Most characters of initials. */
const MAX_INITIALS = 20;

const rectOf = (f: SignerFieldRow) => ({ lx: f.lx, ly: f.ly, tx: f.tx, ty: f.ty });
const dateFormatOf = (f: SignerFieldRow) => (isDateFormat(f.date_format) ? f.date_format : 'DD/MM/YYYY');
const storedValue = (f: SignerFieldRow): string | boolean | null =>
  typeof f.value === 'string' || typeof f.value === 'boolean' ? f.value : null;

/** What the signing session shows of the signer's fields; a date not yet filled shows today's date in `timeZone`. */
export function fieldViews(fields: SignerFieldRow[], ctx: { now: Date; timeZone: string }): SignerFieldView[] {
  return fields.map((f) => {
    const view: SignerFieldView = {
      id: f.field_id,
      type: f.type,
      page: f.page,
      rect: rectOf(f),
      required: f.required,
      label: f.label,
      format: f.format,
      options: Array.isArray(f.options) ? (f.options as string[]) : null,
      date_format: f.type === 'date' ? dateFormatOf(f) : null,
    };
    const value = storedValue(f);
    if (f.filled_at !== null) {
      if (value !== null) {
        view.value = value;
      }
    } else if (f.type === 'date') {
      view.value = formatDate(dayIn(ctx.now, ctx.timeZone), dateFormatOf(f));
    }
    if (f.type === 'date') {
      view.time_zone = ctx.timeZone;
    }
    return view;
  });
}

/** What the report and the webhook payload list of a signer's fields. */
export function filledFields(fields: SignerFieldRow[]): FilledSignerField[] {
  return fields.map((f) => ({ label: f.label, type: f.type, value: storedValue(f), page: f.page }));
}

/** A document's fields grouped by the signer_id of whoever fills them. */
export function fieldsBySigner(fields: (SignerFieldRow & { signer_id: string })[]): Map<string, FilledSignerField[]> {
  const out = new Map<string, FilledSignerField[]>();
  for (const f of fields) {
    const list = out.get(f.signer_id) ?? [];
    list.push(...filledFields([f]));
    out.set(f.signer_id, list);
  }
  return out;
}

/** The checked values: what goes into the PDF, and what is recorded per field (null: left empty). */
export interface CheckedFieldValues {
  fills: SignerFieldFill[];
  values: { fieldId: string; value: string | boolean | null }[];
}

const refuse = (id: string, rule: string) =>
  new AppError('INVALID_FIELD_VALUE', `field_values.${id}: ${rule}`, { field: `field_values.${id}` });
const missing = (f: SignerFieldRow) =>
  new AppError('REQUIRED_FIELD_MISSING', `field_values.${f.field_id}: ${f.label ? `"${f.label}" ` : ''}is required`, {
    field: `field_values.${f.field_id}`,
  });

/**
 * Refuses a key of field_values that names none of `known` (the fields this link's signer fills, on
 * every document it signs): a value for someone else's field, or a typo, is never silently dropped.
 */
export function refuseUnknownFields(values: FieldValues | undefined, known: Set<string>): void {
  for (const id of Object.keys(values ?? {})) {
    if (!known.has(id)) {
      throw refuse(id, 'not a field this signer fills');
    }
  }
}

/**
 * Checks the signer's values against their fields: required present, text of its format, a
 * dropdown's value among its options, a checkbox true or false, a date written in its date_format
 * (absent: the signing date in `timeZone`), one set of initials for every initials box. Keys for
 * fields not in `fields` are ignored here (refuseUnknownFields judges them).
 */
export function checkFieldValues(
  fields: SignerFieldRow[],
  given: FieldValues | undefined,
  ctx: { now: Date; timeZone: string },
): CheckedFieldValues {
  const values = given ?? {};
  const out: CheckedFieldValues = { fills: [], values: [] };
  // Initials: drawn the same in every box the signer owns, from whichever box was given them.
  const initialsGiven = fields.filter((f) => f.type === 'initials').map((f) => ({ f, v: values[f.field_id] }));
  let initials: string | null = null;
  for (const { f, v } of initialsGiven) {
    if (v === undefined || v === '') {
      continue;
    }
    if (typeof v !== 'string') {
      throw refuse(f.field_id, 'expected the initials as text');
    }
    const text = v.trim();
    if (text === '' || [...text].length > MAX_INITIALS) {
      throw refuse(f.field_id, `expected 1 to ${MAX_INITIALS} characters`);
    }
    if (initials !== null && text !== initials) {
      throw refuse(f.field_id, 'initials must be the same in every initials box');
    }
    initials = text;
  }
  for (const f of fields) {
    const v = f.type === 'initials' ? (initials ?? undefined) : values[f.field_id];
    const value = checkOne(f, v, ctx);
    if (value === null && f.required) {
      throw missing(f);
    }
    out.values.push({ fieldId: f.field_id, value });
    if (value !== null && value !== false) {
      out.fills.push({ name: fieldNameOf(f.field_id), value });
    }
  }
  return out;
}

/** One field's value as written into the PDF, or null when left empty (a checkbox: false). */
function checkOne(f: SignerFieldRow, v: string | boolean | undefined, ctx: { now: Date; timeZone: string }): string | boolean | null {
  const id = f.field_id;
  if (f.type === 'checkbox') {
    if (v !== undefined && typeof v !== 'boolean') {
      throw refuse(id, 'expected true or false');
    }
    return v === true ? true : f.required ? null : false;
  }
  if (v !== undefined && typeof v !== 'string') {
    throw refuse(id, 'expected text');
  }
  const text = (v ?? '').trim();
  if (text.length > MAX_VALUE_LENGTH) {
    throw refuse(id, `at most ${MAX_VALUE_LENGTH} characters`);
  }
  if (f.type === 'date') {
    const format = dateFormatOf(f);
    if (text === '') {
      // decisions.md: a date defaults to the signing date in the document's (the account's) time zone.
      return formatDate(dayIn(ctx.now, ctx.timeZone), format);
    }
    const day = parseDate(text, format);
    if (!day) {
      throw refuse(id, `expected a date written ${format}`);
    }
    return formatDate(day, format);
  }
  if (text === '') {
    return null;
  }
  if (f.type === 'dropdown') {
    const options = Array.isArray(f.options) ? (f.options as string[]) : [];
    if (!options.includes(text)) {
      throw refuse(id, `expected one of ${options.map((o) => JSON.stringify(o)).join(', ')}`);
    }
    return text;
  }
  if (f.type === 'text' && f.format !== null && !matchesFormat(f.format, text)) {
    const what = f.format === 'email' ? 'an email address' : f.format === 'number' ? 'a number' : `text matching ${f.format}`;
    throw refuse(id, `expected ${what}`);
  }
  return text;
}
