// Signature dictionaries the file holds that no signature field of its form leads to: a field tree
// that loops (a field whose /Kids name itself or its own widget), cross-references a reader had to
// rebuild, a field that is not typed /Sig, a certification signature only /Perms names. Reading the
// form alone would report such a file as "no signature, intact" (a validator that skips what it
// cannot reach accepts anything behind it). Every signature dictionary found is a fact of the file:
// each is found by scanning the bytes for /ByteRange and /Type /Sig, taken as the file as it ends
// defines that object, and checked like any other; what it cannot pass makes it invalid.
import { type PDF, PdfDict, PdfName, PdfRef, PdfString, type PDFPage } from '@libpdf/core';
import { latin1Of, revisionEnds } from '../pdf-revisions.js';
import { type PdfSignature, type ReadSignaturesOptions, readSignatureDictionary } from '../read-signatures.js';
import { VerifyLimitError, objectAt } from './revision-diff.js';

/** Signature dictionaries read from one file beyond its form; more is refused (a 422), never cut short. */
export const MAX_UNLISTED = 100;

/** Where each "N G obj" header starts (with its object number) and where each "endobj" does, in file order. */
interface ObjectMarks {
  starts: number[];
  numbers: number[];
  ends: number[];
}

function objectMarks(text: string): ObjectMarks {
  const starts: number[] = [];
  const numbers: number[] = [];
  // Bounded and anchored at the start of a number: a /Contents of zeros is one long run of digits,
  // which an unanchored pattern would retry from every one of them.
  const header = /(?<![0-9])(\d{1,10})\s+\d{1,5}\s+obj\b/g;
  for (let m = header.exec(text); m; m = header.exec(text)) {
    starts.push(m.index);
    numbers.push(Number(m[1]));
  }
  const ends: number[] = [];
  for (let at = text.indexOf('endobj'); at >= 0; at = text.indexOf('endobj', at + 6)) {
    ends.push(at);
  }
  return { starts, numbers, ends };
}

/** Index of the last of the ascending `values` below `at`, -1 when none is. */
function lastBelow(values: readonly number[], at: number): number {
  let lo = 0;
  let hi = values.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid] < at) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/**
 * The object whose text holds offset `at`: the last header before it, with no endobj between. Both
 * are looked up in the marks found once: searching the text from each hit for the next endobj made a
 * file of many /ByteRange and no endobj cost the square of its size (under 1 MB held a worker for
 * minutes).
 */
function enclosing(marks: ObjectMarks, at: number): number | null {
  const h = lastBelow(marks.starts, at);
  if (h < 0) {
    return null;
  }
  // The first endobj at or after the header: one before `at` closes the object before the hit.
  const end = lastBelow(marks.ends, marks.starts[h]) + 1;
  return end < marks.ends.length && marks.ends[end] < at ? null : marks.numbers[h];
}

/** A dictionary that is a signature made: typed /Sig or /DocTimeStamp with a range or contents, or both keys. */
function isSignatureDictionary(d: PdfDict): boolean {
  const type = d.get('Type');
  const typed = type instanceof PdfName && (type.value === 'Sig' || type.value === 'DocTimeStamp');
  const range = d.has('ByteRange');
  const contents = d.has('Contents');
  return typed ? range || contents : range && contents;
}

/** Object numbers the catalog's /Perms names as usage rights (/UR, /UR3): Adobe's, not a document signature (§12.8.2.3). */
function usageRights(pdf: PDF): Set<number> {
  const out = new Set<number>();
  const root = pdf.context.info.trailer.get('Root');
  const catalog = root instanceof PdfRef ? objectAt(pdf, root.objectNumber) : null;
  const permsObj = catalog instanceof PdfDict ? catalog.get('Perms') : undefined;
  const perms = permsObj instanceof PdfRef ? objectAt(pdf, permsObj.objectNumber) : permsObj;
  if (perms instanceof PdfDict) {
    for (const key of ['UR', 'UR3']) {
      const v = perms.get(key);
      if (v instanceof PdfRef) {
        out.add(v.objectNumber);
      }
    }
  }
  return out;
}

/** The field whose /V names dictionary `n`, as the file as it ends defines it: its name and the field as widget. */
function fieldOf(pdf: PDF, text: string, marks: ObjectMarks, n: number): { name: string; dict: PdfDict; ref: PdfRef } | null {
  const value = new RegExp(`/V\\s*${n}\\s+\\d+\\s+R\\b`, 'g');
  for (let m = value.exec(text); m; m = value.exec(text)) {
    const f = enclosing(marks, m.index);
    const dict = f === null ? null : objectAt(pdf, f);
    const v = dict instanceof PdfDict ? dict.get('V') : undefined;
    if (f !== null && dict instanceof PdfDict && v instanceof PdfRef && v.objectNumber === n) {
      const t = dict.get('T');
      return { name: t instanceof PdfString ? t.asString() : '', dict, ref: PdfRef.of(f, 0) };
    }
  }
  return null;
}

/**
 * The signature dictionaries of `pdf` (the file as it ends) not among `known` (those the form and
 * the earlier revisions already gave), each checked as readSignatureDictionary checks one. `file`
 * is the file as text and its revision ends when the caller has them already.
 */
export async function unlistedSignatures(
  pdf: PDF,
  bytes: Uint8Array,
  known: ReadonlySet<number | null>,
  opts: ReadSignaturesOptions,
  file: { text: string; ends: number[] } = { text: latin1Of(bytes), ends: revisionEnds(bytes) },
): Promise<PdfSignature[]> {
  const { text } = file;
  const hits = /\/ByteRange\b|\/Type\s*\/(?:Sig|DocTimeStamp)(?![A-Za-z0-9#._-])/g;
  if (!hits.test(text)) {
    return [];
  }
  hits.lastIndex = 0;
  const marks = objectMarks(text);
  const rights = usageRights(pdf);
  const candidates = new Set<number>();
  // One hit at a time: a file of millions of them is never held as a list.
  for (let hit = hits.exec(text); hit; hit = hits.exec(text)) {
    const n = enclosing(marks, hit.index);
    if (n !== null && !known.has(n) && !rights.has(n)) {
      candidates.add(n);
    }
  }
  let pages: PDFPage[] = [];
  try {
    pages = pdf.getPages();
  } catch {
    // no page tree to place them on: they are still judged
  }
  const context = { pdf, bytes, pages, ends: file.ends, opts };
  const out: PdfSignature[] = [];
  for (const n of candidates) {
    const dict = objectAt(pdf, n);
    if (!(dict instanceof PdfDict) || !isSignatureDictionary(dict)) {
      continue; // an earlier version of an object the file now defines otherwise, or no signature
    }
    if (out.length >= MAX_UNLISTED) {
      throw new VerifyLimitError(`the file holds more than ${MAX_UNLISTED} signature dictionaries no signature field leads to`);
    }
    const field = fieldOf(pdf, text, marks, n);
    out.push(
      await readSignatureDictionary(context, {
        dict,
        dictionaryNumber: n,
        fieldName: field?.name || `signature dictionary ${n}`,
        widgets: field ? [{ ref: field.ref, dict: field.dict }] : [],
      }),
    );
  }
  return out;
}
