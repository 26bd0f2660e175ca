// How well the built-in identity checks read synthetic documents on this machine (not part of
// `npm run bench`; run with `node bin/run-ts.js bench/identity-ocr.ts`). Prints figures; asserts
// nothing. docs/api.md ("Built-in checks") quotes them.
//
//   1. OCR of the machine-readable zone through the image jail, over 72 photographs: TD1 cards
//      (zone on the back) and TD3 passport pages, DejaVu Sans Mono regular and bold (the monospace
//      faces this machine has; real documents use OCR-B), 1000, 1600 and 2400 px wide, turned 0°,
//      2.5° and -4°, with and without sensor noise (σ 8 levels), JPEG quality 88. A reading counts
//      as correct when its check digits hold and its surnames and expiry date are the printed ones.
//   2. Sharpness and glare against defocus (Gaussian σ in px at 1600 px wide) and reflections, and
//      whether the zone is still read.
import { launchChromium } from '../test/helpers/browser.js';
import { renderIdCard } from '../test/helpers/id-card.js';
import { blur, glare, noise, readPng, writeJpeg } from '../test/helpers/image-ops.js';
import type { MrzPerson } from '../test/helpers/mrz-lines.js';
import { ImageJail } from '../src/jail/image-jail.js';

const people: MrzPerson[] = [
  { surnames: 'GARCIA LOPEZ', given: 'ANA MARIA', birth: '900412', expiry: '310101', sex: 'F', documentNumber: 'IDMEX1234' },
  { surnames: 'OYARZUN', given: 'JOSE ANGEL', birth: '781130', expiry: '290615', sex: 'M', documentNumber: 'G08QX7730' },
];
const jail = new ImageJail({ qualityTimeoutMs: 30_000, ocrTimeoutMs: 120_000, memoryMb: 512, faceTimeoutMs: 30_000, faceWasmMb: 768 });
const browser = await launchChromium();
const times: number[] = [];
const byGroup = new Map<string, [number, number]>();
const count = (group: string, ok: boolean) => {
  const [a, n] = byGroup.get(group) ?? [0, 0];
  byGroup.set(group, [a + (ok ? 1 : 0), n + 1]);
};
try {
  await jail.readMrz(writeJpeg(readPng((await renderIdCard(browser, { format: 'TD1', person: people[0], printedName: 'x' })).back))); // warm-up
  let n = 0;
  for (const format of ['TD1', 'TD3'] as const) {
    for (const weight of [400, 700] as const) {
      for (const widthPx of [1000, 1600, 2400]) {
        for (const rotateDeg of [0, 2.5, -4]) {
          const person = people[n % 2];
          const card = await renderIdCard(browser, {
            format,
            person,
            printedName: 'x',
            widthPx,
            rotateDeg,
            mrzFont: { family: 'DejaVu Sans Mono', weight },
          });
          for (const sd of [0, 8]) {
            const img = readPng(format === 'TD1' ? card.back : card.front);
            const r = await jail.readMrz(writeJpeg(sd ? noise(img, sd, ++n) : img, 88));
            times.push(r.ms);
            const ok = r.reading?.valid === true && r.reading.surnames === person.surnames && r.reading.expirationDate === person.expiry;
            for (const g of ['all', format, `weight ${weight}`, `${widthPx} px`, `${rotateDeg}°`, `noise ${sd}`]) {
              count(g, ok);
            }
          }
        }
      }
    }
  }
  times.sort((a, b) => a - b);
  console.log('OCR of the zone (correct / photographs):');
  for (const [g, [ok, total]] of byGroup) {
    console.log(`  ${g.padEnd(12)} ${ok}/${total}`);
  }
  console.log(`  time per photograph: median ${times[times.length >> 1]} ms, max ${times[times.length - 1]} ms`);

  console.log('Quality measures (TD1 at 1600 px; sharpness at least 150, glare at most 0.003):');
  const card = await renderIdCard(browser, { format: 'TD1', person: people[1], printedName: 'José Ángel Oyarzun', rotateDeg: 1.5 });
  for (const side of ['front', 'back'] as const) {
    const img = readPng(card[side]);
    for (const sigma of [0, 1, 1.5, 2, 2.5, 3, 4]) {
      const bytes = writeJpeg(noise(sigma ? blur(img, sigma) : img, 3), 88);
      const q = await jail.measure(bytes);
      const read = side === 'back' ? ((await jail.readMrz(bytes)).reading?.valid ?? false) : '-';
      console.log(`  ${side} blur σ${sigma}: sharpness ${q.sharpness}, zone read: ${read}`);
    }
    for (const [x, y, r] of [
      [0.6, 0.4, 0.01],
      [0.6, 0.4, 0.02],
      [0.6, 0.4, 0.04],
      [0.5, 0.75, 0.02],
      [0.5, 0.75, 0.03],
    ]) {
      const bytes = writeJpeg(glare(img, x, y, r), 88);
      const q = await jail.measure(bytes);
      const read = side === 'back' ? ((await jail.readMrz(bytes)).reading?.valid ?? false) : '-';
      console.log(`  ${side} glare at (${x}, ${y}) radius ${r}: glare ${q.glare}, zone read: ${read}`);
    }
  }
} finally {
  await browser.close();
  await jail.close();
}
