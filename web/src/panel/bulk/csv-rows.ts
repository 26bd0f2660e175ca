// From a CSV file to the rows of a bulk run: the file read as a person's spreadsheet writes it
// (a header row, the separator found in it among comma, semicolon, tab and bar, a UTF-8 byte-order
// mark dropped, quoted fields that hold separators, quotes and line breaks), each placeholder of the
// draft mapped to a column, and each row judged before sending: a placeholder without a value, a
// signer's data the service would refuse for its authority (the service's own rule), a number
// that is not one. The service judges every row again; this only tells the person first.
import Papa from 'papaparse';
import { isEmail, normalizeSignerData } from '../../../../src/domain/documents/authorities.js';
import { authorityOf, type DraftSigner, fillText, type Placeholder } from './placeholders.js';

export interface CsvTable {
  columns: string[];
  records: Record<string, string>[];
  /** The separator of the file. */
  delimiter: string;
}

/** Column of each placeholder path; undefined: not mapped. */
export type ColumnMap = Record<string, string | undefined>;

export type RowProblem =
  | { kind: 'missing'; path: string }
  | { kind: 'number'; path: string; value: string }
  | { kind: 'signer_data'; signer: number; value: string; rule: string }
  | { kind: 'signer_email'; signer: number; value: string };

export interface PreparedRows {
  rows: Record<string, unknown>[];
  /** Problems of each row, by row index (empty: none found). */
  problems: RowProblem[][];
}

export class CsvError extends Error {}

/** The table in `text`; a file without a header row or without data rows is a CsvError. */
export function parseCsv(text: string): CsvTable {
  // Spreadsheets save "CSV UTF-8" with a byte-order mark; left in, it would be part of the first column's name.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const parsed = Papa.parse<Record<string, string>>(body, {
    header: true,
    skipEmptyLines: 'greedy',
    delimiter: headerDelimiter(body),
    transformHeader: (h) => h.trim(),
  });
  const columns = (parsed.meta.fields ?? []).filter((c) => c !== '');
  if (columns.length === 0) {
    throw new CsvError('no header row');
  }
  const records = parsed.data.map((r) => {
    const out: Record<string, string> = {};
    for (const c of columns) {
      const v = r[c];
      out[c] = typeof v === 'string' ? v : '';
    }
    return out;
  });
  if (records.length === 0) {
    throw new CsvError('no rows under the header');
  }
  return { columns, records, delimiter: parsed.meta.delimiter };
}

const DELIMITERS = [',', ';', '\t', '|'];

/**
 * The separator of the header row: the candidate found most often outside quotes in it. Guessed
 * from the header alone because the header names the columns; papaparse's own guess weighs every
 * line alike, so a data line with cells left off made it fall back to a comma.
 */
function headerDelimiter(text: string): string {
  const counts = new Map(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') {
      quoted = !quoted;
    } else if (!quoted && (ch === '\n' || ch === '\r')) {
      break;
    } else if (!quoted && counts.has(ch)) {
      counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
  }
  let best = ',';
  for (const d of DELIMITERS) {
    if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) {
      best = d;
    }
  }
  return best;
}

/** A name compared loosely: case, accents, spaces and punctuation aside. */
function loose(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** Each placeholder mapped to the column of the same name (its whole path, or its last part), if any. */
export function autoMap(placeholders: Placeholder[], columns: string[]): ColumnMap {
  const map: ColumnMap = {};
  for (const { path } of placeholders) {
    const last = path.split('.').pop() ?? path;
    map[path] =
      columns.find((c) => c === path) ?? columns.find((c) => loose(c) === loose(path)) ?? columns.find((c) => loose(c) === loose(last));
  }
  return map;
}

/** The placeholders no column gives a value to: every row would be refused. */
export function unmapped(placeholders: Placeholder[], map: ColumnMap): string[] {
  return placeholders.filter((p) => !map[p.path]).map((p) => p.path);
}

function setAt(row: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = row;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    at[key] = typeof next === 'object' && next !== null ? next : {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys[keys.length - 1]] = value;
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/** The rows to send, one per record, and what is wrong with each. */
export function prepareRows(table: CsvTable, placeholders: Placeholder[], map: ColumnMap, signers: DraftSigner[]): PreparedRows {
  const rows: Record<string, unknown>[] = [];
  const problems: RowProblem[][] = [];
  for (const record of table.records) {
    const row: Record<string, unknown> = {};
    const found: RowProblem[] = [];
    const cell = (path: string): string | undefined => {
      const column = map[path];
      return column === undefined ? undefined : record[column]?.trim();
    };
    for (const p of placeholders) {
      const value = cell(p.path);
      if (value === undefined || value === '') {
        found.push({ kind: 'missing', path: p.path });
        if (value === undefined) {
          continue; // no column: the row lacks the key, as the service will say
        }
      }
      if (p.numeric && value !== '') {
        if (NUMBER.test(value)) {
          setAt(row, p.path, Number(value));
          continue;
        }
        found.push({ kind: 'number', path: p.path, value });
      }
      setAt(row, p.path, value);
    }
    found.push(...signerProblems(signers, cell));
    rows.push(row);
    problems.push(found);
  }
  return { rows, problems };
}

/** A signer's data and email as this row fills them, checked by the service's rule for the authority. */
function signerProblems(signers: DraftSigner[], cell: (path: string) => string | undefined): RowProblem[] {
  const found: RowProblem[] = [];
  const filled = (s: string) => fillText(s, (path) => cell(path) || undefined);
  for (const signer of signers) {
    const authority = authorityOf(signer);
    const data = filled(signer.data);
    // A value still holding a placeholder is already a `missing` problem.
    if (authority && data !== signer.data && !data.includes('{{')) {
      const judged = normalizeSignerData(authority, data);
      if (!judged.ok) {
        found.push({ kind: 'signer_data', signer: signer.index, value: data, rule: judged.rule });
      }
    }
    if (signer.email !== undefined) {
      const email = filled(signer.email);
      if (email !== signer.email && !email.includes('{{') && !isEmail(email.trim())) {
        found.push({ kind: 'signer_email', signer: signer.index, value: email });
      }
    }
  }
  return found;
}
