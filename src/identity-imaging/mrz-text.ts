// From the text an OCR engine read on a document to its machine-readable zone (ICAO 9303), parsed
// and its check digits verified by the `mrz` package. OCR reads the zone's filler runs (`<<<<`)
// a character or two too long or short more often than anything else: a line of nearly the
// format's length is brought to it by lengthening or shortening its longest run of fillers, which
// the check digits then confirm or refute. Letters read where a digit must stand (O for 0) are
// corrected by the package's autocorrect, and said so.
import { parse } from 'mrz';

/** What the zone says, as the identity checks use it. Personal data beyond these (the document
 * number, the birth date, the raw lines) is not kept: the reviewer has the images. */
export interface MrzReading {
  format: 'TD1' | 'TD2' | 'TD3';
  /** All check digits (and the fields' formats) verified. */
  valid: boolean;
  /** Fields whose check digit or format failed (the package's field names). */
  invalidFields: string[];
  documentCode: string | null;
  issuingState: string | null;
  surnames: string | null;
  givenNames: string | null;
  /** yymmdd as printed. */
  expirationDate: string | null;
  /** The name field filled the zone to its end: the last name may be cut short. */
  nameTruncated: boolean;
  /** Characters the parser corrected (letter read for a digit or the reverse). */
  corrected: number;
}

const FORMATS = [
  { format: 'TD1' as const, lines: 3, length: 30 },
  { format: 'TD3' as const, lines: 2, length: 44 },
  { format: 'TD2' as const, lines: 2, length: 36 },
];
const SLACK = 3;

/** A line brought to `length` by changing its longest run of fillers, if it has one long enough. */
export function fitLine(line: string, length: number): string {
  const diff = length - line.length;
  if (diff === 0) {
    return line;
  }
  let best = { at: -1, len: 0 };
  for (const m of line.matchAll(/<{2,}/g)) {
    if (m[0].length > best.len) {
      best = { at: m.index ?? 0, len: m[0].length };
    }
  }
  if (best.at < 0 || best.len + diff < 1) {
    return diff > 0 ? line + '<'.repeat(diff) : line.slice(0, length);
  }
  return line.slice(0, best.at) + '<'.repeat(best.len + diff) + line.slice(best.at + best.len);
}

/** The lines of OCR text that may belong to a zone: only its alphabet, long enough. */
export function candidateLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.toUpperCase().replace(/\s+/g, '').replace(/[«‹]/g, '<'))
    .filter((l) => l.length >= 30 - SLACK && /^[A-Z0-9<]+$/.test(l) && l.includes('<'));
}

/**
 * The ways a read line may be the zone's line: its filler run fitted (fitLine), or, when it is too
 * long, a character or two dropped from its start first (the card's edge or a mark beside the zone
 * read as a letter).
 */
function variantsOf(line: string, length: number, first: boolean, format: MrzReading['format']): string[] {
  const out = new Set([fitLine(line, length)]);
  for (let k = 1; k <= line.length - length; k++) {
    out.add(fitLine(line.slice(k), length));
  }
  if (first) {
    // The document code (I, A or C on a card, P on a passport) has no check digit; a first letter
    // that cannot be one is tried as the one its format allows.
    const code = format === 'TD3' ? 'P' : 'I';
    for (const v of [...out]) {
      if (!(format === 'TD3' ? /^P/ : /^[ACI]/).test(v)) {
        out.add(code + v.slice(1));
      }
    }
  }
  return [...out];
}

function* combinations(options: string[][]): Generator<string[]> {
  if (options.length === 0) {
    yield [];
    return;
  }
  for (const first of options[0]) {
    for (const rest of combinations(options.slice(1))) {
      yield [first, ...rest];
    }
  }
}

/** The best zone found in the text: a valid one first, else the one with the fewest failed fields. */
export function findMrz(text: string): MrzReading | undefined {
  const lines = candidateLines(text);
  let best: { reading: MrzReading; lines: string[] } | undefined;
  for (const f of FORMATS) {
    for (let i = 0; i + f.lines <= lines.length; i++) {
      const group = lines.slice(i, i + f.lines);
      if (!group.every((l) => Math.abs(l.length - f.length) <= SLACK)) {
        continue;
      }
      for (const combo of combinations(group.map((l, j) => variantsOf(l, f.length, j === 0, f.format)))) {
        const reading = parseLines(combo, f.format);
        if (reading && (!best || rank(reading) < rank(best.reading))) {
          best = { reading, lines: combo };
        }
      }
    }
  }
  return best && (best.reading.valid ? best.reading : repair(best.lines, best.reading));
}

/** Characters OCR takes for one another where a field may hold both letters and digits. */
const CONFUSABLE: Record<string, string> = {
  O: '0',
  '0': 'O',
  I: '1',
  '1': 'I',
  B: '8',
  '8': 'B',
  S: '5',
  '5': 'S',
  Z: '2',
  '2': 'Z',
  G: '6',
  '6': 'G',
  D: '0',
  Q: '0',
};
const MAX_REPAIRS = 2;

/**
 * An invalid zone whose check digits a swap of confusable characters (O for 0 in a document
 * number) makes valid, one swap at a time, keeping a swap only when it makes fewer fields fail. The
 * repaired zone counts its swaps in `corrected`; a zone still invalid is returned as read.
 */
function repair(lines: string[], reading: MrzReading): MrzReading {
  let current = { lines, reading };
  for (let round = 0; round < MAX_REPAIRS && !current.reading.valid; round++) {
    let better: typeof current | undefined;
    current.lines.forEach((line, li) => {
      for (let at = 0; at < line.length; at++) {
        const swap = CONFUSABLE[line[at]];
        if (!swap) {
          continue;
        }
        const tried = current.lines.map((l, j) => (j === li ? l.slice(0, at) + swap + l.slice(at + 1) : l));
        const r = parseLines(tried, reading.format);
        if (r && r.invalidFields.length < (better ?? current).reading.invalidFields.length) {
          better = { lines: tried, reading: { ...r, corrected: current.reading.corrected + 1 + r.corrected } };
        }
      }
    });
    if (!better) {
      break;
    }
    current = better;
  }
  return current.reading.valid ? current.reading : reading;
}

const rank = (r: MrzReading) => (r.valid ? 0 : 1) * 1000 + r.invalidFields.length * 10 + r.corrected;

function parseLines(lines: string[], format: MrzReading['format']): MrzReading | undefined {
  let result: ReturnType<typeof parse>;
  try {
    result = parse(lines, { autocorrect: true });
  } catch {
    return undefined;
  }
  if (result.format !== format) {
    return undefined;
  }
  const f = result.fields;
  const nameLine = format === 'TD1' ? lines[2] : lines[0];
  return {
    format,
    valid: result.valid,
    invalidFields: [...new Set(result.details.filter((d) => !d.valid).map((d) => d.field as string))],
    documentCode: f.documentCode ?? null,
    issuingState: f.issuingState ?? null,
    surnames: f.lastName ?? null,
    givenNames: f.firstName ?? null,
    expirationDate: f.expirationDate ?? null,
    nameTruncated: !nameLine.endsWith('<'),
    corrected: result.details.reduce((n, d) => n + d.autocorrect.length, 0),
  };
}
