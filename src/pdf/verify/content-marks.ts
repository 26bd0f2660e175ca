// Where a content stream leaves marks on the page, and where it paints an opaque area: the geometry
// the difference analysis needs to tell a field that fills its box from an appearance that covers
// what was signed (the shadow "replace via overlay" and the sneaky signature: Mainka et al., 2021).
// Not a renderer: text is measured from its position, size and byte count, paths by their points,
// images and forms by their boxes (PDF 32000-1 §8.3-8.10, §9.4). Every estimate errs on the side
// of marks where there may be none, and the work is bounded: a stream beyond the budget counts as
// marking everything.
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject, PdfRef, PdfStream } from '@libpdf/core';
import { apply, type Box, boxOf, IDENTITY, intersect, type Matrix, matrixOf, multiply, transformBox } from './boxes.js';
import { type Token, tokens } from './content-tokens.js';
import { objectAt } from './revision-diff.js';

export type { Box } from './boxes.js';

export interface Marks {
  /** Boxes where something visible is drawn (white fills excluded: on paper they draw nothing). */
  ink: Box[];
  /** Boxes painted fully opaque (an opaque rectangle or image): what lies beneath is hidden. */
  opaque: Box[];
  /** The budget ran out: the marks are incomplete, and a caller must assume the worst. */
  exhausted?: boolean;
}

const EVERYWHERE: Box = [-1e9, -1e9, 1e9, 1e9];
/** Operands and operators read, over every stream one comparison reads (see markBudget). */
const MAX_TOKENS = 2_000_000;

/** What one comparison may read: shared by every stream it measures, so many cannot add up. */
export interface MarkBudget {
  tokens: number;
}
export const markBudget = (): MarkBudget => ({ tokens: MAX_TOKENS });
const MAX_FORM_DEPTH = 12;

interface State {
  ctm: Matrix;
  clip: Box;
  fillAlpha: number;
  fillWhite: boolean;
  fontSize: number;
  leading: number;
  hScale: number;
  rise: number;
  render: number;
}

interface Context {
  pdf: PDF;
  out: Marks;
  budget: MarkBudget;
  forms: Set<number>;
}

const resolve = (pdf: PDF, o: PdfObject | undefined | null) => (o instanceof PdfRef ? objectAt(pdf, o.objectNumber) : (o ?? null));
const dictIn = (pdf: PDF, d: PdfDict | null, key: string): PdfDict | null => {
  const v = d ? resolve(pdf, d.get(key)) : null;
  return v instanceof PdfDict ? v : null;
};

function decoded(s: PdfStream): Uint8Array | null {
  try {
    return s.getDecodedData();
  } catch {
    return null;
  }
}

function run(ctx: Context, data: Uint8Array, resources: PdfDict | null, start: State, depth: number): void {
  new StreamRun(ctx, resources, start, depth).read(data);
}

/** Array and dictionary delimiters come out of the tokenizer as operators: the operands around them belong to the next real operator (TJ's array, BDC's properties). */
const KEEPS_OPERANDS = new Set(['[', '<<', '>>', ']']);

/**
 * One pass over one content stream: the graphics state, the current path and the text matrices
 * of §8.4, §8.5 and §9.4, each operator group in its own method.
 */
class StreamRun {
  private readonly stack: State[] = [];
  private s: State;
  private operands: Token[] = [];
  private path: Box | null = null;
  private pathIsRect = false;
  private pendingClip = false;
  private tm: Matrix = IDENTITY;
  private tlm: Matrix = IDENTITY;

  constructor(
    private readonly ctx: Context,
    private readonly resources: PdfDict | null,
    start: State,
    private readonly depth: number,
  ) {
    this.s = { ...start };
  }

  read(data: Uint8Array): void {
    for (const t of tokens(data)) {
      if (--this.ctx.budget.tokens < 0) {
        this.ctx.out.ink.push(EVERYWHERE);
        this.ctx.out.exhausted = true;
        return;
      }
      if (!('op' in t)) {
        this.operands.push(t);
        continue;
      }
      const n = this.operands.map((o) => ('num' in o ? o.num : Number.NaN));
      this.operator(t.op, n);
      if (!KEEPS_OPERANDS.has(t.op)) {
        this.operands = [];
      }
    }
  }

  private operator(op: string, n: number[]): void {
    if (!this.graphicsOp(op, n) && !this.pathOp(op, n) && !this.paintOp(op)) {
      this.textOp(op, n);
    }
  }

  /** The graphics state: save, restore, matrix, ExtGState, fill colour (§8.4). */
  private graphicsOp(op: string, n: number[]): boolean {
    const s = this.s;
    switch (op) {
      case 'q':
        this.stack.push({ ...s });
        return true;
      case 'Q':
        this.s = this.stack.pop() ?? s;
        return true;
      case 'cm':
        if (n.length === 6 && n.every(Number.isFinite)) {
          s.ctm = multiply(n as Matrix, s.ctm);
        }
        return true;
      case 'gs':
        this.extGState();
        return true;
      case 'g':
        this.setColour(n, true);
        return true;
      case 'rg':
      case 'k':
        this.setColour(n, false);
        return true;
      case 'sc':
      case 'scn':
      case 'cs':
        s.fillWhite = false;
        return true;
      default:
        return false;
    }
  }

  private extGState(): void {
    const { pdf } = this.ctx;
    const name = this.operands.find((o) => 'name' in o) as { name: string } | undefined;
    const d = name ? dictIn(pdf, dictIn(pdf, this.resources, 'ExtGState'), name.name) : null;
    const ca = d ? resolve(pdf, d.get('ca')) : null;
    if (ca instanceof PdfNumber) {
      this.s.fillAlpha = ca.value;
    }
    if (d?.has('SMask') && !(resolve(pdf, d.get('SMask')) instanceof PdfName)) {
      this.s.fillAlpha = 0; // a soft mask: nothing painted under it is opaque for sure
    }
  }

  private setColour(n: number[], gray: boolean): void {
    this.s.fillWhite = gray ? n.every((v) => v >= 1) : n.length === 4 ? n.every((v) => v <= 0) : n.length === 3 && n.every((v) => v >= 1);
  }

  /** Path construction and clipping (§8.5.2, §8.5.4). */
  private pathOp(op: string, n: number[]): boolean {
    switch (op) {
      case 'm':
      case 'l':
        this.addPoints(n, 2);
        return true;
      case 'c':
        this.addPoints(n, 6);
        return true;
      case 'v':
      case 'y':
        this.addPoints(n, 4);
        return true;
      case 're': {
        const first = this.path === null;
        this.addPoint(n[0], n[1]);
        this.addPoint(n[0] + n[2], n[1] + n[3]);
        this.addPoint(n[0] + n[2], n[1]);
        this.addPoint(n[0], n[1] + n[3]);
        // Only a lone rectangle, not rotated, is known to be filled edge to edge.
        this.pathIsRect = first && this.s.ctm[1] === 0 && this.s.ctm[2] === 0;
        return true;
      }
      case 'W':
      case 'W*':
        this.pendingClip = true;
        return true;
      case 'n':
        this.endPath();
        return true;
      default:
        return false;
    }
  }

  private addPoints(n: number[], count: number): void {
    for (let i = 0; i < count; i += 2) {
      this.addPoint(n[i], n[i + 1]);
    }
    this.pathIsRect = false;
  }

  private addPoint(x: number, y: number): void {
    const [px, py] = apply(this.s.ctm, x, y);
    const p = this.path;
    this.path = p ? [Math.min(p[0], px), Math.min(p[1], py), Math.max(p[2], px), Math.max(p[3], py)] : [px, py, px, py];
  }

  private endPath(): void {
    if (this.pendingClip && this.path) {
      this.s.clip = intersect(this.s.clip, this.path) ?? [0, 0, 0, 0];
    }
    this.path = null;
    this.pathIsRect = false;
    this.pendingClip = false;
  }

  /** Painting: fills, strokes, shadings, inline images and XObjects (§8.5.3, §8.7.4.2, §8.8). */
  private paintOp(op: string): boolean {
    const { out } = this.ctx;
    switch (op) {
      case 'f':
      case 'F':
      case 'f*':
      case 'B':
      case 'B*':
      case 'b':
      case 'b*':
        if (this.path) {
          this.mark(this.path, this.pathIsRect);
        }
        this.endPath();
        return true;
      case 'S':
      case 's':
        if (this.path) {
          const w = 2;
          const p = this.path;
          const box: Box = [p[0] - w, p[1] - w, p[2] + w, p[3] + w];
          out.ink.push(intersect(box, this.s.clip) ?? box);
        }
        this.endPath();
        return true;
      case 'sh':
        out.ink.push(this.s.clip);
        return true;
      case 'EI':
        this.mark(transformBox(this.s.ctm, [0, 0, 1, 1]), false);
        return true;
      case 'Do': {
        const name = this.operands.find((o) => 'name' in o) as { name: string } | undefined;
        const ref = name ? dictIn(this.ctx.pdf, this.resources, 'XObject')?.get(name.name) : undefined;
        drawXObject(this.ctx, ref, this.s, this.depth);
        return true;
      }
      default:
        return false;
    }
  }

  private mark(box: Box, opaque: boolean): void {
    const shown = intersect(box, this.s.clip);
    if (!shown) {
      return;
    }
    if (!this.s.fillWhite || !opaque) {
      this.ctx.out.ink.push(shown);
    }
    if (opaque && this.s.fillAlpha >= 1) {
      this.ctx.out.opaque.push(shown);
    }
  }

  /** Text objects, state and positioning, and the showing operators (§9.3, §9.4). */
  private textOp(op: string, n: number[]): boolean {
    const s = this.s;
    switch (op) {
      case 'BT':
        this.tm = IDENTITY;
        this.tlm = IDENTITY;
        return true;
      case 'Tf':
        s.fontSize = Math.abs(n[n.length - 1]) || s.fontSize;
        return true;
      case 'TL':
        s.leading = n[0] || 0;
        return true;
      case 'Tz':
        s.hScale = Number.isFinite(n[0]) ? n[0] : 100;
        return true;
      case 'Ts':
        s.rise = n[0] || 0;
        return true;
      case 'Tr':
        s.render = n[0] || 0;
        return true;
      default:
        return this.textPositionOp(op, n);
    }
  }

  private textPositionOp(op: string, n: number[]): boolean {
    switch (op) {
      case 'Td':
      case 'TD':
        if (op === 'TD') {
          this.s.leading = -n[1] || 0;
        }
        this.moveLine(n[0] || 0, n[1] || 0);
        return true;
      case 'Tm':
        if (n.length === 6 && n.every(Number.isFinite)) {
          this.tlm = n as Matrix;
          this.tm = this.tlm;
        }
        return true;
      case 'T*':
        this.moveLine(0, -this.s.leading);
        return true;
      case "'":
      case '"':
        this.moveLine(0, -this.s.leading);
        this.showText();
        return true;
      case 'Tj':
      case 'TJ':
        this.showText();
        return true;
      default:
        return false;
    }
  }

  private moveLine(tx: number, ty: number): void {
    this.tlm = multiply([1, 0, 0, 1, tx, ty], this.tlm);
    this.tm = this.tlm;
  }

  /** Text is measured, not rendered: its bytes times 0.7 of the font size (the estimate errs wide). */
  private showText(): void {
    const s = this.s;
    if (s.render === 3 || s.render === 7) {
      return; // invisible text (§9.3.6)
    }
    const byteCount = this.operands.reduce((sum, o) => sum + ('bytes' in o ? o.bytes : 0), 0);
    const size = s.fontSize || 12;
    const width = byteCount * size * 0.7 * (s.hScale / 100);
    const box = transformBox(multiply(this.tm, s.ctm), [0, -0.3 * size + s.rise, width, size + s.rise]);
    this.ctx.out.ink.push(intersect(box, s.clip) ?? box);
    this.tm = multiply([1, 0, 0, 1, width, 0], this.tm);
  }
}

function drawXObject(ctx: Context, ref: PdfObject | undefined, s: State, depth: number): void {
  const { pdf, out } = ctx;
  const xo = resolve(pdf, ref);
  if (!(xo instanceof PdfStream)) {
    return;
  }
  const subtype = resolve(pdf, xo.get('Subtype'));
  const kind = subtype instanceof PdfName ? subtype.value : '';
  if (kind === 'Image') {
    const box = transformBox(s.ctm, [0, 0, 1, 1]);
    const masked = xo.has('SMask') || xo.has('Mask') || resolve(pdf, xo.get('ImageMask'))?.toString() === 'true';
    const shown = intersect(box, s.clip);
    if (shown) {
      out.ink.push(shown);
      if (!masked && s.fillAlpha >= 1) {
        out.opaque.push(shown);
      }
    }
    return;
  }
  if (kind !== 'Form') {
    return;
  }
  const n = ref instanceof PdfRef ? ref.objectNumber : -1;
  if (depth >= MAX_FORM_DEPTH || ctx.forms.has(n)) {
    out.ink.push(s.clip);
    return;
  }
  formMarks(ctx, xo, s, depth + 1, n);
}

/** Runs a form XObject (an appearance, or a form drawn with Do) under `s`: its /Matrix, clipped to its /BBox. */
function formMarks(ctx: Context, form: PdfStream, s: State, depth: number, n: number): void {
  const { pdf } = ctx;
  const ctm = multiply(matrixOf(pdf, form.get('Matrix')), s.ctm);
  const bbox = boxOf(pdf, form.get('BBox'));
  const clip = bbox ? (intersect(transformBox(ctm, bbox), s.clip) ?? [0, 0, 0, 0]) : s.clip;
  const data = decoded(form);
  if (!data) {
    ctx.out.ink.push(clip);
    return;
  }
  const group = dictIn(pdf, form, 'Group');
  ctx.forms.add(n);
  // A transparency group may blend or knock out: what it paints is not known to be opaque.
  const alpha = group ? 0 : s.fillAlpha;
  run(ctx, data, dictIn(pdf, form, 'Resources'), { ...s, ctm, clip, fillAlpha: alpha }, depth);
  ctx.forms.delete(n);
}

const START: Omit<State, 'ctm' | 'clip'> = { fillAlpha: 1, fillWhite: false, fontSize: 0, leading: 0, hScale: 100, rise: 0, render: 0 };

/** The marks of a page's content streams, in the page's default user space. */
export function pageContentMarks(pdf: PDF, page: PdfDict, resources: PdfDict | null, budget = markBudget()): Marks {
  const ctx: Context = { pdf, out: { ink: [], opaque: [] }, budget, forms: new Set() };
  const contents = resolve(pdf, page.get('Contents'));
  const parts = contents instanceof PdfArray ? contents.toArray().map((c) => resolve(pdf, c)) : [contents];
  const chunks = parts.map((p) => (p instanceof PdfStream ? decoded(p) : new Uint8Array()));
  if (chunks.some((c) => c === null)) {
    ctx.out.ink.push(EVERYWHERE);
    return ctx.out;
  }
  // The streams of an array are one stream for the reader (§7.8.2): joined with white space.
  const joined = Buffer.concat(chunks.flatMap((c) => [Buffer.from(c as Uint8Array), Buffer.from('\n')]));
  run(ctx, joined, resources, { ...START, ctm: IDENTITY, clip: EVERYWHERE }, 0);
  return ctx.out;
}

/**
 * The marks of an annotation's appearance stream placed on the page (§12.5.5): the /BBox transformed
 * by /Matrix is mapped onto /Rect, and nothing is drawn outside /Rect.
 */
export function appearanceMarks(pdf: PDF, appearance: PdfStream, rect: Box, budget = markBudget()): Marks {
  const ctx: Context = { pdf, out: { ink: [], opaque: [] }, budget, forms: new Set() };
  const bbox = boxOf(pdf, appearance.get('BBox'));
  const matrix = matrixOf(pdf, appearance.get('Matrix'));
  if (!bbox) {
    return ctx.out;
  }
  const t = transformBox(matrix, bbox);
  const sx = t[2] > t[0] ? (rect[2] - rect[0]) / (t[2] - t[0]) : 0;
  const sy = t[3] > t[1] ? (rect[3] - rect[1]) / (t[3] - t[1]) : 0;
  const a: Matrix = [sx, 0, 0, sy, rect[0] - t[0] * sx, rect[1] - t[1] * sy];
  // formMarks applies /Matrix itself: start from A alone.
  formMarks(ctx, appearance, { ...START, ctm: a, clip: rect }, 0, -1);
  return ctx.out;
}
