// How usable a photograph of an identity document is, measured on its decoded planes
// (decode-image.ts): blur and glare. Both are measured on the image brought to a fixed size
// (ANALYSIS_SIDE on its longer side, by area averaging), so that the figures do not depend on the
// camera's resolution, and sensor noise, which averaging removes, does not pass for detail.
//
// blur: the variance of the Laplacian (4-neighbour) of the luminance. Printed text has sharp
//   edges, a large variance; out of focus or shaken, the edges spread and the variance falls.
// glare: the share of the image in bright blobs: connected areas of pixels whose three channels
//   are all clipped (min(R, G, B) ≥ CLIPPED), of at least MIN_BLOB of the image. A reflection of
//   a lamp or the sun on the card's laminate is such a blob, and what is under it cannot be read;
//   a few white pixels of a printed highlight are not.
// The thresholds come from measurements on synthetic cards (test/integration/identity-checks.test.ts;
// figures in docs/api.md, "Built-in checks").
import type { Planes } from './decode-image.js';

export const ANALYSIS_SIDE = 640;
const CLIPPED = 250;
const MIN_BLOB = 0.002;

/** Below this variance of the Laplacian an image of a document is too blurred to read. */
export const BLUR_MIN = 150;
/**
 * Below this variance of the Laplacian a selfie is too blurred to judge a face by. A face has soft
 * skin where a card has printed edges, so a selfie measures far lower than a document at the same
 * focus, and the document threshold failed sharp ones (a face that matched measured 70–100).
 * Measured by bench/selfie-quality.ts on the face-api package's six sample photographs (1920 px
 * wide) framed as selfies, without and with sensor noise (σ 2); table in docs/api.md, "Image
 * quality". 216 phone-like JPEGs (720 and 1080 px wide, JPEG 85, recompressed at 70, downscaled to
 * 480 px): min 4.4, medians 55–74, max 380, only 39 of them at 150 or more. Softened by σ 1 px:
 * medians 13–22. 288 deliberately blurred (σ 3 and 6 px at 720 px, JPEG 85 or recompressed at 70):
 * max 16.9 (recompressing noise adds blocking the measure reads as detail). Documents: sharp
 * 1203–2321, σ 1.5 px 99–215, σ 3 px 32–70. So 20: every deliberately blurred selfie falls below
 * it; 176 of the 216 phone-like ones pass, every one framed without enlarging among them (the
 * others are faces enlarged up to about 3 times from a distant shot, soft in fact).
 */
export const SELFIE_BLUR_MIN = 20;
/** Above this share of the image in clipped blobs, a reflection hides part of the document. */
export const GLARE_MAX = 0.003;

export interface QualityMeasures {
  /** Variance of the Laplacian at ANALYSIS_SIDE (higher: sharper). */
  sharpness: number;
  /** Share of the image (0–1) in clipped bright blobs. */
  glare: number;
  /** Mean luminance 0–255. */
  brightness: number;
}

/** A plane brought to `side` pixels on its longer side by averaging the pixels under each new one. */
export function downscale(src: Uint8Array, w: number, h: number, side = ANALYSIS_SIDE): { w: number; h: number; data: Float32Array } {
  const s = Math.max(1, Math.max(w, h) / side);
  const w2 = Math.max(1, Math.round(w / s));
  const h2 = Math.max(1, Math.round(h / s));
  const sum = new Float32Array(w2 * h2);
  const count = new Uint32Array(w2 * h2);
  const colOf = new Uint32Array(w);
  for (let x = 0; x < w; x++) {
    colOf[x] = Math.min(w2 - 1, Math.floor((x * w2) / w));
  }
  for (let y = 0; y < h; y++) {
    const row = Math.min(h2 - 1, Math.floor((y * h2) / h)) * w2;
    const base = y * w;
    for (let x = 0; x < w; x++) {
      const i = row + colOf[x];
      sum[i] += src[base + x];
      count[i]++;
    }
  }
  for (let i = 0; i < sum.length; i++) {
    sum[i] /= count[i];
  }
  return { w: w2, h: h2, data: sum };
}

export function laplacianVariance(p: { w: number; h: number; data: Float32Array }): number {
  const { w, h, data } = p;
  let sum = 0;
  let sq = 0;
  let n = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const v = data[i - 1] + data[i + 1] + data[i - w] + data[i + w] - 4 * data[i];
      sum += v;
      sq += v * v;
      n++;
    }
  }
  if (n === 0) {
    return 0;
  }
  const mean = sum / n;
  return sq / n - mean * mean;
}

/** Share of the plane in 4-connected blobs of clipped pixels larger than MIN_BLOB of it. */
export function glareShare(p: { w: number; h: number; data: Float32Array }): number {
  const { w, h, data } = p;
  const seen = new Uint8Array(w * h);
  const stack = new Int32Array(w * h);
  const minArea = MIN_BLOB * w * h;
  let glare = 0;
  for (let start = 0; start < data.length; start++) {
    if (seen[start] || data[start] < CLIPPED) {
      continue;
    }
    let top = 0;
    let area = 0;
    stack[top++] = start;
    seen[start] = 1;
    while (top > 0) {
      const i = stack[--top];
      area++;
      const x = i % w;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w]) {
        if (j >= 0 && j < data.length && !seen[j] && data[j] >= CLIPPED) {
          seen[j] = 1;
          stack[top++] = j;
        }
      }
    }
    if (area >= minArea) {
      glare += area;
    }
  }
  return glare / (w * h);
}

export function measureQuality(planes: Planes): QualityMeasures {
  const gray = downscale(planes.gray, planes.width, planes.height);
  const min = downscale(planes.minChannel, planes.width, planes.height);
  let total = 0;
  for (const v of gray.data) {
    total += v;
  }
  const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;
  return {
    sharpness: round(laplacianVariance(gray), 1),
    glare: round(glareShare(min), 4),
    brightness: round(total / gray.data.length, 1),
  };
}
