// What each page shows, compared before and after a revision: the one rule over every later
// update, whatever objects it wrote. A page shows its own drawing (content streams with the
// resources, XObjects and fonts they use, its boxes and rotation) and its annotations (each with
// its rectangle, its flags and the appearance it draws). After a signature, a revision may fill in
// fields, sign, and (where allowed) add annotations: ISO 32000-2 §12.8.2.2, and pyHanko's and EU
// DSS's difference analyses. It may never:
// - change what a page itself draws, by any path (a replaced stream, font or XObject, a resource
//   pointed elsewhere: the shadow attacks of Mainka et al., 2021);
// - move an existing widget or hide it;
// - redraw a field's widget without filling it in or signing it: the value stays, the picture
//   changes (the "replace" shadow attack, where the signed appearance disagrees with the value);
// - replace an appearance the signed revision used elsewhere too (pyHanko refuses an /AP
//   dictionary or stream shared with another context: the update would redraw that one as well);
// - paint, in a filled or new widget, an opaque area over what the signed page showed beneath it
//   (the "replace via overlay" shadow attack and the sneaky signature: a box that fills its
//   rectangle draws text in it; one that covers hides signed content).
// Each breach is a change of category 'other', which no signature allows. An annotation that is no
// form field (a comment) moved, hidden, redrawn or painted over signed content is named
// 'annotation': a certification at level 3 allows comments to be made and changed (§12.8.2.2).
import type { ClassifiedChange } from './change-rules.js';
import { appearanceMarks, type Marks, markBudget, pageContentMarks } from './content-marks.js';
import { area, type Box, contains, intersect } from './boxes.js';
import { replacedAppearance, soleOwner } from './appearance-owners.js';
import type { DocumentFacts } from './document-facts.js';
import { type AnnotView, fingerprinter, pageViews } from './page-fingerprint.js';
import { objectAt } from './revision-diff.js';
import { PdfDict } from '@libpdf/core';

/** Flags that take an annotation off the screen: Invisible, Hidden, NoView (§12.5.3). */
const HIDING_FLAGS = 1 | 2 | 32;
/** Overlap, in square points, below which an opaque box only touches what lies beside it. */
const COVER_MIN_AREA = 4;

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
