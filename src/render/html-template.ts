// The html template engine: detection and filling, pure (a string in, a string out).
//
// A template marks its fields with `class="svc-template-field" id="..."` and its repeating tables
// with `class="svc-template-table" id="..."`; a table's row template is the first <tr> of its
// <tbody> (or, without a tbody, the first <tr> holding a field) and the fields in that row are the
// table's columns. Values are always inserted as text, HTML-escaped: a value is data from an API
// caller and must never become markup in a document someone signs.
import { HTMLElement, TextNode, parse, type Node } from 'node-html-parser';
import { TemplateError, type DetectedTemplate, type FillValues, type TemplateField } from './types.js';

const FIELD_CLASS = 'svc-template-field';
const TABLE_CLASS = 'svc-template-table';

// The parser keeps script and style bodies as raw text (as browsers do). Everything else, <pre>
// and <noscript> included, is parsed as markup: the renderer runs with JavaScript disabled, so
// Chromium parses <noscript> content as markup too and fields there must be found.
const PARSE_OPTIONS = { comment: true, blockTextElements: { script: true, style: true } };

// Elements whose content is not rendered text (void or raw-text elements): a field there could
// not show its value, or an escaped value would show its entities. <input> is the exception: its
// value goes in the `value` attribute.
const NOT_TEXT_HOLDERS = new Set([
  'AREA',
  'BASE',
  'BR',
  'COL',
  'EMBED',
  'HR',
  'IMG',
  'LINK',
  'META',
  'PARAM',
  'SOURCE',
  'TRACK',
  'WBR',
  'KEYGEN',
  'SCRIPT',
  'STYLE',
  'TEMPLATE',
  'IFRAME',
  'NOEMBED',
  'NOFRAMES',
  'XMP',
  'PLAINTEXT',
  'SELECT',
  'OBJECT',
]);

interface LocatedField {
  id: string;
  el: HTMLElement;
}

interface LocatedTable {
  id: string;
  el: HTMLElement;
  row: HTMLElement;
  columns: LocatedField[];
}

interface Located {
  fields: LocatedField[];
  tables: LocatedTable[];
}

/** Fields and tables a template declares, in document order; throws INVALID_TEMPLATE. */
export function detectHtmlTemplate(html: string): DetectedTemplate {
  const located = locate(parseTemplate(html));
  return {
    fields: located.fields.map(({ id }) => ({ id, value: '' })),
    tables: located.tables.map(({ id, columns }) => ({
      id,
      rows: [columns.map(({ id: columnId }): TemplateField => ({ id: columnId, value: '' }))],
    })),
  };
}

/**
 * The template with every field set to its value as text (missing values leave the field empty)
 * and each table's row template replaced by one copy per row of `values.tables` (none: no rows).
 */
export function fillHtmlTemplate(html: string, values: FillValues): string {
  const root = parseTemplate(html);
  const located = locate(root);
  for (const field of located.fields) {
    setText(field.el, values.fields.get(field.id));
  }
  for (const table of located.tables) {
    const rows = values.tables.get(table.id) ?? [];
    const copies = rows.map((row) => {
      // clone() re-parses the row's markup: each copy is an independent subtree.
      const copy = table.row.clone() as HTMLElement;
      for (const column of collect(copy, FIELD_CLASS)) {
        // Own properties only: a column named "constructor" must not read Object.prototype.
        setText(column.el, Object.hasOwn(row, column.id) ? row[column.id] : undefined);
      }
      return copy;
    });
    table.row.replaceWith(...copies);
  }
  return root.toString();
}

function parseTemplate(html: string): HTMLElement {
  if (typeof html !== 'string') {
    throw new TemplateError('INVALID_TEMPLATE', 'an html template must be a string');
  }
  return parse(html, PARSE_OPTIONS);
}

function locate(root: HTMLElement): Located {
  const tables: LocatedTable[] = collect(root, TABLE_CLASS).map(({ id, el }) => {
    const row = findRowTemplate(el);
    if (!row) {
      throw new TemplateError(
        'INVALID_TEMPLATE',
        `table "${id}" has no row template: make the repeated row the first <tr> of its <tbody>`,
        { table: id },
      );
    }
    return { id, el, row, columns: collect(row, FIELD_CLASS) };
  });

  const inRowTemplate = new Set<HTMLElement>();
  for (const table of tables) {
    for (const column of table.columns) {
      inRowTemplate.add(column.el);
    }
    const nested = collect(table.row, TABLE_CLASS)[0];
    if (nested) {
      throw new TemplateError(
        'INVALID_TEMPLATE',
        `table "${nested.id}" is inside the row template of table "${table.id}"; nested tables are not supported`,
        { table: table.id, nested: nested.id },
      );
    }
  }
  const fields = collect(root, FIELD_CLASS).filter(({ el }) => !inRowTemplate.has(el));

  const duplicates = new Set<string>();
  findDuplicates(
    [...fields, ...tables].map(({ id }) => id),
    duplicates,
  );
  for (const table of tables) {
    findDuplicates(
      table.columns.map(({ id }) => id),
      duplicates,
    );
  }
  if (duplicates.size > 0) {
    const list = [...duplicates];
    throw new TemplateError('INVALID_TEMPLATE', `duplicate id(s): ${list.join(', ')}`, { duplicates: list });
  }

  for (const field of [...fields, ...tables.flatMap((table) => table.columns)]) {
    checkTextHolder(field);
  }
  return { fields, tables };
}

/** A field's content is replaced on fill: it must hold text and must not hide other template elements. */
function checkTextHolder({ id, el }: LocatedField): void {
  if (NOT_TEXT_HOLDERS.has(el.tagName)) {
    throw new TemplateError(
      'INVALID_TEMPLATE',
      `field "${id}" is a <${el.tagName.toLowerCase()}> element, which cannot show text; use e.g. a <span>`,
      { field: id },
    );
  }
  const inner = [...collect(el, FIELD_CLASS), ...collect(el, TABLE_CLASS)].find((found) => found.el !== el);
  if (inner) {
    throw new TemplateError('INVALID_TEMPLATE', `field "${id}" contains "${inner.id}"; a field's content is replaced by its value`, {
      field: id,
      contains: inner.id,
    });
  }
}

function findDuplicates(ids: string[], into: Set<string>): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) {
      into.add(id);
    }
    seen.add(id);
  }
}

/** Elements (this one included) with `className` and a non-empty id, in document order. */
function collect(start: HTMLElement, className: string): LocatedField[] {
  const found: LocatedField[] = [];
  walk(start, (el) => {
    if (el.classList.contains(className)) {
      const id = el.getAttribute('id')?.trim();
      if (id) {
        found.push({ id, el });
      }
    }
    return true;
  });
  return found;
}

/**
 * The first <tr> of the table's own <tbody>; without a tbody, the first <tr> holding a field.
 * The marked element may be the <table>, its <tbody>, or a wrapper around the <table>. Tables
 * nested in that table are not searched: their rows are not this table's.
 */
function findRowTemplate(marked: HTMLElement): HTMLElement | undefined {
  let table: HTMLElement | undefined;
  if (marked.tagName === 'TABLE' || marked.tagName === 'TBODY') {
    table = marked;
  } else {
    walk(marked, (el) => {
      if (!table && el.tagName === 'TABLE') {
        table = el;
      }
      return !table;
    });
  }
  if (!table) {
    return undefined;
  }
  const own = (tagName: string): HTMLElement[] => {
    const found: HTMLElement[] = [];
    walk(table!, (el) => {
      if (el !== table && el.tagName === 'TABLE') {
        return false;
      }
      if (el.tagName === tagName) {
        found.push(el);
      }
      return true;
    });
    return found;
  };
  const tbody = table.tagName === 'TBODY' ? table : own('TBODY')[0];
  if (tbody) {
    return own('TR').find((row) => isInside(row, tbody));
  }
  return own('TR').find((row) => collect(row, FIELD_CLASS).length > 0);
}

function isInside(el: HTMLElement, ancestor: HTMLElement): boolean {
  for (let node: HTMLElement | null = el; node; node = node.parentNode) {
    if (node === ancestor) {
      return true;
    }
  }
  return false;
}

/** Depth-first, document order; `visit` returns false to skip an element's children. */
function walk(start: HTMLElement, visit: (el: HTMLElement) => boolean): void {
  const stack: Node[] = [start];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!(node instanceof HTMLElement)) {
      continue;
    }
    if (node.tagName && !visit(node)) {
      continue;
    }
    for (let i = node.childNodes.length - 1; i >= 0; i--) {
      stack.push(node.childNodes[i]);
    }
  }
}

function setText(el: HTMLElement, value: unknown): void {
  const text = typeof value === 'string' ? value : value == null ? '' : String(value);
  if (el.tagName === 'INPUT') {
    // setAttribute quotes and escapes `"`; `&` is escaped here so entities in a value stay literal.
    el.setAttribute('value', text.replace(/&/g, '&amp;'));
    return;
  }
  el.set_content([new TextNode(escapeText(text))]);
}

/** Text → HTML text content: `<b>` in a value is shown as `<b>`, never parsed. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
