// The sharpness of selfies against that of identity document photos, as the image_quality check
// measures them (not part of `npm run bench`; run with `node bin/run-ts.js bench/selfie-quality.ts`).
// Prints figures; asserts nothing. docs/api.md ("Image quality") and the selfie threshold in
// src/identity-imaging/image-quality.ts quote them.
//
//   Selfies: the six sample photographs shipped in the face-api package (1920 px wide, read from
//   node_modules), each framed around its largest face as a phone's front camera frames a selfie
//   (the face 1/2, 1/3 and 1/4 of the width, 3:4), at 720 and 1080 px wide (Chromium scales), then
//   as a phone sends it: JPEG 85; recompressed (JPEG 70 of that, as a messaging app does); downscaled to 480 px wide; softened
//   (Gaussian σ 1 px, a phone's noise reduction); and deliberately blurred (σ 3 and 6 px at 720 px,
//   scaled with the width); each without sensor noise (a phone's denoised output) and with σ 2,
//   added after the blur as a sensor adds it (noise measures as detail: it sets a floor).
//   Documents: synthetic TD1 cards and TD3 passport pages (test/helpers/id-card.ts, 1600 px, JPEG 88,
//   noise σ 3), front and
//   back, sharp and blurred by σ 1.5 and 3 px.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BLUR_MIN, SELFIE_BLUR_MIN } from '../src/identity-imaging/image-quality.js';
import { ImageJail } from '../src/jail/image-jail.js';
import { launchChromium } from '../test/helpers/browser.js';
import { renderIdCard, renderPhoto } from '../test/helpers/id-card.js';
import { blur, noise, readPng, type Rgba, writeJpeg } from '../test/helpers/image-ops.js';
import jpeg from 'jpeg-js';

const demo = join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo');
const jail = new ImageJail({ qualityTimeoutMs: 30_000, ocrTimeoutMs: 60_000, memoryMb: 512, faceTimeoutMs: 60_000, faceWasmMb: 1024 });
const browser = await launchChromium();

const readJpeg = (b: Buffer): Rgba => {
  const d = jpeg.decode(b, { useTArray: true, formatAsRGBA: true });
  return { width: d.width, height: d.height, data: d.data };
};
/** Area-average downscale to `width` px wide. */
function shrink(img: Rgba, width: number): Rgba {
  const s = img.width / width;
  const w = width;
  const h = Math.round(img.height / s);
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const acc = [0, 0, 0];
      let n = 0;
      for (let yy = Math.floor(y * s); yy < Math.min(img.height, Math.floor((y + 1) * s)); yy++) {
        for (let xx = Math.floor(x * s); xx < Math.min(img.width, Math.floor((x + 1) * s)); xx++) {
          const i = (yy * img.width + xx) * 4;
          acc[0] += img.data[i];
          acc[1] += img.data[i + 1];
          acc[2] += img.data[i + 2];
          n++;
        }
      }
      const o = (y * w + x) * 4;
      out.set([acc[0] / n, acc[1] / n, acc[2] / n, 255], o);
    }
  }
  return { width: w, height: h, data: out };
}

const groups = new Map<string, number[]>();
const record = async (group: string, bytes: Buffer) => {
  const q = await jail.measure(bytes);
  groups.set(group, [...(groups.get(group) ?? []), q.sharpness]);
};

try {
  for (let n = 1; n <= 6; n++) {
    const photo = readFileSync(join(demo, `sample${n}.jpg`));
    const face = (await jail.readFaces(photo)).faces[0]?.box;
    if (!face) {
      continue;
    }
    console.log(`sample${n}: largest face ${Math.round(face.width)} px wide`);
    for (const share of [2, 3, 4]) {
      const w = face.width * share;
      const h = (w * 4) / 3;
      const crop = { x: face.x + face.width / 2 - w / 2, y: face.y + face.height / 2 - h / 2, width: w, height: h };
      for (const widthPx of [720, 1080]) {
        const framed = readPng(await renderPhoto(browser, { image: photo, crop }, widthPx));
        const k = widthPx / 720;
        // Optics first (focus, shake, the phone's own softening), then the sensor's noise, then JPEG.
        for (const sd of [0, 2]) {
          const shot = (sigma: number) => noise(sigma > 0 ? blur(framed, sigma * k) : framed, sd, n);
          const img = shot(0);
          const sent = writeJpeg(img, 85);
          const tag = `noise σ ${sd}`;
          await record(`selfie, ${tag}: JPEG 85`, sent);
          // Enlarged: the crop had fewer camera pixels than the image it became.
          await record(`selfie, ${tag}: JPEG 85, ${w < widthPx ? 'crop enlarged' : 'crop not enlarged'}`, sent);
          await record(`selfie, ${tag}: recompressed (JPEG 70 of it)`, writeJpeg(readJpeg(sent), 70));
          await record(`selfie, ${tag}: downscaled to 480 px, JPEG 85`, writeJpeg(shrink(img, 480), 85));
          for (const [sigma, what] of [
            [1, 'softened (σ 1 px)'],
            [3, 'blurred σ 3 px (at 720)'],
            [6, 'blurred σ 6 px (at 720)'],
          ] as const) {
            const blurred = writeJpeg(shot(sigma), 85);
            await record(`selfie, ${tag}: ${what}, JPEG 85`, blurred);
            await record(`selfie, ${tag}: ${what}, recompressed (JPEG 70)`, writeJpeg(readJpeg(blurred), 70));
          }
        }
      }
    }
  }
  const person = {
    surnames: 'GARCIA LOPEZ',
    given: 'ANA MARIA',
    birth: '900412',
    expiry: '310101',
    sex: 'F' as const,
    documentNumber: 'IDMEX1234',
  };
  for (const format of ['TD1', 'TD3'] as const) {
    const card = await renderIdCard(browser, { format, person, printedName: 'Ana María García López' });
    for (const side of ['front', 'back'] as const) {
      const img = noise(readPng(card[side]), 3);
      await record('document: sharp', writeJpeg(img, 88));
      await record('document: blurred σ 1.5 px', writeJpeg(blur(img, 1.5), 88));
      await record('document: blurred σ 3 px', writeJpeg(blur(img, 3), 88));
    }
  }
  const median = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const atLeast = (v: number[], t: number) => v.filter((x) => x >= t).length;
  console.log(`| images | n | min | median | max | ≥ ${SELFIE_BLUR_MIN} | ≥ ${BLUR_MIN} |\n|---|---|---|---|---|---|---|`);
  for (const [group, v] of groups) {
    const row = [
      v.length,
      Math.min(...v),
      Math.round(median(v) * 10) / 10,
      Math.max(...v),
      atLeast(v, SELFIE_BLUR_MIN),
      atLeast(v, BLUR_MIN),
    ];
    console.log(`| ${group} | ${row.join(' | ')} |`);
  }
} finally {
  await browser.close();
  await jail.close();
}
