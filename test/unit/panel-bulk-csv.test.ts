// The panel's bulk page reads a CSV file into the rows of a bulk run (web/src/panel/bulk/): the
// placeholders found in the draft, the file as spreadsheets write it (byte-order mark, semicolons,
// quoted line breaks), columns mapped by name, and each row's problems found before sending.
import { describe, expect, it } from 'vitest';
import { autoMap, CsvError, parseCsv, prepareRows, unmapped } from '../../web/src/panel/bulk/csv-rows.js';
import { draftPlaceholders, draftSigners } from '../../web/src/panel/bulk/placeholders.js';

const draft = {
  b64_doc: 'JVBERi0xLjcK{{row.not_this}}',
  name: 'Contrato {{row.name}}',
  stickers: [
    { authority: 'EMAIL_LINK', name: '{{row.name}}', data: '{{ row.email }}', page: '{{row.page}}', rect: { lx: 1, ly: 1, tx: 9, ty: 9 } },
    { authority: 'SMS', name: 'Testigo', data: '{{row.phone}}', page: 0, rect: { lx: 1, ly: 1, tx: 9, ty: 9 } },
  ],
  template: { title: 'contrato', fields: [{ id: 'monto', value: '{{row.fields.monto}}' }] },
};

describe('the placeholders of a draft', () => {
  it('are every {{row.…}} outside the PDF, in order, once each; a box page is a number', () => {
    expect(draftPlaceholders(draft)).toEqual([
      { path: 'name', numeric: false },
      { path: 'email', numeric: false },
      { path: 'page', numeric: true },
      { path: 'phone', numeric: false },
      { path: 'fields.monto', numeric: false },
    ]);
    expect(draftSigners(draft).map((s) => [s.authority, s.data])).toEqual([
      ['EMAIL_LINK', '{{ row.email }}'],
      ['SMS', '{{row.phone}}'],
    ]);
  });
});

describe('a CSV file', () => {
  it('with a byte-order mark and semicolons: the first column keeps its plain name', () => {
    const t = parseCsv('\uFEFFname;email\r\nAna;ana@example.com\r\nBob;bob@example.com\r\n');
    expect(t.delimiter).toBe(';');
    expect(t.columns).toEqual(['name', 'email']);
    expect(t.records).toEqual([
      { name: 'Ana', email: 'ana@example.com' },
      { name: 'Bob', email: 'bob@example.com' },
    ]);
  });

  it('with quoted fields holding commas, quotes and line breaks, and blank lines left out', () => {
    const t = parseCsv('name,email,note\n"Ruiz, Ana",ana@example.com,"line one\nline ""two"""\n\n"Bob",bob@example.com,\n');
    expect(t.delimiter).toBe(',');
    expect(t.records).toEqual([
      { name: 'Ruiz, Ana', email: 'ana@example.com', note: 'line one\nline "two"' },
      { name: 'Bob', email: 'bob@example.com', note: '' },
    ]);
  });

  it('a short line gives empty cells; no data rows or no header is an error', () => {
    expect(parseCsv('a\tb\n1\n').records).toEqual([{ a: '1', b: '' }]);
    expect(() => parseCsv('name,email\n')).toThrow(CsvError);
    expect(() => parseCsv('')).toThrow(CsvError);
  });
});

describe('rows from a CSV file', () => {
  const placeholders = draftPlaceholders(draft);
  const signers = draftSigners(draft);

  it('columns are mapped by name, loosely, or by the last part of the path', () => {
    const map = autoMap(placeholders, ['Name', 'E-mail', 'page', 'Teléfono', 'monto']);
    expect(map).toEqual({ name: 'Name', email: 'E-mail', page: 'page', phone: undefined, 'fields.monto': 'monto' });
    expect(unmapped(placeholders, map)).toEqual(['phone']);
  });

  it('each row gets its values at their paths, a page as a number, and its problems', () => {
    const table = parseCsv(
      [
        'name;email;page;phone;monto',
        'Ana;ana@example.com;0;+525512345678;100',
        'Bob;bob@;1;+525512345679;200',
        ';carla@example.com;x;5512;',
      ].join('\n'),
    );
    const map = autoMap(placeholders, table.columns);
    const { rows, problems } = prepareRows(table, placeholders, map, signers);
    expect(rows[0]).toEqual({ name: 'Ana', email: 'ana@example.com', page: 0, phone: '+525512345678', fields: { monto: '100' } });
    expect(problems[0]).toEqual([]);
    expect(problems[1]).toEqual([{ kind: 'signer_data', signer: 0, value: 'bob@', rule: 'data must be an email address for EMAIL_LINK' }]);
    expect(problems[2].map((p) => p.kind)).toEqual(['missing', 'number', 'missing', 'signer_data']);
    expect(problems[2][0]).toEqual({ kind: 'missing', path: 'name' });
    expect(problems[2][3]).toMatchObject({ signer: 1, value: '5512' });
  });

  it('a placeholder with no column: every row misses it and lacks the key', () => {
    const table = parseCsv('name,email\nAna,ana@example.com\n');
    const only = placeholders.filter((p) => p.path === 'name' || p.path === 'email' || p.path === 'phone');
    const { rows, problems } = prepareRows(table, only, autoMap(only, table.columns), signers);
    expect(rows).toEqual([{ name: 'Ana', email: 'ana@example.com' }]);
    expect(problems).toEqual([[{ kind: 'missing', path: 'phone' }]]);
  });
});
