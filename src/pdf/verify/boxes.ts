// Boxes and matrices of PDF geometry (PDF 32000-1 §8.3): what content-marks.ts measures with and
// page-view.ts compares.
import { type PDF, PdfArray, PdfNumber, type PdfObject, PdfRef } from '@libpdf/core';
import { objectAt } from './revision-diff.js';

/** An axis-aligned box on the page: [x0, y0, x1, y1], x0 <= x1 and y0 <= y1. */
export type Box = [number, number, number, number];
/** An affine matrix [a b c d e f] (§8.3.3). */
export type Matrix = [number, number, number, number, number, number];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];
export const apply = (m: Matrix, x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

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
