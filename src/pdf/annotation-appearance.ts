// Appearance streams for the geometric annotations that arrive without one, so flattening can draw
// them. PDF 1.7 lets Square, Circle, Line, Polygon, PolyLine and Ink annotations omit /AP (readers
// draw them from /Rect, /C, /IC, /BS and their points: PDF 32000-1 §12.5.6.8–13), and the PDF
// library's flattener draws only text-markup annotations without one and silently removes every
// other: on a printed copy a drawn box or a signature stroke would vanish. Other annotations
// without an appearance are reported by the caller instead of being guessed at.
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject, PdfRef, PdfStream } from '@libpdf/core';

/** The subtypes drawn here from their geometry alone. */
export const GEOMETRIC_SUBTYPES = ['Square', 'Circle', 'Line', 'Polygon', 'PolyLine', 'Ink'] as const;

type Resolve = (o: PdfObject | undefined) => PdfObject | undefined;

function numbers(o: PdfObject | undefined, resolve: Resolve): number[] {
  const a = resolve(o);
  if (!(a instanceof PdfArray)) {
    return [];
  }
  return a.toArray().flatMap((x) => {
    const v = resolve(x);
    return v instanceof PdfNumber && Number.isFinite(v.value) ? [v.value] : [];
  });
}

/** A colour operator from /C or /IC (0: none, 1: grey, 3: RGB, 4: CMYK components). */
function colour(c: number[], stroke: boolean): string | undefined {
  const f = (x: number) => Math.min(1, Math.max(0, x)).toFixed(3);
  if (c.length === 1) {
    return `${f(c[0])} ${stroke ? 'G' : 'g'}`;
  }
  if (c.length === 3) {
    return `${c.map(f).join(' ')} ${stroke ? 'RG' : 'rg'}`;
  }
  if (c.length === 4) {
    return `${c.map(f).join(' ')} ${stroke ? 'K' : 'k'}`;
  }
  return undefined;
}

/** Border width: /BS /W, else the third number of /Border, else 1 (§12.5.4). */
function borderWidth(annot: PdfDict, resolve: Resolve): number {
  const bs = resolve(annot.get('BS'));
  if (bs instanceof PdfDict) {
    const w = resolve(bs.get('W'));
    if (w instanceof PdfNumber) {
      return Math.max(0, w.value);
    }
  }
  const border = numbers(annot.get('Border'), resolve);
  return border.length >= 3 ? Math.max(0, border[2]) : 1;
}

const fmt = (n: number) => (Math.round(n * 1000) / 1000).toString();

/** The path of the annotation in page coordinates, or undefined when its geometry is missing. */
function path(subtype: string, annot: PdfDict, rect: number[], w: number, resolve: Resolve): { ops: string; closed: boolean } | undefined {
  const [x1, y1, x2, y2] = [Math.min(rect[0], rect[2]), Math.min(rect[1], rect[3]), Math.max(rect[0], rect[2]), Math.max(rect[1], rect[3])];
  const inset = w / 2;
  const line = (pts: number[], close: boolean) => {
    if (pts.length < 4) {
      return undefined;
    }
    let ops = `${fmt(pts[0])} ${fmt(pts[1])} m`;
    for (let i = 2; i + 1 < pts.length; i += 2) {
      ops += ` ${fmt(pts[i])} ${fmt(pts[i + 1])} l`;
    }
    return { ops: close ? `${ops} h` : ops, closed: close };
  };
  switch (subtype) {
    case 'Square':
      return { ops: `${fmt(x1 + inset)} ${fmt(y1 + inset)} ${fmt(x2 - x1 - w)} ${fmt(y2 - y1 - w)} re`, closed: true };
    case 'Circle': {
      // An ellipse from four Bézier arcs (k = 4(√2 − 1)/3).
      const cx = (x1 + x2) / 2;
      const cy = (y1 + y2) / 2;
      const rx = (x2 - x1 - w) / 2;
      const ry = (y2 - y1 - w) / 2;
      const k = 0.5523;
      const p = (x: number, y: number) => `${fmt(x)} ${fmt(y)}`;
      return {
        ops:
          `${p(cx + rx, cy)} m ${p(cx + rx, cy + k * ry)} ${p(cx + k * rx, cy + ry)} ${p(cx, cy + ry)} c ` +
          `${p(cx - k * rx, cy + ry)} ${p(cx - rx, cy + k * ry)} ${p(cx - rx, cy)} c ` +
          `${p(cx - rx, cy - k * ry)} ${p(cx - k * rx, cy - ry)} ${p(cx, cy - ry)} c ` +
          `${p(cx + k * rx, cy - ry)} ${p(cx + rx, cy - k * ry)} ${p(cx + rx, cy)} c h`,
        closed: true,
      };
    }
    case 'Line':
      return line(numbers(annot.get('L'), resolve).slice(0, 4), false);
    case 'Polygon':
      return line(numbers(annot.get('Vertices'), resolve), true);
    case 'PolyLine':
      return line(numbers(annot.get('Vertices'), resolve), false);
    case 'Ink': {
      const list = resolve(annot.get('InkList'));
      if (!(list instanceof PdfArray)) {
        return undefined;
      }
      const strokes = list.toArray().flatMap((s) => line(numbers(s, resolve), false)?.ops ?? []);
      return strokes.length ? { ops: strokes.join(' '), closed: false } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Gives a geometric annotation without /AP a normal appearance drawn from its geometry (in page
 * coordinates: BBox = Rect, identity Matrix). Returns false when it cannot (no usable geometry).
 */
export function addGeometricAppearance(pdf: PDF, annot: PdfDict, subtype: string): boolean {
  const resolve: Resolve = (o) => (o instanceof PdfRef ? (pdf.context.resolve(o) ?? undefined) : o);
  const rect = numbers(annot.get('Rect'), resolve);
  if (rect.length !== 4) {
    return false;
  }
  const w = borderWidth(annot, resolve);
  const shape = path(subtype, annot, rect, w, resolve);
  if (!shape) {
    return false;
  }
  const stroke = colour(numbers(annot.get('C'), resolve), true);
  const fill = shape.closed ? colour(numbers(annot.get('IC'), resolve), false) : undefined;
  const paint = fill && stroke && w > 0 ? 'B' : fill ? 'f' : stroke && w > 0 ? 'S' : undefined;
  if (!paint) {
    return true; // nothing visible to draw; an empty appearance is faithful
  }
  const content = [stroke ?? '', fill ?? '', `${fmt(w)} w`, '1 J 1 j', shape.ops, paint].filter(Boolean).join('\n');
  const stream = PdfStream.fromDict(
    {
      Type: PdfName.of('XObject'),
      Subtype: PdfName.of('Form'),
      BBox: PdfArray.of(
        ...[Math.min(rect[0], rect[2]), Math.min(rect[1], rect[3]), Math.max(rect[0], rect[2]), Math.max(rect[1], rect[3])].map((n) =>
          PdfNumber.of(n),
        ),
      ),
    },
    new TextEncoder().encode(content),
  );
  annot.set('AP', new PdfDict([['N', pdf.register(stream)]]));
  return true;
}
