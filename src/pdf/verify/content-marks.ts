// Where a content stream leaves marks on the page, and where it paints an opaque area: the geometry
// the difference analysis needs to tell a field that fills its box from an appearance that covers
// what was signed (the shadow "replace via overlay" and the sneaky signature: Mainka et al., 2021).
// Not a renderer: text is measured from its position, size and byte count, paths by their points,
// images and forms by their boxes (PDF 32000-1 §8.3-8.10, §9.4). Every estimate errs on the side
// of marks where there may be none, and the work is bounded: a stream beyond the budget counts as
// marking everything.
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject, PdfRef, PdfStream } from '@libpdf/core';
import { objectAt } from './revision-diff.js';

/** An axis-aligned box on the page: [x0, y0, x1, y1], x0 <= x1 and y0 <= y1. */
export type Box = [number, number, number, number];
/** An affine matrix [a b c d e f] (§8.3.3). */
export type Matrix = [number, number, number, number, number, number];

export interface Marks {
  /** Boxes where something visible is drawn (white fills excluded: on paper they draw nothing). */
  ink: Box[];
  /** Boxes painted fully opaque (an opaque rectangle or image): what lies beneath is hidden. */
  opaque: Box[];
  /** The budget ran out: the marks are incomplete, and a caller must assume the worst. */
  exhausted?: boolean;
}

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const EVERYWHERE: Box = [-1e9, -1e9, 1e9, 1e9];
/** Operands and operators read, over every stream one comparison reads (see markBudget). */
const MAX_TOKENS = 2_000_000;

/** What one comparison may read: shared by every stream it measures, so many cannot add up. */
export interface MarkBudget {
  tokens: number;
}
export const markBudget = (): MarkBudget => ({ tokens: MAX_TOKENS });
const MAX_FORM_DEPTH = 12;

export const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];
const apply = (m: Matrix, x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

/** The box around `box` transformed by `m`. */
export function transformBox(m: Matrix, box: Box): Box {
  const pts = [apply(m, box[0], box[1]), apply(m, box[2], box[1]), apply(m, box[0], box[3]), apply(m, box[2], box[3])];
  return [
    Math.min(...pts.map((p) => p[0])),
    Math.min(...pts.map((p) => p[1])),
    Math.max(...pts.map((p) => p[0])),
    Math.max(...pts.map((p) => p[1])),
  ];
}

export function intersect(a: Box, b: Box): Box | null {
  const r: Box = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  return r[0] < r[2] && r[1] < r[3] ? r : null;
}

export const area = (b: Box) => (b[2] - b[0]) * (b[3] - b[1]);

/** `inner` lies within `outer`, give or take a point (appearances are drawn with a border inset). */
export const contains = (outer: Box, inner: Box, slack = 1) =>
  inner[0] >= outer[0] - slack && inner[1] >= outer[1] - slack && inner[2] <= outer[2] + slack && inner[3] <= outer[3] + slack;

export const numbersOf = (pdf: PDF, o: PdfObject | undefined | null): number[] => {
  const r = o instanceof PdfRef ? objectAt(pdf, o.objectNumber) : o;
  return r instanceof PdfArray
    ? r.toArray().map((x) => {
        const v = x instanceof PdfRef ? objectAt(pdf, x.objectNumber) : x;
        return v instanceof PdfNumber ? v.value : Number.NaN;
      })
    : [];
};

export function boxOf(pdf: PDF, o: PdfObject | undefined | null): Box | null {
  const n = numbersOf(pdf, o);
  if (n.length !== 4 || n.some((x) => !Number.isFinite(x))) {
    return null;
  }
  return [Math.min(n[0], n[2]), Math.min(n[1], n[3]), Math.max(n[0], n[2]), Math.max(n[1], n[3])];
}

export function matrixOf(pdf: PDF, o: PdfObject | undefined | null): Matrix {
  const n = numbersOf(pdf, o);
  return n.length === 6 && n.every(Number.isFinite) ? (n as Matrix) : IDENTITY;
}

// ---- tokens (§7.2, §8.9.7 inline images) ----

type Token = { op: string } | { num: number } | { bytes: number } | { name: string } | { other: true };

const WS = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIM = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

/** Tokens of a content stream; strings keep only their length in bytes (what text measuring needs). */
function* tokens(data: Uint8Array): Generator<Token> {
  let i = 0;
  const n = data.length;
  while (i < n) {
    const c = data[i];
    if (WS.has(c)) {
      i++;
    } else if (c === 0x25) {
      while (i < n && data[i] !== 0x0a && data[i] !== 0x0d) {
        i++;
      }
    } else if (c === 0x28) {
      let depth = 1;
      let len = 0;
      i++;
      while (i < n && depth > 0) {
        if (data[i] === 0x5c) {
          i += 2;
        } else {
          depth += data[i] === 0x28 ? 1 : data[i] === 0x29 ? -1 : 0;
          i++;
        }
        len++;
      }
      yield { bytes: Math.max(0, len - 1) };
    } else if (c === 0x3c && data[i + 1] === 0x3c) {
      i += 2;
      yield { op: '<<' };
    } else if (c === 0x3e && data[i + 1] === 0x3e) {
      i += 2;
      yield { op: '>>' };
    } else if (c === 0x3c) {
      const start = i;
      while (i < n && data[i] !== 0x3e) {
        i++;
      }
      i++;
      yield { bytes: Math.ceil((i - start - 2) / 2) };
    } else if (c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d) {
      i++;
      yield { op: String.fromCharCode(c) };
    } else if (c === 0x2f) {
      const start = ++i;
      while (i < n && !WS.has(data[i]) && !DELIM.has(data[i])) {
        i++;
      }
      yield { name: Buffer.from(data.subarray(start, i)).toString('latin1') };
    } else {
      const start = i;
      while (i < n && !WS.has(data[i]) && !DELIM.has(data[i])) {
        i++;
      }
      if (i === start) {
        i++; // a stray delimiter (")" or ">"): skipped
        continue;
      }
      const word = Buffer.from(data.subarray(start, i)).toString('latin1');
      const num = Number(word);
      if (word !== '' && Number.isFinite(num) && /^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
        yield { num };
      } else if (word === 'ID') {
        // Inline image data runs to the EI that follows white space (§8.9.7).
        i++;
        while (i < n && !(WS.has(data[i - 1]) && data[i] === 0x45 && data[i + 1] === 0x49 && (i + 2 >= n || WS.has(data[i + 2])))) {
          i++;
        }
        i += 2;
        yield { op: 'EI' };
      } else {
        yield { op: word };
      }
    }
  }
}

// ---- the interpreter ----

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
