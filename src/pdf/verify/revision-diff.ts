// What each revision of a PDF changed: every object it added, changed or removed, found by reading
// the file as it stood at the end of each revision (a prefix of the bytes: PDF 32000-1 §7.5.6) and
// comparing the objects one by one. Comparing values rather than trusting what each update's
// cross-reference section claims is deliberate: a shadow attack (Mainka et al., 2021) can point an
// object number at bytes written before the signature, which a section-by-section reading of the
// update would never see as a change. Bounded: a file with too many revisions or objects, or nested
// too deeply, is refused with VerifyLimitError instead of being read for minutes.
import {
  type PDF,
  PdfArray,
  PdfBool,
  PdfDict,
  PdfName,
  PdfNull,
  PdfNumber,
  type PdfObject,
  PdfRef,
  PdfStream,
  PdfString,
} from '@libpdf/core';
import { loadAsReaders } from '../encrypted-pdf.js';

/** The file is beyond what the verifier reads (revisions, objects, nesting): a 422, never a hang. */
export class VerifyLimitError extends Error {
  override name = 'VerifyLimitError';
}

/** Revisions a file may have for verification. */
export const MAX_REVISIONS = 100;
/** Object numbers a revision may declare (trailer /Size). */
export const MAX_OBJECTS = 1_000_000;
/** Nesting of direct arrays and dictionaries followed. */
export const MAX_DEPTH = 64;

export type ChangeKind = 'added' | 'changed' | 'removed';

export interface ObjectChange {
  objectNumber: number;
  kind: ChangeKind;
}

/** One revision as read from the prefix of the file that ends with it. */
export interface RevisionView {
  /** 1-based. */
  revision: number;
  end: number;
  pdf: PDF;
  /** The reader had to rebuild the cross-references: what this revision is depends on the reader. */
  repaired: boolean;
  size: number;
}

export const objectAt = (pdf: PDF, n: number): PdfObject | null => {
  try {
    return pdf.getObject(PdfRef.of(n, 0)) ?? null;
  } catch {
    return null;
  }
};

/** Loads the file as it stood at the end of every revision. */
export async function loadRevisions(bytes: Uint8Array, ends: number[]): Promise<RevisionView[]> {
  if (ends.length > MAX_REVISIONS) {
    throw new VerifyLimitError(`the file has ${ends.length} revisions; at most ${MAX_REVISIONS} are verified`);
  }
  const views: RevisionView[] = [];
  for (const [i, end] of ends.entries()) {
    let pdf: PDF;
    try {
      pdf = await loadAsReaders(bytes.subarray(0, end));
    } catch {
      continue; // a prefix that is no PDF is no revision a reader shows; the later ones are checked
    }
    // The objects the cross-references hold, whatever the trailer's /Size says: an update that
    // declares /Size 1 still shows every object before it, and may not hide the ones it adds.
    const declared = pdf.context.info.trailer.getNumber('Size')?.value ?? 0;
    const size = Math.max(declared, pdf.context.registry.nextObjectNumber);
    if (!Number.isSafeInteger(size) || size > MAX_OBJECTS) {
      throw new VerifyLimitError(`revision ${i + 1} declares ${size} objects; at most ${MAX_OBJECTS} are verified`);
    }
    views.push({ revision: i + 1, end, pdf, repaired: pdf.recoveredViaBruteForce, size });
  }
  return views;
}

/** Deep equality of two parsed objects, references compared by number (not followed). */
export function sameObject(a: PdfObject | null | undefined, b: PdfObject | null | undefined, depth = 0): boolean {
  if (depth > MAX_DEPTH) {
    throw new VerifyLimitError(`objects nest deeper than ${MAX_DEPTH} levels`);
  }
  if (a === b) {
    return true;
  }
  if (!a || !b) {
    return (!a || a instanceof PdfNull) && (!b || b instanceof PdfNull);
  }
  if (a instanceof PdfRef || b instanceof PdfRef) {
    return a instanceof PdfRef && b instanceof PdfRef && a.objectNumber === b.objectNumber && a.generation === b.generation;
  }
  if (a instanceof PdfName || a instanceof PdfNumber || a instanceof PdfBool) {
    return a.constructor === b.constructor && (a as PdfName).value === (b as PdfName).value;
  }
  if (a instanceof PdfString) {
    return b instanceof PdfString && Buffer.from(a.bytes).equals(Buffer.from(b.bytes));
  }
  return sameContainer(a, b, (x, y) => sameObject(x, y, depth + 1)) ?? a.constructor === b.constructor;
}

/**
 * Arrays element by element and dictionaries entry by entry (a stream's data too), their members
 * compared by `same`; undefined when `a` is neither, for the caller to compare as a value.
 */
function sameContainer(
  a: PdfObject,
  b: PdfObject,
  same: (x: PdfObject | null | undefined, y: PdfObject | null | undefined) => boolean,
): boolean | undefined {
  if (a instanceof PdfArray) {
    const x = a.toArray();
    const y = b instanceof PdfArray ? b.toArray() : null;
    return !!y && x.length === y.length && x.every((v, i) => same(v, y[i]));
  }
  if (a instanceof PdfDict) {
    if (!(b instanceof PdfDict) || a instanceof PdfStream !== b instanceof PdfStream || a.size !== b.size) {
      return false;
    }
    for (const [key, value] of a) {
      if (!same(value, b.get(key))) {
        return false;
      }
    }
    return !(a instanceof PdfStream) || Buffer.from(a.data).equals(Buffer.from((b as PdfStream).data));
  }
  return undefined;
}

/** Objects a resolved comparison may visit before it stops and calls the two values different. */
export const MAX_RESOLVED_NODES = 20_000;

/**
 * Deep equality of two values each read in its own revision, references followed: an update that
 * points an entry at a new object holding a copy of the old one changes nothing a reader sees.
 * References to the same object number count as equal (that object's own change, if any, is
 * judged as a change of its own). Cycle-safe (a pair being compared is assumed equal while its
 * parts are) and bounded: past MAX_RESOLVED_NODES the values count as different, never as equal.
 * `copies` receives the later revision's object numbers found to be copies of earlier objects.
 */
export function sameResolved(
  pdfA: PDF,
  a: PdfObject | null | undefined,
  pdfB: PDF,
  b: PdfObject | null | undefined,
  copies: Set<number> = new Set(),
): boolean {
  const assumed = new Set<string>();
  const found = new Set<number>();
  let budget = MAX_RESOLVED_NODES;
  const same = (x: PdfObject | null | undefined, y: PdfObject | null | undefined, depth: number): boolean => {
    if (--budget < 0 || depth > MAX_DEPTH) {
      return false;
    }
    if (x instanceof PdfRef && y instanceof PdfRef && x.objectNumber === y.objectNumber && x.generation === y.generation) {
      return true;
    }
    if (x instanceof PdfRef || y instanceof PdfRef) {
      // A direct value and a reference to the same value read alike (PDF 32000-1 §7.3.10).
      // Only a pair of references is assumed equal while compared: the cycles run through them.
      const pair = x instanceof PdfRef && y instanceof PdfRef ? `${x.objectNumber} ${y.objectNumber}` : null;
      if (pair !== null && assumed.has(pair)) {
        return true;
      }
      if (pair !== null) {
        assumed.add(pair);
      }
      const at = (pdf: PDF, o: PdfObject | null | undefined) => (o instanceof PdfRef ? objectAt(pdf, o.objectNumber) : o);
      const equal = same(at(pdfA, x), at(pdfB, y), x instanceof PdfRef && y instanceof PdfRef ? 0 : depth + 1);
      if (equal && y instanceof PdfRef) {
        found.add(y.objectNumber);
      }
      return equal;
    }
    if (!x || !y) {
      return (!x || x instanceof PdfNull) && (!y || y instanceof PdfNull);
    }
    return sameContainer(x, y, (u, v) => same(u, v, depth + 1)) ?? sameObject(x, y);
  };
  const equal = same(a, b, 0);
  if (equal) {
    for (const n of found) {
      copies.add(n);
    }
  }
  return equal;
}

/**
 * The keys whose values differ between two versions of a dictionary. Given the two revisions, an
 * entry re-pointed at an identical copy of what it named is no change (sameResolved).
 */
export function changedKeys(a: PdfDict, b: PdfDict, pdfs?: { before: PDF; after: PDF }): string[] {
  const keys = new Set([...[...a.keys()].map((k) => k.value), ...[...b.keys()].map((k) => k.value)]);
  const changed = [...keys].filter(
    (k) => !sameObject(a.get(k), b.get(k)) && !(pdfs && sameResolved(pdfs.before, a.get(k), pdfs.after, b.get(k))),
  );
  if (a instanceof PdfStream && b instanceof PdfStream && !Buffer.from(a.data).equals(Buffer.from(b.data))) {
    changed.push('(stream data)');
  }
  return changed;
}

/** Every object the later revision added, changed or removed compared with the earlier one. */
export function diffRevisions(before: RevisionView, after: RevisionView): ObjectChange[] {
  const changes: ObjectChange[] = [];
  const top = Math.max(before.size, after.size);
  for (let n = 1; n < top; n++) {
    const a = n < before.size ? objectAt(before.pdf, n) : null;
    const b = n < after.size ? objectAt(after.pdf, n) : null;
    const absentA = !a || a instanceof PdfNull;
    const absentB = !b || b instanceof PdfNull;
    if (absentA && absentB) {
      continue;
    }
    if (absentA) {
      changes.push({ objectNumber: n, kind: 'added' });
    } else if (absentB) {
      changes.push({ objectNumber: n, kind: 'removed' });
    } else if (!sameObject(a, b) && !sameResolved(before.pdf, a, after.pdf, b)) {
      changes.push({ objectNumber: n, kind: 'changed' });
    }
  }
  return changes;
}

/**
 * Object numbers reachable from `roots`, following references through arrays, dictionaries and
 * stream dictionaries. Iterative, so a deep chain of references cannot exhaust the stack.
 */
export function reachable(pdf: PDF, roots: (PdfObject | undefined | null)[], skipKeys: ReadonlySet<string> = new Set()): Set<number> {
  const seen = new Set<number>();
  const stack: { obj: PdfObject; depth: number }[] = roots.filter((r): r is PdfObject => !!r).map((obj) => ({ obj, depth: 0 }));
  while (stack.length > 0) {
    const { obj, depth } = stack.pop()!;
    if (obj instanceof PdfRef) {
      if (seen.has(obj.objectNumber)) {
        continue;
      }
      seen.add(obj.objectNumber);
      const target = objectAt(pdf, obj.objectNumber);
      if (target) {
        stack.push({ obj: target, depth: 0 });
      }
    } else if (depth > MAX_DEPTH) {
      throw new VerifyLimitError(`objects nest deeper than ${MAX_DEPTH} levels`);
    } else if (obj instanceof PdfArray) {
      for (const item of obj) {
        stack.push({ obj: item, depth: depth + 1 });
      }
    } else if (obj instanceof PdfDict) {
      for (const [key, value] of obj) {
        if (!skipKeys.has(key.value)) {
          stack.push({ obj: value, depth: depth + 1 });
        }
      }
    }
  }
  return seen;
}
