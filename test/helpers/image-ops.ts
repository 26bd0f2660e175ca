// What a phone does to a photograph of a card, applied to a synthetic one: defocus (a Gaussian
// blur, as three box blurs), a reflection (a clipped white spot with a soft edge), sensor noise,
// and JPEG compression. Deterministic: the noise comes from a seeded generator.
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

export function readPng(png: Buffer): Rgba {
  const p = PNG.sync.read(png);
  return { width: p.width, height: p.height, data: new Uint8Array(p.data) };
}

export function writePng(img: Rgba): Buffer {
  const p = new PNG({ width: img.width, height: img.height });
  p.data = Buffer.from(img.data);
  return PNG.sync.write(p);
}

export function writeJpeg(img: Rgba, quality = 90): Buffer {
  return jpeg.encode({ width: img.width, height: img.height, data: img.data }, quality).data;
}

/** One box blur of radius r along rows (dx = 1) or columns (dx = width), each channel. */
function boxPass(src: Uint8Array, w: number, h: number, r: number, horizontal: boolean): Uint8Array {
  const out = new Uint8Array(src.length);
  const [outer, inner] = horizontal ? [h, w] : [w, h];
  const at = (o: number, i: number) => (horizontal ? (o * w + i) * 4 : (i * w + o) * 4);
  for (let o = 0; o < outer; o++) {
    for (let c = 0; c < 3; c++) {
      let acc = 0;
      for (let i = -r; i <= r; i++) {
        acc += src[at(o, Math.min(inner - 1, Math.max(0, i))) + c];
      }
      for (let i = 0; i < inner; i++) {
        out[at(o, i) + c] = acc / (2 * r + 1);
        acc += src[at(o, Math.min(inner - 1, i + r + 1)) + c] - src[at(o, Math.max(0, i - r)) + c];
      }
    }
    for (let i = 0; i < inner; i++) {
      out[at(o, i) + 3] = 255;
    }
  }
  return out;
}

/** A Gaussian blur of about `sigma` pixels (three box passes each way). */
export function blur(img: Rgba, sigma: number): Rgba {
  const r = Math.max(1, Math.round(Math.sqrt((12 * sigma * sigma) / 3 + 1) / 2));
  let d = img.data;
  for (let k = 0; k < 3; k++) {
    d = boxPass(boxPass(d, img.width, img.height, r, true), img.width, img.height, r, false);
  }
  return { ...img, data: d };
}

/** A reflection: white, clipped within `radius` of (cx, cy) (fractions of the width), fading out over as much again. */
export function glare(img: Rgba, cx: number, cy: number, radius: number): Rgba {
  const d = new Uint8Array(img.data);
  const [x0, y0, r] = [cx * img.width, cy * img.height, radius * img.width];
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const dist = Math.hypot(x - x0, y - y0);
      const a = dist <= r ? 1 : dist >= 2 * r ? 0 : 1 - (dist - r) / r;
      if (a > 0) {
        const i = (y * img.width + x) * 4;
        for (let c = 0; c < 3; c++) {
          d[i + c] = Math.min(255, d[i + c] + (255 - d[i + c]) * a + (a === 1 ? 255 : 0));
        }
      }
    }
  }
  return { ...img, data: d };
}

/** Sensor noise: each channel moved by a normal deviate of `sd` levels (seeded). */
export function noise(img: Rgba, sd: number, seed = 1): Rgba {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) + 0.5) / 4294967296;
  };
  const d = new Uint8Array(img.data);
  for (let i = 0; i < d.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      const n = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
      d[i + c] = Math.max(0, Math.min(255, Math.round(d[i + c] + n * sd)));
    }
  }
  return { ...img, data: d };
}
