// The rules of fields signers fill that need no server: which `format` patterns may be stored (none
// that can backtrack without end), what "email" and "number" accept, and how a date field reads,
// writes and defaults its dates.
import { describe, expect, it } from 'vitest';
import { dayIn, formatDate, matchesFormat, parseDate, patternProblem } from '../../src/domain/documents/signer-field-rules.js';

describe('format patterns', () => {
  it('accepts the patterns forms use', () => {
    for (const p of [
      '[A-Z]{3}-\\d{4}',
      '^\\+?\\d{1,3}[- ]?\\d{3}[- ]?\\d{4}$',
      '[A-ZÑ&]{3,4}\\d{6}[A-Z0-9]{3}',
      '\\d{5}',
      '(jpg|png)?',
      '\\d{1,3}(,\\d{3})*',
      '.+@.+',
      '(?<year>\\d{4})-\\d{2}',
      '\\p{Lu}\\p{Ll}+',
      '(?=.*\\d).{8,}',
    ]) {
      expect(patternProblem(p), p).toBeNull();
    }
  });

  it('refuses what can take exponential or high polynomial time, back-references, and what does not compile', () => {
    const refused: [string, RegExp][] = [
      ['(a+)+b', /repeated group/],
      ['(a|a)*b', /repeated group/],
      ['(\\w+\\s?)*$', /repeated group/],
      ['((ab)*)+', /repeated group/],
      ['(?:x+y?)+', /repeated group/],
      ['(a)\\1', /back-references/],
      ['(?<n>a)\\k<n>', /back-references/],
      ['a*a*a*a*', /too many repetitions/],
      ['.*.*.*=', /too many repetitions/],
      ['(ab', /not a valid regular expression/],
      ['a'.repeat(201), /at most 200/],
    ];
    for (const [p, why] of refused) {
      expect(patternProblem(p), p).toMatch(why);
    }
  });

  it('matches the whole value', () => {
    expect(matchesFormat('[A-Z]{3}-\\d{4}', 'ABC-1234')).toBe(true);
    expect(matchesFormat('[A-Z]{3}-\\d{4}', 'xABC-1234')).toBe(false);
    expect(matchesFormat('a|b', 'ab')).toBe(false);
    expect(matchesFormat('email', 'ana@example.com')).toBe(true);
    expect(matchesFormat('email', 'ana@')).toBe(false);
    for (const n of ['12', '-3.5', '+0,25']) {
      expect(matchesFormat('number', n), n).toBe(true);
    }
    for (const n of ['1e3', '12.', 'twelve', '1 000']) {
      expect(matchesFormat('number', n), n).toBe(false);
    }
  });
});

describe('dates', () => {
  it('reads and writes each format, refusing days that do not exist', () => {
    const day = { year: 2031, month: 1, day: 5 };
    expect(formatDate(day, 'DD/MM/YYYY')).toBe('05/01/2031');
    expect(formatDate(day, 'MM/DD/YYYY')).toBe('01/05/2031');
    expect(formatDate(day, 'YYYY-MM-DD')).toBe('2031-01-05');
    expect(formatDate(day, 'DD.MM.YYYY')).toBe('05.01.2031');
    expect(parseDate('5/1/2031', 'DD/MM/YYYY')).toEqual(day);
    expect(parseDate('2031-01-05', 'YYYY-MM-DD')).toEqual(day);
    expect(parseDate('31/02/2031', 'DD/MM/YYYY')).toBeNull();
    expect(parseDate('29/02/2032', 'DD/MM/YYYY')).toEqual({ year: 2032, month: 2, day: 29 });
    expect(parseDate('2031/01/05', 'YYYY-MM-DD')).toBeNull();
    expect(parseDate('05/01/31', 'DD/MM/YYYY')).toBeNull();
  });

  it("takes the signing day in the account's time zone, not the server's or UTC", () => {
    // 03:00 UTC is still the evening before in Mexico City (UTC-6) and already the day in Tokyo.
    const at = new Date(Date.UTC(2031, 0, 5, 3, 0, 0));
    expect(dayIn(at, 'America/Mexico_City')).toEqual({ year: 2031, month: 1, day: 4 });
    expect(dayIn(at, 'UTC')).toEqual({ year: 2031, month: 1, day: 5 });
    expect(dayIn(at, 'Asia/Tokyo')).toEqual({ year: 2031, month: 1, day: 5 });
  });
});
