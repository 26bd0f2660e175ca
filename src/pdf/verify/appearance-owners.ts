// Whose an appearance object is: the widget or annotation that alone uses it, or nobody's when
// anything else of the revision (the trailer, the catalog, a page, another annotation) refers to
// it too. A field's own appearance may be rewritten when it is filled or signed (pyHanko's
// in-place appearance update); one shared with another context may not, or the update would
// redraw that other place as well (pyHanko refuses an /AP dictionary used in more than one).
import { type PDF, PdfArray, PdfDict, type PdfObject, PdfRef, PdfStream } from '@libpdf/core';
import type { DocumentFacts } from './document-facts.js';
import { MAX_DEPTH, objectAt, sameObject } from './revision-diff.js';

const resolve = (pdf: PDF, o: PdfObject | undefined | null): PdfObject | null =>
  o instanceof PdfRef ? objectAt(pdf, o.objectNumber) : (o ?? null);

/** Who refers to each object of a revision: object numbers, 0 for the trailer. */
const referrerCache = new WeakMap<DocumentFacts, Map<number, Set<number>>>();
export function referrers(facts: DocumentFacts): Map<number, Set<number>> {
  const cached = referrerCache.get(facts);
  if (cached) {
    return cached;
  }
  const pdf = facts.view.pdf;
  const out = new Map<number, Set<number>>();
  const note = (from: number, o: PdfObject | undefined, depth: number) => {
    if (depth > MAX_DEPTH || o === undefined) {
      return;
    }
    if (o instanceof PdfRef) {
      let set = out.get(o.objectNumber);
      if (!set) {
        set = new Set();
        out.set(o.objectNumber, set);
      }
      set.add(from);
    } else if (o instanceof PdfArray) {
      for (const x of o.toArray()) {
        note(from, x, depth + 1);
      }
    } else if (o instanceof PdfDict) {
      for (const [, v] of o) {
        note(from, v, depth + 1);
      }
    }
  };
  note(0, pdf.context.info.trailer, 0);
  for (const n of facts.reachable) {
    note(n, objectAt(pdf, n) ?? undefined, 0);
  }
  referrerCache.set(facts, out);
  return out;
}

/**
 * The widget or annotation that alone owns object `n` of an appearance: n is referred to by one
 * object only, and so on up (through an appearance dictionary or a state dictionary) to it. Null when
 * anything else (the trailer, the catalog, a page, another annotation) also uses it.
 */
export function soleOwner(facts: DocumentFacts, n: number): number | null {
  const refs = referrers(facts);
  let at = n;
  for (let hop = 0; hop < 3; hop++) {
    const from = refs.get(at);
    if (from?.size !== 1) {
      return null;
    }
    const [parent] = from;
    if (facts.widgets.has(parent) || facts.annotations.has(parent)) {
      return parent;
    }
    if (parent === 0 || facts.pages.has(parent) || facts.fields.has(parent) || parent === facts.catalog) {
      return null;
    }
    at = parent;
  }
  return null;
}

/**
 * The objects of a widget's signed appearance that the update rewrote or let go: the /AP
 * dictionary when the widget now points elsewhere or it was rewritten, and the state dictionaries
 * and streams rewritten in place. A state merely switched (/AS) rewrites nothing.
 */
export function replacedAppearance(before: DocumentFacts, after: DocumentFacts, was: PdfDict, now: PdfDict): number[] {
  const pdf = before.view.pdf;
  const rewritten = (n: number) => !sameObject(objectAt(pdf, n), objectAt(after.view.pdf, n));
  const out: number[] = [];
  const ap = was.get('AP');
  if (ap instanceof PdfRef && (!sameObject(ap, now.get('AP')) || rewritten(ap.objectNumber))) {
    out.push(ap.objectNumber);
  }
  return [...out, ...appearanceObjects(pdf, was).filter(rewritten)];
}

/** The objects below a widget's /AP dictionary: its state dictionaries and streams. */
function appearanceObjects(pdf: PDF, widget: PdfDict): number[] {
  const out: number[] = [];
  const ap = widget.get('AP');
  const apd = resolve(pdf, ap);
  for (const key of ['N', 'R', 'D']) {
    const v = apd instanceof PdfDict ? apd.get(key) : undefined;
    if (v instanceof PdfRef) {
      out.push(v.objectNumber);
    }
    const vd = resolve(pdf, v);
    if (vd instanceof PdfDict && !(vd instanceof PdfStream)) {
      for (const [, s] of vd) {
        if (s instanceof PdfRef) {
          out.push(s.objectNumber);
        }
      }
    }
  }
  return out;
}
