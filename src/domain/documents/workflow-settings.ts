// Shape of the workflow settings (decisions.md "Workflow keys"): which keys exist, their types,
// and the spelling rules (a document's workflow takes camelCase or snake_case; a set's, snake_case
// only). This validates and normalizes; what the settings do belongs to the workflow use cases.
import { invalid } from '../errors.js';
import { isEmail } from './authorities.js';
import type { WorkflowSettings } from '../../schemas/workflows.js';

// The settings' shape is defined once, in src/schemas/workflows.ts; this checks the values.

export type { WorkflowSettings };

const KEYS = [
  'ordered',
  'expiration_date',
  'remind_every',
  'language',
  'subject',
  'message',
  'attach_files',
  'conclusion_emails',
  'cancel',
] as const;

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** `dd/mm/yyyy` or an ISO 8601 date or date-time. */
export function isWorkflowDate(v: string): boolean {
  const dmy = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v);
  if (dmy) {
    const [d, m, y] = [Number(dmy[1]), Number(dmy[2]), Number(dmy[3])];
    const date = new Date(Date.UTC(y, m - 1, d));
    return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
  }
  return /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v));
}

export function parseWorkflowSettings(
  input: unknown,
  opts: { field: string; allowCamelCase: boolean },
): { settings: WorkflowSettings; ignoredKeys: string[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid(opts.field, 'expected an object of workflow settings');
  }
  const src = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const known = new Set<string>();
  for (const key of KEYS) {
    const names = opts.allowCamelCase && camel(key) !== key ? [key, camel(key)] : [key];
    for (const name of names) {
      if (name in src) {
        known.add(name);
        out[key] = checkValue(`${opts.field}.${name}`, key, src[name]);
      }
    }
  }
  const ignoredKeys = Object.keys(src).filter((k) => !known.has(k));
  return { settings: out as WorkflowSettings, ignoredKeys };
}

function checkValue(field: string, key: (typeof KEYS)[number], v: unknown): unknown {
  switch (key) {
    case 'ordered':
    case 'attach_files':
    case 'cancel':
      if (typeof v !== 'boolean') {
        throw invalid(field, 'expected true or false');
      }
      return v;
    case 'expiration_date':
      if (typeof v !== 'string' || !isWorkflowDate(v)) {
        throw invalid(field, 'expected a date as dd/mm/yyyy or ISO 8601');
      }
      return v;
    case 'remind_every':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 365) {
        throw invalid(field, 'expected a whole number of days from 0 (never) to 365');
      }
      return v;
    case 'language':
      if (v !== 'es' && v !== 'en') {
        throw invalid(field, 'expected "es" or "en"');
      }
      return v;
    case 'subject':
    case 'message':
      if (typeof v !== 'string' || v.length > (key === 'subject' ? 200 : 5000)) {
        throw invalid(field, `expected a string of at most ${key === 'subject' ? 200 : 5000} characters`);
      }
      return v;
    case 'conclusion_emails':
      if (!Array.isArray(v) || v.length > 50 || v.some((e) => typeof e !== 'string' || !isEmail(e))) {
        throw invalid(field, 'expected an array of at most 50 email addresses');
      }
      return v.map((e: string) => e.toLowerCase());
  }
}
