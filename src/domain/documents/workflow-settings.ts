// The workflow settings (decisions.md "Workflow keys") as the use cases keep them: snake_case
// keys (a document's workflow also takes camelCase; a set's, snake_case only), other keys listed to
// be ignored. Their types and bounds are the schema's (src/schemas/workflows.ts), checked before
// this runs; what is left here needs more than JSON Schema says: a real calendar date, and the
// house's rule for an email address.
import { invalid } from '../errors.js';
import { isEmail } from './authorities.js';
import { type DocumentWorkflowSettings, WorkflowSettings as Settings, type WorkflowSettings } from '../../schemas/workflows.js';

export type { WorkflowSettings };

const KEYS = Object.keys(Settings.properties) as (keyof WorkflowSettings)[];

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

/**
 * The settings under their snake_case names, and the keys that are not settings. A set's workflow
 * (`allowCamelCase: false`) takes snake_case only: its camelCase keys are ignored like any other.
 */
export function readWorkflowSettings(
  input: DocumentWorkflowSettings,
  opts: { field: string; allowCamelCase: boolean },
): { settings: WorkflowSettings; ignoredKeys: string[] } {
  const src: Record<string, unknown> = input;
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

function checkValue(field: string, key: keyof WorkflowSettings, v: unknown): unknown {
  if (key === 'expiration_date' && !isWorkflowDate(v as string)) {
    throw invalid(field, 'expected a date as dd/mm/yyyy or ISO 8601');
  }
  if (key === 'conclusion_emails') {
    const emails = v as string[];
    if (emails.some((e) => !isEmail(e))) {
      throw invalid(field, 'expected an array of at most 50 email addresses');
    }
    return emails.map((e) => e.toLowerCase());
  }
  return v;
}
