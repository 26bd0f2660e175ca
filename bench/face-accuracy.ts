// How well the `face` identity check separates people, on photographs the operator supplies (not
// part of `npm run bench`; run with `node bin/run-ts.js bench/face-accuracy.ts DIR`). DIR holds one
// folder per person with JPEG or PNG photographs of that person. Prints figures; asserts nothing.
// docs/api.md ("Face comparison") and docs/performance.md quote them.
//
//   1. Plain pairs: every two photographs, of the same person (genuine) or not (impostor), through
//      the image jail's face worker as the check runs them: the largest face of each, Euclidean
//      distance of the descriptors.
//   2. Card pairs, the check's real use: each person's first photograph (by name) printed as the
//      portrait of a synthetic identity card (test/helpers/id-card.ts, Chromium, TD1 front at 1600 px,
//      JPEG 88), against every other photograph of that person as the selfie (genuine) and every
//      photograph of the others (impostor).
// For each: the distance distributions, and the false-accept rate (impostor pairs under the
// threshold) and false-reject rate (genuine pairs not under it, or without a face) at 0.40–0.70.
// Then the time per photograph and the process's resident memory.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { descriptorDistance, FACE_MAX_SIDE } from '../src/identity-imaging/face-descriptor.js';
import { ImageJail } from '../src/jail/image-jail.js';
import { launchChromium } from '../test/helpers/browser.js';
import { renderIdCard } from '../test/helpers/id-card.js';
import { readPng, writeJpeg } from '../test/helpers/image-ops.js';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node bin/run-ts.js bench/face-accuracy.ts DIR (one folder per person, photographs inside)');
  process.exit(2);
}
const people = readdirSync(dir)
  .filter((p) => statSync(join(dir, p)).isDirectory())
  .sort()
  .map((name) => ({
    name,
    files: readdirSync(join(dir, name))
      .filter((f) => /\.(jpe?g|png)$/i.test(f))
      .sort()
      .map((f) => join(dir, name, f)),
  }))
  .filter((p) => p.files.length > 0);

const jail = new ImageJail({ qualityTimeoutMs: 30_000, ocrTimeoutMs: 60_000, memoryMb: 512, faceTimeoutMs: 60_000, faceWasmMb: 4096 });
const rssBefore = process.memoryUsage().rss;
let rssMax = 0;
const times: number[] = [];

interface Shot {
  person: string;
  file: string;
  descriptor?: number[];
  box?: { x: number; y: number; width: number; height: number };
  faces: number;
}

async function read(person: string, file: string, bytes: Buffer): Promise<Shot> {
  const t = performance.now();
  const r = await jail.readFaces(bytes);
  times.push(performance.now() - t);
  rssMax = Math.max(rssMax, process.memoryUsage().rss);
  return { person, file, descriptor: r.descriptor, box: r.faces[0]?.box, faces: r.faces.length };
}

const q = (a: number[], p: number) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))] : Number.NaN;
};
const f3 = (v: number) => v.toFixed(3);
const pct = (k: number, n: number) => `${k}/${n} (${n ? ((100 * k) / n).toFixed(1) : '-'} %)`;

interface Pair {
  genuine: boolean;
  d?: number;
  a: string;
  b: string;
}

function report(title: string, pairs: Pair[]) {
  const gen = pairs.filter((p) => p.genuine);
  const imp = pairs.filter((p) => !p.genuine);
  const gd = gen.flatMap((p) => (p.d === undefined ? [] : [p.d]));
  const id = imp.flatMap((p) => (p.d === undefined ? [] : [p.d]));
  console.log(
    `\n${title}: ${gen.length} genuine pairs (${gen.length - gd.length} without a face), ${imp.length} impostor pairs (${imp.length - id.length} without a face)`,
  );
  const dist = (a: number[]) =>
    `min ${f3(q(a, 0))} p5 ${f3(q(a, 0.05))} p25 ${f3(q(a, 0.25))} median ${f3(q(a, 0.5))} p75 ${f3(q(a, 0.75))} p95 ${f3(q(a, 0.95))} max ${f3(q(a, 1))}`;
  console.log(`  genuine  ${dist(gd)}`);
  console.log(`  impostor ${dist(id)}`);
  // False accepts among the impostor pairs compared (a pair without a face is never accepted);
  // false rejects among the genuine pairs compared, and among all (a missing face rejects too).
  console.log('  threshold  false accepts        false rejects (compared)  false rejects (all)');
  for (let t = 0.4; t <= 0.7001; t += 0.05) {
    const fa = id.filter((d) => d < t).length;
    const fr = gd.filter((d) => d >= t).length;
    console.log(
      `  ${t.toFixed(2)}       ${pct(fa, id.length).padEnd(20)} ${pct(fr, gd.length).padEnd(25)} ${pct(fr + gen.length - gd.length, gen.length)}`,
    );
  }
  const name = (f: string) => f.split('/').slice(-2).join('/');
  const show = (ps: Pair[]) => ps.map((p) => `${name(p.a)} ~ ${name(p.b)} ${f3(p.d!)}`).join('; ');
  const compared = (ps: Pair[]) => ps.filter((p) => p.d !== undefined).sort((x, y) => x.d! - y.d!);
  console.log(`  closest genuine: ${show(compared(gen).slice(0, 3))}`);
  console.log(`  farthest genuine: ${show(compared(gen).slice(-3))}`);
  console.log(`  closest impostor: ${show(compared(imp).slice(0, 3))}`);
}

try {
  const warm = performance.now();
  await jail.readFaces(readFileSync(people[0].files[0])); // starts the worker and loads the models
  console.log(`worker start and model load with the first photo: ${((performance.now() - warm) / 1000).toFixed(1)} s`);
  times.length = 0;

  const shots: Shot[] = [];
  for (const p of people) {
    for (const f of p.files) {
      const s = await read(p.name, f, readFileSync(f));
      if (s.faces !== 1) {
        console.log(`  ${f}: ${s.faces} faces${s.faces > 1 ? ' (the largest taken)' : ''}`);
      }
      shots.push(s);
    }
  }
  const photoTimes = [...times];
  const dist = (a: Shot, b: Shot) => (a.descriptor && b.descriptor ? descriptorDistance(a.descriptor, b.descriptor) : undefined);
  const plain: Pair[] = [];
  for (let i = 0; i < shots.length; i++) {
    for (let j = i + 1; j < shots.length; j++) {
      plain.push({ genuine: shots[i].person === shots[j].person, d: dist(shots[i], shots[j]), a: shots[i].file, b: shots[j].file });
    }
  }
  console.log(`\n${people.length} people, ${shots.length} photographs (${shots.filter((s) => !s.descriptor).length} without a face)`);
  report('Plain photograph pairs', plain);

  const browser = await launchChromium();
  const cardPairs: Pair[] = [];
  const cardTimes: number[] = [];
  try {
    for (const p of people) {
      const portrait = shots.find((s) => s.file === p.files[0]);
      if (p.files.length < 2 || !portrait?.box) {
        continue;
      }
      // An identity photograph's framing: the head and a little of the shoulders, 230:290.
      const b = portrait.box;
      const w = b.width * 1.9;
      const h = (w * 290) / 230;
      const crop = { x: b.x + b.width / 2 - w / 2, y: b.y + b.height * 0.42 - h / 2, width: w, height: h };
      const card = await renderIdCard(browser, {
        format: 'TD1',
        person: { surnames: 'PRUEBA', given: 'PERSONA', birth: '900101', expiry: '300101', sex: 'F', documentNumber: 'X00000001' },
        printedName: p.name,
        portrait: { image: readFileSync(p.files[0]), crop },
        widthPx: 1600,
      });
      const t = performance.now();
      const front = await read(p.name, `${p.name} card`, writeJpeg(readPng(card.front), 88));
      cardTimes.push(performance.now() - t);
      if (!front.descriptor) {
        console.log(`  ${p.name}: no face found on the card`);
      }
      for (const s of shots) {
        if (s.file !== p.files[0]) {
          cardPairs.push({ genuine: s.person === p.name, d: dist(front, s), a: front.file, b: s.file });
        }
      }
    }
  } finally {
    await browser.close();
  }
  report('Card (portrait = first photograph) against selfie (the other photographs)', cardPairs);

  console.log(
    `\nTime per photograph through the worker (images brought to ${FACE_MAX_SIDE} px): median ${(q(photoTimes, 0.5) / 1000).toFixed(2)} s, max ${(q(photoTimes, 1) / 1000).toFixed(2)} s (${photoTimes.length} photos)`,
  );
  console.log(
    `Time per card front (1600 × 1004 px JPEG): median ${(q(cardTimes, 0.5) / 1000).toFixed(2)} s, max ${(q(cardTimes, 1) / 1000).toFixed(2)} s`,
  );
  console.log(
    `Resident memory of the process: ${(rssBefore / 1e6).toFixed(0)} MB before the worker, at most ${(rssMax / 1e6).toFixed(0)} MB while reading`,
  );
} finally {
  await jail.close();
}
