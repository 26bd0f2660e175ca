// The fields a signer fills before signing (text, date, checkbox, initials, dropdown), checked in
// the page as the service checks them, so the signer hears what is wrong at the field itself
// before anything is sent; the service checks again and refuses what slips past (a refusal names
// `field_values.<id>`, and the page shows it at that field too).

import type { SignerFieldView } from '../../src/schemas/signer-fields.js';

/** One field as the signing session gives it (SigningInfo.signer_fields, src/schemas/signer-fields.ts). */
export type SignerField = SignerFieldView;

export type FieldValue = string | boolean;
export type FieldValues = Record<string, FieldValue>;

/** Why a value cannot be signed: each has its words at the field (i18n.ts, `fieldProblem`). */
export type FieldProblem = 'required' | 'email' | 'number' | 'pattern' | 'option' | 'date';

// The service's own rule for an address (src/domain/documents/authorities.ts), so the page refuses
// what the service would: a local part without spaces or separators, a domain of DNS labels (an
// internationalised domain in its xn-- form), at most 254 characters.
const EMAIL = /^[^\s@"<>()[\],;:]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
// A number as people write one: a sign, digits, one decimal point or comma.
const NUMBER = /^[-+]?\d+([.,]\d+)?$/u;

/** Whether `value` (as typed) matches the field's pattern as a whole; a pattern that does not compile matches anything. */
function matchesPattern(pattern: string, value: string): boolean {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${pattern})$`, 'u');
  } catch {
    return true;
  }
  return re.test(value);
}

/** What stops `value` from being signed in `field`, or null when it can be signed. */
export function fieldProblem(field: SignerField, value: FieldValue | undefined): FieldProblem | null {
  if (field.type === 'checkbox') {
    return field.required && value !== true ? 'required' : null;
  }
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') {
    return field.required ? 'required' : null;
  }
  if (field.type === 'dropdown') {
    return field.options?.includes(text) ? null : 'option';
  }
  if (field.type === 'date') {
    return parseIsoDay(text) ? null : 'date';
  }
  if (field.type !== 'text' || !field.format) {
    return null;
  }
  if (field.format === 'email') {
    return text.length <= 254 && EMAIL.test(text) ? null : 'email';
  }
  if (field.format === 'number') {
    return NUMBER.test(text) ? null : 'number';
  }
  return matchesPattern(field.format, text) ? null : 'pattern';
}

/** Every field's problem, by id; initials are one value for all the signer's initials boxes. */
export function fieldProblems(fields: SignerField[], values: FieldValues): Record<string, FieldProblem> {
  const out: Record<string, FieldProblem> = {};
  for (const f of fields) {
    const problem = fieldProblem(f, values[f.id]);
    if (problem) {
      out[f.id] = problem;
    }
  }
  return out;
}

/** A day as year, month and day of the month. */
export interface Day {
  year: number;
  month: number;
  day: number;
}

/** The day `at` falls on in `timeZone` (an IANA name): the document's, not the browser's. */
export function dayIn(at: Date, timeZone: string): Day {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day') };
}

/** The day as an `<input type="date">` holds it: YYYY-MM-DD. */
export function isoDay(d: Day): string {
  return `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/** The day of a YYYY-MM-DD text, or null when it is not a real day. */
export function parseIsoDay(text: string): Day | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) {
    return null;
  }
  const d = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  const check = new Date(Date.UTC(d.year, d.month - 1, d.day));
  return check.getUTCFullYear() === d.year && check.getUTCMonth() === d.month - 1 && check.getUTCDate() === d.day ? d : null;
}

/** A day written as `format` says (the service's default date is written so), or null. */
export function parseDay(text: string, format: string | null = DEFAULT_DATE_FORMAT): Day | null {
  const order: string[] = [];
  const source = (format || DEFAULT_DATE_FORMAT).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/YYYY|MM|DD/g, (t) => {
    order.push(t);
    return t === 'YYYY' ? '(\\d{4})' : '(\\d{1,2})';
  });
  const m = new RegExp(`^${source}$`).exec(text.trim());
  if (!m) {
    return null;
  }
  const part = (t: string) => Number(m[order.indexOf(t) + 1]);
  const iso = isoDay({ year: part('YYYY'), month: part('MM'), day: part('DD') });
  return parseIsoDay(iso);
}

/** The format a date takes when the field names none: day first, as in Mexico and Spain. */
export const DEFAULT_DATE_FORMAT = 'DD/MM/YYYY';

/**
 * The day written as `format` says: YYYY, YY, MM, M, DD, D stand for the year, the month and
 * the day; anything else is kept as written.
 */
export function formatDay(d: Day, format: string | null = DEFAULT_DATE_FORMAT): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const tokens: Record<string, string> = {
    YYYY: String(d.year).padStart(4, '0'),
    YY: pad(d.year % 100),
    MM: pad(d.month),
    M: String(d.month),
    DD: pad(d.day),
    D: String(d.day),
  };
  return (format || DEFAULT_DATE_FORMAT).replace(/YYYY|YY|MM|M|DD|D/g, (t) => tokens[t]);
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const firstGrapheme = (word: string) => segmenter.segment(word)[Symbol.iterator]().next().value?.segment ?? '';
const startsUpper = (word: string) => {
  const g = firstGrapheme(word);
  return g !== g.toLocaleLowerCase() && g === g.toLocaleUpperCase();
};

/**
 * Initials from a name, in any script: the first character of each word (a letter with its
 * accent is one). Where some words are capitalised, the lower-case ones ("de", "la", "van")
 * are particles and left out; scripts without case keep every word.
 */
export function initialsOf(name: string | null): string {
  const words = (name ?? '').split(/[\s\-‐]+/u).filter((w) => /\p{L}/u.test(w));
  const capitalised = words.filter(startsUpper);
  return (capitalised.length > 0 ? capitalised : words)
    .map((w) => firstGrapheme(w.replace(/^[^\p{L}]+/u, '')).toLocaleUpperCase())
    .join('');
}

/**
 * The values a field starts with: the session's, a date's default day (YYYY-MM-DD, as the date
 * input holds it: the one the session gives, else the day `now` falls on in the field's time
 * zone), the signer's initials.
 */
export function initialValues(fields: SignerField[], defaults: { now: Date; initials: string }): FieldValues {
  const out: FieldValues = {};
  for (const f of fields) {
    if (f.type === 'date') {
      const given = typeof f.value === 'string' ? parseDay(f.value, f.date_format) : null;
      out[f.id] = isoDay(given ?? dayIn(defaults.now, f.time_zone ?? 'UTC'));
    } else if (f.value !== undefined && f.value !== null) {
      out[f.id] = f.value;
    } else if (f.type === 'checkbox') {
      out[f.id] = false;
    } else if (f.type === 'initials') {
      out[f.id] = defaults.initials;
    } else {
      out[f.id] = '';
    }
  }
  return out;
}

/**
 * What goes up with the signature as `field_values`: every field's value, text trimmed, a date as
 * the text shown (in the field's format), empty optional ones left out (their boxes stay blank).
 */
export function fieldValuesBody(fields: SignerField[], values: FieldValues): FieldValues {
  const out: FieldValues = {};
  for (const f of fields) {
    const v = values[f.id];
    if (typeof v === 'boolean') {
      out[f.id] = v;
    } else if (typeof v === 'string' && v.trim() !== '') {
      const day = f.type === 'date' ? parseIsoDay(v.trim()) : null;
      out[f.id] = day ? formatDay(day, f.date_format) : v.trim();
    }
  }
  return out;
}

/** The field an API refusal names (`details.field` = "field_values.<id>"), if it is one of these. */
export function refusedField(details: Record<string, unknown> | undefined, fields: SignerField[]): string | null {
  const named = typeof details?.field === 'string' ? details.field : '';
  const id = named.startsWith('field_values.') ? named.slice('field_values.'.length) : '';
  return fields.some((f) => f.id === id) ? id : null;
}
