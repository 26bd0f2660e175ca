// What each page shows, compared before and after a revision: the one rule over every later
// update, whatever objects it wrote. A page shows its own drawing (content streams with the
// resources, XObjects and fonts they use, its boxes and rotation) and its annotations (each with
// its rectangle, its flags and the appearance it draws). After a signature, a revision may fill in
// fields, sign, and (where allowed) add annotations: ISO 32000-2 §12.8.2.2, and pyHanko's and EU
// DSS's difference analyses. It may never:
// - change what a page itself draws, by any path (a replaced stream, font or XObject, a resource
//   pointed elsewhere: the shadow attacks of Mainka et al., 2021);
// - move an existing annotation or widget, hide it, or redraw an annotation that is no form field;
// - redraw a field's widget without filling it in or signing it: the value stays, the picture
//   changes (the "replace" shadow attack, where the signed appearance disagrees with the value);
// - replace an appearance the signed revision used elsewhere too (pyHanko refuses an /AP
//   dictionary or stream shared with another context: the update would redraw that one as well);
// - paint, in a filled or new widget, an opaque area over what the signed page showed beneath it
//   (the "replace via overlay" shadow attack and the sneaky signature: a box that fills its
//   rectangle draws text in it; one that covers hides signed content).
// Each breach is a change of category 'other', which no signature allows.
import { createHash } from 'node:crypto';
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject, PdfRef, PdfStream, PdfString } from '@libpdf/core';
import type { ClassifiedChange } from './change-rules.js';
import { appearanceMarks, area, type Box, boxOf, contains, intersect, type Marks, markBudget, pageContentMarks } from './content-marks.js';
import type { DocumentFacts } from './document-facts.js';
import { MAX_DEPTH, objectAt, sameObject, VerifyLimitError } from './revision-diff.js';

/** Flags that take an annotation off the screen: Invisible, Hidden, NoView (§12.5.3). */
const HIDING_FLAGS = 1 | 2 | 32;
/** Overlap, in square points, below which an opaque box only touches what lies beside it. */
const COVER_MIN_AREA = 4;
const BACK_LINKS = new Set(['Parent', 'P', 'Annots']);
/** Objects and values read to fingerprint one revision's pages. */
const MAX_VISITS = 5_000_000;
const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'];

interface AnnotView {
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

interface PageView {
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
function fingerprinter(facts: DocumentFacts): (o: PdfObject | null | undefined) => string {
  const known = fingerprinters.get(facts);
  if (known) {
    return known;
  }
  const pdf = facts.view.pdf;
  const memo = new Map<number, string>();
  const open = new Set<number>();
  let cycles = 0;
  let visits = 0;
  const walk = (o: PdfObject | null | undefined, depth: number): string => {
    if (depth > MAX_DEPTH) {
      throw new VerifyLimitError(`objects nest deeper than ${MAX_DEPTH} levels`);
    }
    if (o === null || o === undefined) {
      return 'null';
    }
    if (++visits > MAX_VISITS) {
      throw new VerifyLimitError(`the pages reach more than ${MAX_VISITS} objects`);
    }
    if (o instanceof PdfRef) {
      const n = o.objectNumber;
      const done = memo.get(n);
      if (done !== undefined) {
        return done;
      }
      if (open.has(n)) {
        cycles++;
        return `@${n}`; // a cycle reads as the reference itself
      }
      const seen = cycles;
      open.add(n);
      const h = `#${sha(walk(objectAt(pdf, n), 0))}`;
      open.delete(n);
      // What was read through a cycle depends on where the reading entered it: not kept.
      if (cycles === seen) {
        memo.set(n, h);
      }
      return h;
    }
    if (o instanceof PdfStream) {
      // The bytes as stored, with their filters: nothing is inflated to be compared, and the same
      // drawing compressed anew counts as changed, as any rewritten signed stream does.
      return `stream${walkDict(o, depth)}${sha(o.data)}`;
    }
    if (o instanceof PdfDict) {
      return walkDict(o, depth);
    }
    if (o instanceof PdfArray) {
      return `[${o
        .toArray()
        .map((x) => walk(x, depth + 1))
        .join(' ')}]`;
    }
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
  };
  const walkDict = (d: PdfDict, depth: number) => {
    const keys = [...d.keys()]
      .map((k) => k.value)
      .filter((k) => !BACK_LINKS.has(k) && k !== 'Length')
      .sort();
    return `<<${keys.map((k) => `/${k} ${walk(d.get(k), depth + 1)}`).join(' ')}>>`;
  };
  const fp = (o: PdfObject | null | undefined) => walk(o, 0);
  fingerprinters.set(facts, fp);
  return fp;
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

function pageViews(facts: DocumentFacts, fp: (o: PdfObject | null | undefined) => string): Map<number, PageView> {
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
function replacedAppearance(before: DocumentFacts, after: DocumentFacts, was: PdfDict, now: PdfDict): number[] {
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

/**
 * The first opaque box of `now` (drawn in `rect`) that `before` did not already paint, over ink of
 * `beneath`. Marks the budget cut short count against the change: the new appearance as opaque
 * over its whole rectangle, the old one as hiding nothing.
 */
function coverOver(now: Marks, rect: Box, before: Marks | null, beneath: Box[]): Box | null {
  const opaque = now.exhausted ? [rect] : now.opaque;
  for (const box of opaque) {
    if (!before?.exhausted && before?.opaque.some((o) => contains(o, box))) {
      continue; // the signed appearance already hid what lies there
    }
    for (const ink of beneath) {
      const hit = intersect(box, ink);
      if (hit && area(hit) > COVER_MIN_AREA) {
        return hit;
      }
    }
  }
  return null;
}

const shownOnScreen = (a: AnnotView) => (a.flags & HIDING_FLAGS) === 0 && a.rect !== null;

/** Every way a revision changed what a page shows beyond filling in and signing, as disallowed changes. */
export function shownChanges(
  before: DocumentFacts,
  after: DocumentFacts,
): { drawing: ClassifiedChange[]; annotations: ClassifiedChange[] } {
  const pdfA = before.view.pdf;
  const pdfB = after.view.pdf;
  const fpA = fingerprinter(before);
  const fpB = fingerprinter(after);
  const viewsA = pageViews(before, fpA);
  const viewsB = pageViews(after, fpB);
  const revision = after.view.revision;
  // One budget for every stream measured in this comparison: past it, everything counts as marked.
  const budget = markBudget();
  const drawing: ClassifiedChange[] = [];
  const out: ClassifiedChange[] = [];
  const other = (objectNumber: number, description: string, field?: string, attack?: ClassifiedChange['attack']) =>
    out.push({
      revision,
      objectNumber,
      kind: 'changed',
      category: 'other',
      description,
      ...(field ? { field } : {}),
      ...(attack ? { attack } : {}),
    });
  // Annotations that are no form field's widget are comments, which a certification at level 3
  // allows to create and modify (§12.8.2.2): their changes are named 'annotation', not 'other'.
  const comment = (objectNumber: number, description: string, field?: string) =>
    out.push({ revision, objectNumber, kind: 'changed', category: 'annotation', description, ...(field ? { field } : {}) });
  const fieldName = (facts: DocumentFacts, a: AnnotView) => (a.field !== null ? facts.fields.get(a.field)?.name : undefined);
  const fieldValue = (facts: DocumentFacts, fp: typeof fpA, field: number | null) => {
    const d = field === null ? null : objectAt(facts.view.pdf, field);
    return d instanceof PdfDict ? fp(d.get('V')) : 'null';
  };

  for (const [n, b] of viewsB) {
    const a = viewsA.get(n);
    if (!a) {
      continue; // a page added or moved: the page tree changed, which the object rules name
    }
    const page = `page ${b.index + 1}`;
    if (a.content !== b.content) {
      const description = `${page}: what the page itself draws changed (content, resources, XObjects, fonts or boxes)`;
      drawing.push({ revision, objectNumber: n, kind: 'changed', category: 'other', description });
    }
    // What the signed page showed: its drawing and its annotations on screen (computed when needed).
    let beneathCache: { content: Box[]; annots: Map<number, Box[]> } | null = null;
    const beneath = (except: number): Box[] => {
      if (!beneathCache) {
        const annots = new Map<number, Box[]>();
        for (const x of a.annots.values()) {
          if (shownOnScreen(x) && x.shown) {
            annots.set(x.n, appearanceMarks(pdfA, x.shown, x.rect!, budget).ink);
          }
        }
        beneathCache = { content: pageContentMarks(pdfA, a.dict, a.resources, budget).ink, annots };
      }
      return [...beneathCache.content, ...[...beneathCache.annots].filter(([k]) => k !== except).flatMap(([, v]) => v)];
    };

    for (const [m, now] of b.annots) {
      const was = a.annots.get(m);
      const name = fieldName(after, now) ?? fieldName(before, now);
      const what = name !== undefined ? `widget of ${name}` : 'annotation';
      if (!was) {
        if (!shownOnScreen(now) || !now.shown) {
          continue;
        }
        const hit = coverOver(appearanceMarks(pdfB, now.shown, now.rect!, budget), now.rect!, null, beneath(m));
        if (hit && now.field === null) {
          comment(m, `the new annotation on ${page} paints an opaque box over what the signed page showed`);
        } else if (hit) {
          const isSig = after.fields.get(now.field!)?.isSignature;
          other(
            m,
            `the new ${what} on ${page} paints an opaque box over what the signed page showed (${hit.map((x) => Math.round(x)).join(' ')})`,
            name,
            isSig ? 'sneaky-signature' : 'shadow-replace',
          );
        }
        continue;
      }
      const isComment = was.field === null && now.field === null;
      if (
        (was.rect === null) !== (now.rect === null) ||
        (was.rect && now.rect && was.rect.some((v, i) => Math.abs(v - now.rect![i]) > 0.01))
      ) {
        (isComment ? comment : other)(m, `${page}: the ${what} was moved or resized (/Rect)`, name);
        continue;
      }
      if ((was.flags & HIDING_FLAGS) !== (now.flags & HIDING_FLAGS)) {
        (isComment ? comment : other)(m, `${page}: the ${what} was shown or hidden (/F)`, name);
        continue;
      }
      if (was.appearance === now.appearance) {
        continue;
      }
      if (isComment) {
        comment(m, `${page}: the appearance of an existing annotation was redrawn`);
        continue;
      }
      if (now.field === null || was.field === null) {
        other(m, `${page}: the ${what} was redrawn and its field changed`, name);
        continue;
      }
      if (fieldValue(before, fpA, was.field) === fieldValue(after, fpB, now.field)) {
        other(
          m,
          `${page}: the ${what} was redrawn while its value stayed the same (what was signed is shown differently)`,
          name,
          'shadow-replace',
        );
        continue;
      }
      const shared = replacedAppearance(before, after, was.dict, now.dict).filter((o) => soleOwner(before, o) !== m);
      if (shared.length > 0) {
        other(
          m,
          `${page}: the appearance of ${what} was replaced, but the signed revision used it elsewhere too (object ${shared[0]})`,
          name,
        );
        continue;
      }
      if (shownOnScreen(now) && now.shown) {
        const prev = was.shown && was.rect ? appearanceMarks(pdfA, was.shown, was.rect, budget) : null;
        const hit = coverOver(appearanceMarks(pdfB, now.shown, now.rect!, budget), now.rect!, prev, beneath(m));
        if (hit) {
          other(
            m,
            `${page}: the ${what} was filled with an opaque box over what the signed page showed (${hit.map((x) => Math.round(x)).join(' ')})`,
            name,
            'shadow-replace',
          );
        }
      }
    }
  }
  return { drawing, annotations: out };
}
