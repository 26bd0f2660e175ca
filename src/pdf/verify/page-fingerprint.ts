// What each page of one revision shows, as values that compare across revisions: a fingerprint
// of the page's own drawing (every key but its annotations and back-links, the inheritable
// attributes resolved, references followed to the bytes of every stream they reach) and, for
// each annotation, its rectangle, flags, field and a fingerprint of the appearance it shows.
// page-view.ts compares them; two revisions that draw a page alike have equal fingerprints
// whatever object numbers or cross-reference sections they used.
import { createHash } from 'node:crypto';
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject, PdfRef, PdfStream, PdfString } from '@libpdf/core';
import { type Box, boxOf } from './boxes.js';
import type { DocumentFacts } from './document-facts.js';
import { MAX_DEPTH, objectAt, VerifyLimitError } from './revision-diff.js';

const BACK_LINKS = new Set(['Parent', 'P', 'Annots']);
/** Objects and values read to fingerprint one revision's pages. */
const MAX_VISITS = 5_000_000;
const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'];

export interface AnnotView {
  n: number;
  dict: PdfDict;
  rect: Box | null;
  flags: number;
  /** The field the widget belongs to (object number), when it is one. */
  field: number | null;
  /** The appearance stream shown (/AP /N, by /AS when it has states). */
  shown: PdfStream | null;
  /** Fingerprint of the shown appearance, references followed. */
  appearance: string;
}

export interface PageView {
  n: number;
  index: number;
  dict: PdfDict;
  resources: PdfDict | null;
  content: string;
  annots: Map<number, AnnotView>;
}

const resolve = (pdf: PDF, o: PdfObject | undefined | null): PdfObject | null =>
  o instanceof PdfRef ? objectAt(pdf, o.objectNumber) : (o ?? null);
const sha = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** Deep fingerprints of one revision's objects, references followed (each object hashed once). */
const fingerprinters = new WeakMap<DocumentFacts, (o: PdfObject | null | undefined) => string>();
export function fingerprinter(facts: DocumentFacts): (o: PdfObject | null | undefined) => string {
  const known = fingerprinters.get(facts);
  if (known) {
    return known;
  }
  const walker = new FingerprintWalk(facts.view.pdf);
  const fp = (o: PdfObject | null | undefined) => walker.walk(o, 0);
  fingerprinters.set(facts, fp);
  return fp;
}

class FingerprintWalk {
  private readonly memo = new Map<number, string>();
  private readonly open = new Set<number>();
  private cycles = 0;
  private visits = 0;

  constructor(private readonly pdf: PDF) {}

  walk(o: PdfObject | null | undefined, depth: number): string {
    if (depth > MAX_DEPTH) {
      throw new VerifyLimitError(`objects nest deeper than ${MAX_DEPTH} levels`);
    }
    if (o === null || o === undefined) {
      return 'null';
    }
    if (++this.visits > MAX_VISITS) {
      throw new VerifyLimitError(`the pages reach more than ${MAX_VISITS} objects`);
    }
    if (o instanceof PdfRef) {
      return this.walkRef(o.objectNumber);
    }
    if (o instanceof PdfStream) {
      // The bytes as stored, with their filters: nothing is inflated to be compared, and the same
      // drawing compressed anew counts as changed, as any rewritten signed stream does.
      return `#${sha(`stream${this.walkDict(o, depth)}${sha(o.data)}`)}`;
    }
    if (o instanceof PdfDict) {
      return `#${sha(this.walkDict(o, depth))}`;
    }
    if (o instanceof PdfArray) {
      const items = o.toArray().map((x) => this.walk(x, depth + 1));
      return `#${sha(`[${items.join(' ')}]`)}`;
    }
    return directValue(o);
  }

  private walkRef(n: number): string {
    const done = this.memo.get(n);
    if (done !== undefined) {
      return done;
    }
    if (this.open.has(n)) {
      this.cycles++;
      // A cycle reads as how far up the reading it returns, not as an object number: a copy
      // that names itself reads as the original that named itself.
      return `@${[...this.open].indexOf(n)}`;
    }
    const seen = this.cycles;
    this.open.add(n);
    // A reference reads as the value it names, hashed as a direct value is (§7.3.10).
    const h = this.walk(objectAt(this.pdf, n), 0);
    this.open.delete(n);
    // What was read through a cycle depends on where the reading entered it: not kept.
    if (this.cycles === seen) {
      this.memo.set(n, h);
    }
    return h;
  }

  private walkDict(d: PdfDict, depth: number): string {
    const keys = [...d.keys()]
      .map((k) => k.value)
      .filter((k) => !BACK_LINKS.has(k) && k !== 'Length')
      .sort();
    return `<<${keys.map((k) => `/${k} ${this.walk(d.get(k), depth + 1)}`).join(' ')}>>`;
  }
}

/** Strings, names, numbers, booleans and null, as written. */
function directValue(o: PdfObject): string {
  if (o instanceof PdfString) {
    return `(${Buffer.from(o.bytes).toString('hex')})`;
  }
  if (o instanceof PdfName) {
    return `/${o.value}`;
  }
  if (o instanceof PdfNumber) {
    return String(o.value);
  }
  return String((o as { value?: unknown }).value ?? o.constructor.name);
}

/** An inheritable page attribute (§7.7.3.4): from the page or the nearest node of the tree above it. */
function inherited(pdf: PDF, page: PdfDict, key: string): PdfObject | undefined {
  let node: PdfDict | null = page;
  for (let i = 0; node && i < MAX_DEPTH; i++) {
    const v = node.get(key);
    if (v !== undefined) {
      return v;
    }
    const parent = resolve(pdf, node.get('Parent'));
    node = parent instanceof PdfDict ? parent : null;
  }
  return undefined;
}

/** The appearance stream an annotation shows: /AP /N, or its state named by /AS. */
function shownAppearance(pdf: PDF, annot: PdfDict): PdfStream | null {
  const ap = resolve(pdf, annot.get('AP'));
  const n = ap instanceof PdfDict ? resolve(pdf, ap.get('N')) : null;
  if (n instanceof PdfStream) {
    return n;
  }
  if (n instanceof PdfDict) {
    const as = resolve(pdf, annot.get('AS'));
    const state = as instanceof PdfName ? resolve(pdf, n.get(as.value)) : null;
    return state instanceof PdfStream ? state : null;
  }
  return null;
}

export function pageViews(facts: DocumentFacts, fp: (o: PdfObject | null | undefined) => string): Map<number, PageView> {
  const pdf = facts.view.pdf;
  const views = new Map<number, PageView>();
  for (const [n, index] of facts.pages) {
    const dict = objectAt(pdf, n);
    if (!(dict instanceof PdfDict)) {
      continue;
    }
    const own = [...dict.keys()].map((k) => k.value).filter((k) => !BACK_LINKS.has(k) && !INHERITED.includes(k));
    const content = [
      ...own.sort().map((k) => `/${k} ${fp(dict.get(k))}`),
      ...INHERITED.map((k) => `/${k} ${fp(inherited(pdf, dict, k) ?? null)}`),
    ].join(' ');
    const res = resolve(pdf, inherited(pdf, dict, 'Resources'));
    const annots = new Map<number, AnnotView>();
    const list = resolve(pdf, dict.get('Annots'));
    for (const a of list instanceof PdfArray ? list.toArray() : []) {
      const d = resolve(pdf, a);
      if (!(a instanceof PdfRef) || !(d instanceof PdfDict)) {
        continue;
      }
      const flags = resolve(pdf, d.get('F'));
      const shown = shownAppearance(pdf, d);
      annots.set(a.objectNumber, {
        n: a.objectNumber,
        dict: d,
        rect: boxOf(pdf, d.get('Rect')),
        flags: flags instanceof PdfNumber ? flags.value : 0,
        field: facts.widgets.get(a.objectNumber) ?? null,
        shown,
        appearance: shown ? fp(shown) : 'none',
      });
    }
    views.set(n, { n, index, dict, resources: res instanceof PdfDict ? res : null, content, annots });
  }
  return views;
}
