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
  const { pdf, out } = ctx;
  const stack: State[] = [];
  let s: State = { ...start };
  let operands: Token[] = [];
  let path: Box | null = null;
  let pathIsRect = false;
  let pendingClip = false;
  let tm: Matrix = IDENTITY;
  let tlm: Matrix = IDENTITY;
  const mark = (box: Box, opaque: boolean) => {
    const shown = intersect(box, s.clip);
    if (!shown) {
      return;
    }
    if (!s.fillWhite || !opaque) {
      out.ink.push(shown);
    }
    if (opaque && s.fillAlpha >= 1) {
      out.opaque.push(shown);
    }
  };
  const addPoint = (x: number, y: number) => {
    const [px, py] = apply(s.ctm, x, y);
    path = path ? [Math.min(path[0], px), Math.min(path[1], py), Math.max(path[2], px), Math.max(path[3], py)] : [px, py, px, py];
  };
  const nums = () => operands.map((t) => ('num' in t ? t.num : Number.NaN));
  const endPath = () => {
    if (pendingClip && path) {
      s.clip = intersect(s.clip, path) ?? [0, 0, 0, 0];
    }
    path = null;
    pathIsRect = false;
    pendingClip = false;
  };
  const showText = (byteCount: number) => {
    if (s.render === 3 || s.render === 7) {
      return; // invisible text (§9.3.6)
    }
    const size = s.fontSize || 12;
    const width = byteCount * size * 0.7 * (s.hScale / 100);
    const box = transformBox(multiply(tm, s.ctm), [0, -0.3 * size + s.rise, width, size + s.rise]);
    out.ink.push(intersect(box, s.clip) ?? box);
    tm = multiply([1, 0, 0, 1, width, 0], tm);
  };
  const setColour = (n: number[], gray: boolean) => {
    s.fillWhite = gray ? n.every((v) => v >= 1) : n.length === 4 ? n.every((v) => v <= 0) : n.length === 3 && n.every((v) => v >= 1);
  };

  for (const t of tokens(data)) {
    if (--ctx.budget.tokens < 0) {
      out.ink.push(EVERYWHERE);
      out.exhausted = true;
      return;
    }
    if (!('op' in t)) {
      operands.push(t);
      continue;
    }
    const n = nums();
    switch (t.op) {
      case 'q':
        stack.push({ ...s });
        break;
      case 'Q':
        s = stack.pop() ?? s;
        break;
      case 'cm':
        if (n.length === 6 && n.every(Number.isFinite)) {
          s.ctm = multiply(n as Matrix, s.ctm);
        }
        break;
      case 'gs': {
        const name = operands.find((o) => 'name' in o) as { name: string } | undefined;
        const d = name ? dictIn(pdf, dictIn(pdf, resources, 'ExtGState'), name.name) : null;
        const ca = d ? resolve(pdf, d.get('ca')) : null;
        if (ca instanceof PdfNumber) {
          s.fillAlpha = ca.value;
        }
        if (d?.has('SMask') && !(resolve(pdf, d.get('SMask')) instanceof PdfName)) {
          s.fillAlpha = 0; // a soft mask: nothing painted under it is opaque for sure
        }
        break;
      }
      case 'g':
        setColour(n, true);
        break;
      case 'rg':
        setColour(n, false);
        break;
      case 'k':
        setColour(n, false);
        break;
      case 'sc':
      case 'scn':
      case 'cs':
        s.fillWhite = false;
        break;
      case 'm':
      case 'l':
        addPoint(n[0], n[1]);
        pathIsRect = false;
        break;
      case 'c':
        addPoint(n[0], n[1]);
        addPoint(n[2], n[3]);
        addPoint(n[4], n[5]);
        pathIsRect = false;
        break;
      case 'v':
      case 'y':
        addPoint(n[0], n[1]);
        addPoint(n[2], n[3]);
        pathIsRect = false;
        break;
      case 're': {
        const first = path === null;
        addPoint(n[0], n[1]);
        addPoint(n[0] + n[2], n[1] + n[3]);
        addPoint(n[0] + n[2], n[1]);
        addPoint(n[0], n[1] + n[3]);
        // Only a lone rectangle, not rotated, is known to be filled edge to edge.
        pathIsRect = first && s.ctm[1] === 0 && s.ctm[2] === 0;
        break;
      }
      case 'W':
      case 'W*':
        pendingClip = true;
        break;
      case 'n':
        endPath();
        break;
      case 'f':
      case 'F':
      case 'f*':
      case 'B':
      case 'B*':
      case 'b':
      case 'b*':
        if (path) {
          mark(path, pathIsRect);
        }
        endPath();
        break;
      case 'S':
      case 's':
        if (path) {
          const w = 2;
          const p = path as Box;
          const box: Box = [p[0] - w, p[1] - w, p[2] + w, p[3] + w];
          out.ink.push(intersect(box, s.clip) ?? box);
        }
        endPath();
        break;
      case 'sh':
        out.ink.push(s.clip);
        break;
      case 'EI':
        mark(transformBox(s.ctm, [0, 0, 1, 1]), false);
        break;
      case 'BT':
        tm = IDENTITY;
        tlm = IDENTITY;
        break;
      case 'Tf':
        s.fontSize = Math.abs(n[n.length - 1]) || s.fontSize;
        break;
      case 'TL':
        s.leading = n[0] || 0;
        break;
      case 'Tz':
        s.hScale = Number.isFinite(n[0]) ? n[0] : 100;
        break;
      case 'Ts':
        s.rise = n[0] || 0;
        break;
      case 'Tr':
        s.render = n[0] || 0;
        break;
      case 'Td':
      case 'TD':
        if (t.op === 'TD') {
          s.leading = -n[1] || 0;
        }
        tlm = multiply([1, 0, 0, 1, n[0] || 0, n[1] || 0], tlm);
        tm = tlm;
        break;
      case 'Tm':
        if (n.length === 6 && n.every(Number.isFinite)) {
          tlm = n as Matrix;
          tm = tlm;
        }
        break;
      case 'T*':
        tlm = multiply([1, 0, 0, 1, 0, -s.leading], tlm);
        tm = tlm;
        break;
      case "'":
      case '"':
        tlm = multiply([1, 0, 0, 1, 0, -s.leading], tlm);
        tm = tlm;
        showText(operands.reduce((sum, o) => sum + ('bytes' in o ? o.bytes : 0), 0));
        break;
      case 'Tj':
      case 'TJ':
        showText(operands.reduce((sum, o) => sum + ('bytes' in o ? o.bytes : 0), 0));
        break;
      case 'Do': {
        const name = operands.find((o) => 'name' in o) as { name: string } | undefined;
        const ref = name ? dictIn(pdf, resources, 'XObject')?.get(name.name) : undefined;
        drawXObject(ctx, ref, s, depth);
        break;
      }
      default:
        break;
    }
    if (t.op !== '[' && t.op !== '<<' && t.op !== '>>' && t.op !== ']') {
      operands = [];
    }
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
