// The signer page's own checks of the fields a signer fills (web/src/signer-fields.ts): what is
// refused at the field before anything is sent, the date written in the document's time zone and
// the field's format, the initials from a name in any script, and the body sent with the signature.
import { describe, expect, it } from 'vitest';
import { matchesFormat } from '../../src/domain/documents/signer-field-rules.js';
import {
  dayIn,
  fieldProblem,
  fieldProblems,
  fieldValuesBody,
  formatDay,
  initialsOf,
  initialValues,
  isoDay,
  parseDay,
  parseIsoDay,
  refusedField,
  type SignerField,
} from '../../web/src/signer-fields.js';

const rect = { lx: 10, ly: 10, tx: 110, ty: 30 };
const field = (id: string, type: SignerField['type'], more: Partial<SignerField> = {}): SignerField => ({
  id,
  type,
  page: 0,
  rect,
  required: false,
  label: null,
  format: null,
  options: null,
  date_format: null,
  ...more,
});

describe('fieldProblem', () => {
  it('a required field left empty (or blank) cannot be signed; an optional one can', () => {
    expect(fieldProblem(field('a', 'text', { required: true }), '')).toBe('required');
    expect(fieldProblem(field('a', 'text', { required: true }), '   ')).toBe('required');
    expect(fieldProblem(field('a', 'text', { required: true }), undefined)).toBe('required');
    expect(fieldProblem(field('a', 'text'), '')).toBeNull();
    expect(fieldProblem(field('a', 'initials', { required: true }), '')).toBe('required');
    expect(fieldProblem(field('a', 'dropdown', { required: true, options: ['x'] }), '')).toBe('required');
  });

  it('a required checkbox must be ticked; an optional one may stay empty', () => {
    expect(fieldProblem(field('c', 'checkbox', { required: true }), false)).toBe('required');
    expect(fieldProblem(field('c', 'checkbox', { required: true }), true)).toBeNull();
    expect(fieldProblem(field('c', 'checkbox'), false)).toBeNull();
  });

  it('checks an email, a number and a pattern on the whole value', () => {
    const email = field('e', 'text', { format: 'email' });
    expect(fieldProblem(email, 'ana@example.com')).toBeNull();
    expect(fieldProblem(email, 'аня@example.com')).toBeNull();
    expect(fieldProblem(email, 'ana@xn--e1afmkfd.com')).toBeNull();
    for (const bad of ['ana', 'ana@example', 'ana@@example.com', 'ana @example.com', 'ana@example,com', 'ana@example.', 'ana@пример.рф']) {
      expect(fieldProblem(email, bad), bad).toBe('email');
    }
    const number = field('n', 'text', { format: 'number' });
    for (const good of ['42', '-3.5', '1,25', '+7']) {
      expect(fieldProblem(number, good), good).toBeNull();
    }
    for (const bad of ['4 2', '1.2.3', 'x', '1e5']) {
      expect(fieldProblem(number, bad), bad).toBe('number');
    }
    const rfc = field('p', 'text', { format: '[A-Z]{4}[0-9]{6}' });
    expect(fieldProblem(rfc, 'GODE561231')).toBeNull();
    // The pattern must match the whole value, not a part of it.
    expect(fieldProblem(rfc, 'xGODE561231x')).toBe('pattern');
    expect(fieldProblem(field('p', 'text', { format: 'a|b' }), 'ab')).toBe('pattern');
  });

  it('refuses exactly what the service refuses, for each format', () => {
    const values = [
      'ana@example.com',
      'ana@example',
      'аня@example.com',
      'ana@пример.рф',
      `${'a'.repeat(250)}@b.mx`,
      '42',
      '-3.5',
      '1,25',
      '1e5',
      '',
      ' 7',
      'GODE561231',
      'gode561231',
      'Ω',
    ];
    for (const format of ['email', 'number', '[A-Z]{4}[0-9]{6}', '\\p{Lu}+']) {
      for (const v of values.filter((x) => x.trim() !== '')) {
        // The service judges the trimmed value, as the page does.
        expect(fieldProblem(field('x', 'text', { format }), v) === null, `${format}: ${v}`).toBe(matchesFormat(format, v.trim()));
      }
    }
  });

  it('a dropdown takes one of its options only', () => {
    const f = field('d', 'dropdown', { options: ['Sí', 'No'] });
    expect(fieldProblem(f, 'No')).toBeNull();
    expect(fieldProblem(f, 'Maybe')).toBe('option');
  });

  it('a date must be a real day', () => {
    const f = field('t', 'date');
    expect(fieldProblem(f, '2024-02-29')).toBeNull();
    expect(fieldProblem(f, '2023-02-29')).toBe('date');
    expect(fieldProblem(f, '29/02/2024')).toBe('date');
  });

  it('lists the problems of many fields by id', () => {
    const fields = [field('a', 'text', { required: true }), field('b', 'text', { format: 'email' }), field('c', 'checkbox')];
    expect(fieldProblems(fields, { a: '', b: 'nope', c: false })).toEqual({ a: 'required', b: 'email' });
    expect(fieldProblems(fields, { a: 'ok', b: 'a@b.mx', c: false })).toEqual({});
  });
});

describe('dates', () => {
  // One instant, two days: late evening in Mexico City is already the next day in UTC.
  const at = new Date(Date.UTC(2030, 0, 1, 3, 30));

  it('the day an instant falls on is the one in the document time zone', () => {
    expect(dayIn(at, 'UTC')).toEqual({ year: 2030, month: 1, day: 1 });
    expect(dayIn(at, 'America/Mexico_City')).toEqual({ year: 2029, month: 12, day: 31 });
    expect(dayIn(at, 'Asia/Tokyo')).toEqual({ year: 2030, month: 1, day: 1 });
  });

  it('writes a day in the field format, day first when the field names none', () => {
    const d = { year: 2030, month: 3, day: 7 };
    expect(formatDay(d)).toBe('07/03/2030');
    expect(formatDay(d, null)).toBe('07/03/2030');
    expect(formatDay(d, 'YYYY-MM-DD')).toBe('2030-03-07');
    expect(formatDay(d, 'MM/DD/YY')).toBe('03/07/30');
    expect(formatDay(d, 'D.M.YYYY')).toBe('7.3.2030');
  });

  it('reads a day written in each format the service writes', () => {
    const d = { year: 2030, month: 3, day: 7 };
    for (const f of ['DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD', 'DD-MM-YYYY', 'DD.MM.YYYY']) {
      expect(parseDay(formatDay(d, f), f), f).toEqual(d);
    }
    expect(parseDay('07/03/2030', null)).toEqual(d);
    expect(parseDay('31/02/2030', 'DD/MM/YYYY')).toBeNull();
    expect(parseDay('2030-03-07', 'DD/MM/YYYY')).toBeNull();
    expect(parseDay('07x03x2030', 'DD.MM.YYYY')).toBeNull();
  });

  it('reads back the day an input holds', () => {
    const d = { year: 2030, month: 3, day: 7 };
    expect(isoDay(d)).toBe('2030-03-07');
    expect(parseIsoDay('2030-03-07')).toEqual(d);
    expect(parseIsoDay('2030-13-01')).toBeNull();
    expect(parseIsoDay('')).toBeNull();
  });
});

describe('initialsOf', () => {
  it('takes the first letter of each capitalised word, in any script', () => {
    expect(initialsOf('Ana Pérez')).toBe('AP');
    expect(initialsOf('María de la Luz Ortega')).toBe('MLO');
    expect(initialsOf('Иван Петров')).toBe('ИП');
    expect(initialsOf('Jean-Luc Picard')).toBe('JLP');
    expect(initialsOf('Éric Ñúñez')).toBe('ÉÑ');
  });

  it('keeps every word where the script has no case, and says nothing without a name', () => {
    expect(initialsOf('محمد علي')).toBe('مع');
    expect(initialsOf('ana pérez')).toBe('AP');
    expect(initialsOf(null)).toBe('');
    expect(initialsOf('  ')).toBe('');
  });

  it('a letter with a combining accent is one letter', () => {
    expect(initialsOf('E\u0301lise Martin')).toBe('E\u0301M');
  });
});

describe('the values sent with the signature', () => {
  const fields = [
    field('name', 'text', { required: true }),
    field('when', 'date', { date_format: 'DD.MM.YYYY' }),
    field('ok', 'checkbox'),
    field('ini1', 'initials'),
    field('ini2', 'initials'),
    field('pick', 'dropdown', { options: ['A', 'B'] }),
    field('note', 'text'),
  ];

  it("start from the session, the session's default day (else the day in the field's time zone) and the initials", () => {
    const now = new Date(Date.UTC(2030, 0, 1, 3, 30));
    const more = [
      field('kept', 'text', { value: 'from before' }),
      field('given', 'date', { date_format: 'MM/DD/YYYY', value: '03/07/2030', time_zone: 'UTC' }),
      field('zoned', 'date', { time_zone: 'America/Mexico_City' }),
    ];
    const v = initialValues([...fields, ...more], { now, initials: 'AP' });
    expect(v).toEqual({
      name: '',
      when: '2030-01-01',
      ok: false,
      ini1: 'AP',
      ini2: 'AP',
      pick: '',
      note: '',
      kept: 'from before',
      given: '2030-03-07',
      zoned: '2029-12-31',
    });
  });

  it('trim text, write the date as shown, keep checkboxes, and leave out empty optional fields', () => {
    const body = fieldValuesBody(fields, {
      name: '  Ива́н  ',
      when: '2030-03-07',
      ok: false,
      ini1: 'AP',
      ini2: 'AP',
      pick: 'B',
      note: '   ',
    });
    expect(body).toEqual({ name: 'Ива́н', when: '07.03.2030', ok: false, ini1: 'AP', ini2: 'AP', pick: 'B' });
  });

  it('a refusal from the service names one of the fields', () => {
    expect(refusedField({ field: 'field_values.name' }, fields)).toBe('name');
    expect(refusedField({ field: 'field_values.other' }, fields)).toBeNull();
    expect(refusedField({ field: 'signature' }, fields)).toBeNull();
    expect(refusedField(undefined, fields)).toBeNull();
  });
});
