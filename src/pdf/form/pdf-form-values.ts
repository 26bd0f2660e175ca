// The value a pdf template field is set to for a raw input, checked against what the field
// allows before anything in the document changes.
import type { TextField } from '@libpdf/core';
import type { Entry } from './pdf-form-fields.js';
import { TemplateError } from '../../template-types.js';

const BOOLEAN_ON = new Set(['true', 'yes', 'on']);
const BOOLEAN_OFF = new Set(['false', 'no', 'off', '']);

/** The value to set for a raw input, or INVALID_VALUE naming the field and the allowed values. */
export function resolveValue(id: string, entry: Entry, raw: string): string {
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
