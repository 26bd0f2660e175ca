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
  const comparison = new PageComparison(before, after);
  const viewsA = pageViews(before, comparison.fpA);
  for (const [n, b] of pageViews(after, comparison.fpB)) {
    const a = viewsA.get(n);
    if (a) {
      comparison.comparePage(n, a, b);
    } // else a page added or moved: the page tree changed, which the object rules name
  }
  return { drawing: comparison.drawing, annotations: comparison.out };
}

type PageView = ReturnType<typeof pageViews> extends Map<number, infer V> ? V : never;

/** One revision's pages against the signed revision's, and the disallowed changes found. */
class PageComparison {
  readonly fpA: ReturnType<typeof fingerprinter>;
  readonly fpB: ReturnType<typeof fingerprinter>;
  readonly drawing: ClassifiedChange[] = [];
  readonly out: ClassifiedChange[] = [];
  private readonly revision: number;
  // One budget for every stream measured in this comparison: past it, everything counts as marked.
  private readonly budget = markBudget();

  constructor(
    private readonly before: DocumentFacts,
    private readonly after: DocumentFacts,
  ) {
    this.fpA = fingerprinter(before);
    this.fpB = fingerprinter(after);
    this.revision = after.view.revision;
  }

  comparePage(n: number, a: PageView, b: PageView): void {
    const page = `page ${b.index + 1}`;
    if (a.content !== b.content) {
      const description = `${page}: what the page itself draws changed (content, resources, XObjects, fonts or boxes)`;
      this.drawing.push({ revision: this.revision, objectNumber: n, kind: 'changed', category: 'other', description });
    }
    const beneath = this.signedMarks(a);
    for (const [m, now] of b.annots) {
      const was = a.annots.get(m);
      if (was) {
        this.changedAnnotation(page, m, was, now, beneath);
      } else {
        this.newAnnotation(page, m, now, beneath);
      }
    }
  }

  /** What the signed page showed, but annotation `except`: its drawing and its annotations on screen (measured when first needed). */
  private signedMarks(a: PageView): (except: number) => Box[] {
    let cache: { content: Box[]; annots: Map<number, Box[]> } | null = null;
    return (except) => {
      if (!cache) {
        const annots = new Map<number, Box[]>();
        for (const x of a.annots.values()) {
          if (shownOnScreen(x) && x.shown) {
            annots.set(x.n, appearanceMarks(this.before.view.pdf, x.shown, x.rect!, this.budget).ink);
          }
        }
        cache = { content: pageContentMarks(this.before.view.pdf, a.dict, a.resources, this.budget).ink, annots };
      }
      return [...cache.content, ...[...cache.annots].filter(([k]) => k !== except).flatMap(([, v]) => v)];
    };
  }

  private newAnnotation(page: string, m: number, now: AnnotView, beneath: (except: number) => Box[]): void {
    if (!shownOnScreen(now) || !now.shown) {
      return;
    }
    const hit = coverOver(appearanceMarks(this.after.view.pdf, now.shown, now.rect!, this.budget), now.rect!, null, beneath(m));
    if (!hit) {
      return;
    }
    if (now.field === null) {
      this.comment(m, `the new annotation on ${page} paints an opaque box over what the signed page showed`);
      return;
    }
    const name = this.fieldName(now);
    const isSig = this.after.fields.get(now.field)?.isSignature;
    const what = name !== undefined ? `widget of ${name}` : 'annotation';
    this.other(
      m,
      `the new ${what} on ${page} paints an opaque box over what the signed page showed (${hit.map((x) => Math.round(x)).join(' ')})`,
      name,
      isSig ? 'sneaky-signature' : 'shadow-replace',
    );
  }

  private changedAnnotation(page: string, m: number, was: AnnotView, now: AnnotView, beneath: (except: number) => Box[]): void {
    const name = this.fieldName(now);
    const what = name !== undefined ? `widget of ${name}` : 'annotation';
    const isComment = was.field === null && now.field === null;
    const report = isComment ? this.comment.bind(this) : this.other.bind(this);
    if (
      (was.rect === null) !== (now.rect === null) ||
      (was.rect && now.rect && was.rect.some((v, i) => Math.abs(v - now.rect![i]) > 0.01))
    ) {
      report(m, `${page}: the ${what} was moved or resized (/Rect)`, name);
    } else if ((was.flags & HIDING_FLAGS) !== (now.flags & HIDING_FLAGS)) {
      report(m, `${page}: the ${what} was shown or hidden (/F)`, name);
    } else if (was.appearance === now.appearance) {
      return; // drawn as it was
    } else if (isComment) {
      this.comment(m, `${page}: the appearance of an existing annotation was redrawn`);
    } else if (now.field === null || was.field === null) {
      this.other(m, `${page}: the ${what} was redrawn and its field changed`, name);
    } else {
      this.redrawnWidget(page, m, was, now, beneath, name);
    }
  }

  /** A field's widget drawn anew: allowed only as the picture of a new value, in an appearance of its own, hiding nothing signed. */
  private redrawnWidget(page: string, m: number, was: AnnotView, now: AnnotView, beneath: (except: number) => Box[], name?: string): void {
    const what = name !== undefined ? `widget of ${name}` : 'annotation';
    if (this.fieldValue(this.before, this.fpA, was.field) === this.fieldValue(this.after, this.fpB, now.field)) {
      const why = `${page}: the ${what} was redrawn while its value stayed the same (what was signed is shown differently)`;
      this.other(m, why, name, 'shadow-replace');
      return;
    }
    const shared = replacedAppearance(this.before, this.after, was.dict, now.dict).filter((o) => soleOwner(this.before, o) !== m);
    if (shared.length > 0) {
      const why = `${page}: the appearance of ${what} was replaced, but the signed revision used it elsewhere too (object ${shared[0]})`;
      this.other(m, why, name);
      return;
    }
    if (!shownOnScreen(now) || !now.shown) {
      return;
    }
    const prev = was.shown && was.rect ? appearanceMarks(this.before.view.pdf, was.shown, was.rect, this.budget) : null;
    const hit = coverOver(appearanceMarks(this.after.view.pdf, now.shown, now.rect!, this.budget), now.rect!, prev, beneath(m));
    if (hit) {
      const why = `${page}: the ${what} was filled with an opaque box over what the signed page showed (${hit.map((x) => Math.round(x)).join(' ')})`;
      this.other(m, why, name, 'shadow-replace');
    }
  }

  private other(objectNumber: number, description: string, field?: string, attack?: ClassifiedChange['attack']): void {
    this.out.push({
      revision: this.revision,
      objectNumber,
      kind: 'changed',
      category: 'other',
      description,
      ...(field ? { field } : {}),
      ...(attack ? { attack } : {}),
    });
  }

  // Annotations that are no form field's widget are comments, which a certification at level 3
  // allows to create and modify (§12.8.2.2): their changes are named 'annotation', not 'other'.
  private comment(objectNumber: number, description: string, field?: string): void {
    this.out.push({
      revision: this.revision,
      objectNumber,
      kind: 'changed',
      category: 'annotation',
      description,
      ...(field ? { field } : {}),
    });
  }

  private fieldName(a: AnnotView): string | undefined {
    const of = (facts: DocumentFacts) => (a.field !== null ? facts.fields.get(a.field)?.name : undefined);
    return of(this.after) ?? of(this.before);
  }

  private fieldValue(facts: DocumentFacts, fp: ReturnType<typeof fingerprinter>, field: number | null): string {
    const d = field === null ? null : objectAt(facts.view.pdf, field);
    return d instanceof PdfDict ? fp(d.get('V')) : 'null';
  }
}
