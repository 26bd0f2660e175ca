// The rules of a field signers fill that both moments apply: at creation, whether a `format` may be
// stored; at signing, whether a value matches it, and how a date field reads and writes its dates.
// The signer page applies the same `format` in the browser, so a pattern is a JavaScript regular
// expression, compiled with the u flag and anchored to the whole value.
import { DATE_FORMATS, type DateFormat } from '../../schemas/signer-fields.js';
import { isEmail } from './authorities.js';

/** Most characters of a `format` pattern. */
export const MAX_PATTERN_LENGTH = 200;
/** Most characters of a text value (the schema's bound on field_values too). */
export const MAX_VALUE_LENGTH = 1000;

// "number": an optional sign, digits, and decimals after a point or a comma.
const NUMBER = /^[+-]?\d+([.,]\d+)?$/;

/**
 * Why a pattern is refused, or null when it may be stored. A regular expression runs on the
 * service's thread (and the signer's), so one that can backtrack without end is refused
 * (ReDoS): no engine that bounds the time is installed, so the shape is judged instead, as
 * safe-regex judges star height. Refused: a repeated group that itself holds a quantifier or an
 * alternation ((a+)+, (a|a)*: exponential); back-references (not regular at all); and patterns
 * whose repetitions multiply beyond 10^6 steps over a value of MAX_VALUE_LENGTH characters
 * (a*a*a*: polynomial of a high degree).
 */
export function patternProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return `a pattern has at most ${MAX_PATTERN_LENGTH} characters`;
  }
  try {
    new RegExp(pattern, 'u');
  } catch (err) {
    return `not a valid regular expression: ${(err as Error).message}`;
  }
  // Groups open, each noting whether it holds a quantifier or an alternation.
  const stack: { quantified: boolean; alternation: boolean }[] = [{ quantified: false, alternation: false }];
  let cost = 1;
  let lastWasGroup: { quantified: boolean; alternation: boolean } | null = null;
  let atom = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') {
        return 'back-references (\\1, \\k<name>) are not allowed';
      }
      i++;
      // \p{...}, \u{...}, \x.. are one atom whatever their length.
      if ((next === 'p' || next === 'P' || next === 'u') && pattern[i + 1] === '{') {
        i = pattern.indexOf('}', i);
      }
      atom = true;
      lastWasGroup = null;
      continue;
    }
    if (c === '[') {
      // A class is one atom: skip to its closing bracket (escapes inside included).
      let j = i + 1;
      for (; j < pattern.length && pattern[j] !== ']'; j++) {
        if (pattern[j] === '\\') {
          j++;
        }
      }
      i = j;
      atom = true;
      lastWasGroup = null;
      continue;
    }
    if (c === '(') {
      stack.push({ quantified: false, alternation: false });
      if (pattern[i + 1] === '?') {
        // (?: (?= (?! (?<= (?<! (?<name>: the group's prefix is no atom.
        const look = pattern[i + 2] === '<' && (pattern[i + 3] === '=' || pattern[i + 3] === '!');
        i = pattern[i + 2] === '<' && !look ? pattern.indexOf('>', i) : i + (look ? 3 : 2);
      }
      atom = false;
      lastWasGroup = null;
      continue;
    }
    if (c === ')') {
      const group = stack.pop()!;
      const outer = stack[stack.length - 1];
      outer.quantified ||= group.quantified;
      outer.alternation ||= group.alternation;
      lastWasGroup = group;
      atom = true;
      continue;
    }
    if (c === '|') {
      stack[stack.length - 1].alternation = true;
      atom = false;
      lastWasGroup = null;
      continue;
    }
    const q = quantifierAt(pattern, i);
    if (q && atom) {
      // A fixed count ({3}) never backtracks: only a choice of how many counts.
      if (q.max > 1 && q.max > q.min) {
        if (lastWasGroup && (lastWasGroup.quantified || lastWasGroup.alternation)) {
          return 'a repeated group may not itself hold a quantifier or an alternation, e.g. (a+)+ or (a|b)*: it can take exponential time';
        }
        stack[stack.length - 1].quantified = true;
        cost *= Math.min(q.max, MAX_VALUE_LENGTH) - q.min + 1;
        if (cost > 1e6) {
          return 'too many repetitions one after the other (e.g. a*a*a*): matching could take too long';
        }
      }
      i = q.end;
      // A lazy or possessive marker after the quantifier.
      if (pattern[i + 1] === '?') {
        i++;
      }
      atom = false;
      lastWasGroup = null;
      continue;
    }
    atom = c !== '^' && c !== '$';
    lastWasGroup = null;
  }
  return null;
}

/** The quantifier starting at `i` (*, +, ?, {n}, {n,}, {n,m}), with its bounds and last index. */
function quantifierAt(p: string, i: number): { min: number; max: number; end: number } | null {
  const c = p[i];
  if (c === '*') {
    return { min: 0, max: Number.POSITIVE_INFINITY, end: i };
  }
  if (c === '+') {
    return { min: 1, max: Number.POSITIVE_INFINITY, end: i };
  }
  if (c === '?') {
    return { min: 0, max: 1, end: i };
  }
  const m = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i)) : null;
  if (!m) {
    return null;
  }
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
  return { min, max, end: i + m[0].length - 1 };
}

/** Whether `value` has the field's `format`: "email", "number", or the whole value matching the pattern. */
export function matchesFormat(format: string, value: string): boolean {
  if (format === 'email') {
    return isEmail(value);
  }
  if (format === 'number') {
    return NUMBER.test(value);
  }
  return new RegExp(`^(?:${format})$`, 'u').test(value);
}

const PARTS: Record<DateFormat, { order: ('D' | 'M' | 'Y')[]; sep: string }> = {
  'DD/MM/YYYY': { order: ['D', 'M', 'Y'], sep: '/' },
  'MM/DD/YYYY': { order: ['M', 'D', 'Y'], sep: '/' },
  'YYYY-MM-DD': { order: ['Y', 'M', 'D'], sep: '-' },
  'DD-MM-YYYY': { order: ['D', 'M', 'Y'], sep: '-' },
  'DD.MM.YYYY': { order: ['D', 'M', 'Y'], sep: '.' },
};

export const isDateFormat = (v: unknown): v is DateFormat => typeof v === 'string' && (DATE_FORMATS as readonly string[]).includes(v);

/** The day written in `format` (two-digit day and month, four-digit year). */
export function formatDate(day: { year: number; month: number; day: number }, format: DateFormat): string {
  const { order, sep } = PARTS[format];
  const part = { D: String(day.day).padStart(2, '0'), M: String(day.month).padStart(2, '0'), Y: String(day.year).padStart(4, '0') };
  return order.map((k) => part[k]).join(sep);
}

/** The calendar day `value` names in `format`, or null when it is not one (31/02 included). */
export function parseDate(value: string, format: DateFormat): { year: number; month: number; day: number } | null {
  const { order, sep } = PARTS[format];
  const pieces = value.trim().split(sep);
  if (pieces.length !== 3) {
    return null;
  }
  const got: Record<string, number> = {};
  for (const [i, k] of order.entries()) {
    const want = k === 'Y' ? /^\d{4}$/ : /^\d{1,2}$/;
    if (!want.test(pieces[i])) {
      return null;
    }
    got[k] = Number(pieces[i]);
  }
  const d = new Date(Date.UTC(got.Y, got.M - 1, got.D));
  if (got.Y < 1 || d.getUTCFullYear() !== got.Y || d.getUTCMonth() !== got.M - 1 || d.getUTCDate() !== got.D) {
    return null;
  }
  return { year: got.Y, month: got.M, day: got.D };
}

/** The calendar day of `at` in `timeZone` (an IANA name; the account's). */
export function dayIn(at: Date, timeZone: string): { year: number; month: number; day: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  return { year: get('year'), month: get('month'), day: get('day') };
}
