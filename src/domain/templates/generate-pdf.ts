// The template origin of POST /developers/json: the PDF generated from a registered template and
// the values sent in `fields` (and `tables`). A field the template declares but the request omits
// is left empty; a value for a field the template lacks is ignored; both are listed in warnings.
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { findTemplate } from '../../store/templates-repo.js';
import type { FillValues } from '../../render/types.js';
import { engineCall } from './template-errors.js';

export interface GeneratedPdf {
  bytes: Buffer;
  /** File name of the generated document: template.name, else the template's title. */
  name: string;
  warnings: string[];
}

export async function generatePdfFromTemplate(
  deps: Deps,
  opts: { accountId: string; template: unknown; fields: unknown; tables: unknown },
): Promise<GeneratedPdf> {
  const t = opts.template;
  if (typeof t !== 'object' || t === null || Array.isArray(t)) {
    throw invalid('template', 'expected an object {title, name}');
  }
  const { title, name } = t as { title?: unknown; name?: unknown };
  if (typeof title !== 'string' || title === '') {
    throw invalid('template.title', 'required: the name of a registered template');
  }
  if (name !== undefined && (typeof name !== 'string' || name.length > 200)) {
    throw invalid('template.name', 'expected a string of at most 200 characters');
  }
  const values = parseValues(opts.fields, opts.tables);
  // Names are trimmed when saved, so they are looked up trimmed.
  const row = await findTemplate(deps.db, opts.accountId, title.trim());
  if (!row) {
    throw new AppError('TEMPLATE_NOT_FOUND', `template.title: no template named ${JSON.stringify(title)}`, { field: 'template.title' });
  }

  const warnings: string[] = [];
  const declared = new Set(row.fields.map((f) => f.id));
  for (const f of row.fields) {
    if (!values.fields.has(f.id)) {
      warnings.push(`fields.${f.id}: declared by the template but not sent; left empty`);
    }
  }
  for (const id of values.fields.keys()) {
    if (!declared.has(id)) {
      warnings.push(`fields.${id}: not a field of template ${JSON.stringify(title)}; ignored`);
    }
  }
  const declaredTables = new Set(row.tables.map((x) => x.id));
  for (const x of row.tables) {
    if (!values.tables.has(x.id)) {
      warnings.push(`tables.${x.id}: declared by the template but not sent; left without rows`);
    }
  }
  for (const id of values.tables.keys()) {
    if (!declaredTables.has(id)) {
      warnings.push(`tables.${id}: not a table of template ${JSON.stringify(title)}; ignored`);
    }
  }

  const source = await deps.blobs.get(row.source_sha256);
  const bytes = await engineCall(() => deps.templates.render(row.type, source, values));
  return { bytes, name: typeof name === 'string' && name.trim() ? name : title, warnings };
}

/** `fields: [{id, value}]` and `tables: [{id, rows}]`, rows as [[{id, value}]] or [{column: value}]. */
export function parseValues(fields: unknown, tables: unknown): FillValues {
  const out: FillValues = { fields: new Map(), tables: new Map() };
  if (fields !== undefined && fields !== null) {
    if (!Array.isArray(fields)) {
      throw invalid('fields', 'expected an array of {id, value}');
    }
    fields.forEach((f: unknown, i) => {
      const { id, value } = (f ?? {}) as { id?: unknown; value?: unknown };
      if (typeof id !== 'string' || id === '') {
        throw invalid(`fields[${i}].id`, 'required: the field id');
      }
      out.fields.set(id, scalar(`fields[${i}].value`, value));
    });
  }
  if (tables !== undefined && tables !== null) {
    if (!Array.isArray(tables)) {
      throw invalid('tables', 'expected an array of {id, rows}');
    }
    tables.forEach((t: unknown, i) => {
      const { id, rows } = (t ?? {}) as { id?: unknown; rows?: unknown };
      if (typeof id !== 'string' || id === '') {
        throw invalid(`tables[${i}].id`, 'required: the table id');
      }
      if (!Array.isArray(rows) || rows.length > 10000) {
        throw invalid(`tables[${i}].rows`, 'expected an array of at most 10000 rows');
      }
      out.tables.set(
        id,
        rows.map((r: unknown, j) => {
          const where = `tables[${i}].rows[${j}]`;
          const cells: Record<string, string> = {};
          if (Array.isArray(r)) {
            r.forEach((c: unknown, k) => {
              const { id: cid, value } = (c ?? {}) as { id?: unknown; value?: unknown };
              if (typeof cid !== 'string') {
                throw invalid(`${where}[${k}].id`, 'required: the column id');
              }
              cells[cid] = scalar(`${where}[${k}].value`, value);
            });
          } else if (typeof r === 'object' && r !== null) {
            for (const [k, v] of Object.entries(r)) {
              cells[k] = scalar(`${where}.${k}`, v);
            }
          } else {
            throw invalid(where, 'expected [{id, value}] or {column: value}');
          }
          return cells;
        }),
      );
    });
  }
  return out;
}

function scalar(field: string, v: unknown): string {
  if (v === undefined || v === null) {
    return '';
  }
  if (typeof v === 'string') {
    return v;
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    return String(v);
  }
  throw invalid(field, 'expected a string, number or boolean');
}
