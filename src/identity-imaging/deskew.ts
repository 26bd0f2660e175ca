// A card photographed a few degrees askew: Tesseract's line finder splits a long zone line that
// climbs more than its own height across the image (measured: at 2.5° most zones were not read).
// The skew is found by projection profiles (the angle at which the dark pixels fall into the
// fewest, fullest rows) and the image turned back before it is read.

/** Angles tried, in degrees either way: a card held more askew than this is to be photographed again. */
const MAX_DEG = 8;
const STEP_DEG = 0.25;

/** The angle (degrees, clockwise positive) at which the text rows of the plane run. */
export function skewAngle(p: { w: number; h: number; data: Float32Array | Uint8Array }): number {
  const { w, h, data } = p;
  // Ink: pixels clearly darker than their surroundings (strokes of text and lines), not dark areas
  // (the table around the card), whose edges would pull the angle to the photo's own frame.
  const integral = new Float64Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += data[y * w + x];
      integral[(y + 1) * (w + 1) + x + 1] = integral[y * (w + 1) + x + 1] + row;
    }
  }
  const r = 10;
  const ink: number[] = [];
  for (let y = r; y < h - r; y++) {
    for (let x = r; x < w - r; x++) {
      const sum =
        integral[(y + r + 1) * (w + 1) + x + r + 1] -
        integral[(y - r) * (w + 1) + x + r + 1] -
        integral[(y + r + 1) * (w + 1) + x - r] +
        integral[(y - r) * (w + 1) + x - r];
      if (data[y * w + x] < sum / ((2 * r + 1) * (2 * r + 1)) - 40) {
        ink.push(x - w / 2, y - h / 2);
      }
    }
  }
  if (ink.length < 200) {
    return 0;
  }
  const diag = Math.ceil(Math.hypot(w, h));
  const rows = new Float64Array(2 * diag + 1);
  let best = { deg: 0, score: -1 };
  for (let deg = -MAX_DEG; deg <= MAX_DEG + 1e-9; deg += STEP_DEG) {
    const a = (deg * Math.PI) / 180;
    const [c, s] = [Math.cos(a), Math.sin(a)];
    rows.fill(0);
    for (let i = 0; i < ink.length; i += 2) {
      rows[Math.round(ink[i + 1] * c - ink[i] * s) + diag]++;
    }
    let score = 0;
    for (const n of rows) {
      score += n * n;
    }
    if (score > best.score) {
      best = { deg, score };
    }
  }
  return best.deg;
}

/** The plane turned by -deg about its centre (bilinear), so rows at `deg` come out level; new corners white. */
export function rotate(
  p: { w: number; h: number; data: Float32Array | Uint8Array },
  deg: number,
): { w: number; h: number; data: Float32Array } {
  const { w, h, data } = p;
  const out = new Float32Array(w * h).fill(255);
  const a = (deg * Math.PI) / 180;
  const [c, s] = [Math.cos(a), Math.sin(a)];
  const [cx, cy] = [w / 2, h / 2];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const xs = cx + (x - cx) * c - (y - cy) * s;
      const ys = cy + (x - cx) * s + (y - cy) * c;
      const x0 = Math.floor(xs);
      const y0 = Math.floor(ys);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= w || y0 + 1 >= h) {
        continue;
      }
      const fx = xs - x0;
      const fy = ys - y0;
      const i = y0 * w + x0;
      out[y * w + x] = (data[i] * (1 - fx) + data[i + 1] * fx) * (1 - fy) + (data[i + w] * (1 - fx) + data[i + w + 1] * fx) * fy;
    }
  }
  return { w, h, data: out };
}
