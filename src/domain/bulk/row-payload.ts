// A row's create payload: the run's keys with every {{row.<key>}} placeholder replaced by the
// row's value, and the row's `fields` over the run's (a template's values). The payload then goes
// through the schema of POST /developers/json, so a row is judged exactly as a single create is.
import { invalid } from '../errors.js';

const PLACEHOLDER = /\{\{\s*row\.([A-Za-z0-9_.-]+)\s*\}\}/g;
const WHOLE = /^\{\{\s*row\.([A-Za-z0-9_.-]+)\s*\}\}$/;

/** The row's value at a dotted path (`a.b`), or undefined. */
function valueAt(row: Record<string, unknown>, path: string): unknown {
  let v: unknown = row;
  for (const key of path.split('.')) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, key)) {
      return undefined;
    }
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

function fillString(s: string, row: Record<string, unknown>, index: number): unknown {
  // A string that is only a placeholder takes the value's own type: `"page": "{{row.page}}"` gives a number.
  const whole = WHOLE.exec(s);
  if (whole) {
    return required(row, whole[1], index);
  }
  return s.replace(PLACEHOLDER, (_m, path: string) => {
    const v = required(row, path, index);
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

function required(row: Record<string, unknown>, path: string, index: number): unknown {
  const v = valueAt(row, path);
  if (v === undefined) {
    throw invalid(`rows[${index}].${path}`, `missing: a placeholder {{row.${path}}} needs it`);
  }
  return v;
}

/** `value` with every placeholder filled from the row. */
export function fillPlaceholders(value: unknown, row: Record<string, unknown>, index: number): unknown {
  if (typeof value === 'string') {
    return fillString(value, row, index);
  }
  if (Array.isArray(value)) {
    return value.map((v) => fillPlaceholders(v, row, index));
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, row, index)]));
  }
  return value;
}

/** The create payload of row `index` from the run's base keys (no origin bytes: the caller adds them). */
export function rowPayload(base: Record<string, unknown>, row: Record<string, unknown>, index: number): Record<string, unknown> {
  const payload = fillPlaceholders(base, row, index) as Record<string, unknown>;
  if (row.fields !== undefined) {
    payload.fields = mergeFields(payload.fields, row.fields, index);
  }
  if (row.tables !== undefined) {
    payload.tables = row.tables;
  }
  return payload;
}

/**
 * The run's template values with the row's over them, by field id. A row gives them as the create
 * payload does (`[{id, value}]`) or, as a CSV line reads, as an object `{id: value}`.
 */
function mergeFields(runFields: unknown, rowFields: unknown, index: number): unknown[] {
  let given: unknown[];
  if (Array.isArray(rowFields)) {
    given = rowFields;
  } else if (typeof rowFields === 'object' && rowFields !== null) {
    given = Object.entries(rowFields).map(([id, value]) => ({ id, value }));
  } else {
    throw invalid(`rows[${index}].fields`, 'expected [{id, value}] or an object of the template’s values');
  }
  const byId = new Map<unknown, unknown>();
  const idOf = (f: unknown) => (typeof f === 'object' && f !== null ? (f as { id?: unknown }).id : f);
  for (const f of [...(Array.isArray(runFields) ? runFields : []), ...given]) {
    byId.set(idOf(f), f);
  }
  return [...byId.values()];
}
