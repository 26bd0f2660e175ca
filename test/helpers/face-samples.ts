// Faces for the face check of identity verification, from the sample photographs shipped in the
// face-api package (read from node_modules, never copied into the repository): "Ana" is the largest
// face of the sixth sample, another person the largest of the first. The card's portrait and the
// selfies are framed from them; the face boxes come from the service's own face reader.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { ImageJail } from '../../src/jail/image-jail.js';
import type { FoundFace } from '../../src/identity-imaging/face-descriptor.js';
import { type PhotoRegion, renderPhoto } from './id-card.js';
import jpeg from 'jpeg-js';
import { blur, noise, readPng, writeJpeg } from './image-ops.js';

const demo = join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo');

/** An identity photo's framing of a face found at `box`: head and a little of the shoulders, 230:290. */
function portraitOf(image: Buffer, box: FoundFace['box']): PhotoRegion {
  const w = box.width * 1.9;
  const h = (w * 290) / 230;
  return { image, crop: { x: box.x + box.width / 2 - w / 2, y: box.y + box.height * 0.42 - h / 2, width: w, height: h } };
}

/** A selfie's framing: the face smaller in a wider 3:4 view (wide enough to pass the sharpness check). */
function selfieOf(image: Buffer, box: FoundFace['box']): PhotoRegion {
  const w = box.width * 4;
  const h = (w * 4) / 3;
  return { image, crop: { x: box.x + box.width / 2 - w / 2, y: box.y + box.height / 2 - h / 2, width: w, height: h } };
}

export interface SampleFaces {
  /** Ana's face as a card's portrait (renderIdCard's `portrait`). */
  portrait: PhotoRegion;
  /** JPEG selfies: Ana's face framed otherwise, and another person's. */
  selfies: { ana: Buffer; other: Buffer };
}

export async function sampleFaces(jail: Pick<ImageJail, 'readFaces'>, browser: Browser): Promise<SampleFaces> {
  const [anaPhoto, otherPhoto] = [6, 1].map((n) => readFileSync(join(demo, `sample${n}.jpg`)));
  const anaFace = (await jail.readFaces(anaPhoto)).faces[0];
  const otherFace = (await jail.readFaces(otherPhoto)).faces[0];
  const selfie = async (photo: Buffer, box: FoundFace['box']) =>
    writeJpeg(readPng(await renderPhoto(browser, selfieOf(photo, box), 720)), 90);
  return {
    portrait: portraitOf(anaPhoto, anaFace.box),
    selfies: { ana: await selfie(anaPhoto, anaFace.box), other: await selfie(otherPhoto, otherFace.box) },
  };
}

/**
 * Ana's face as a phone sends a selfie taken from a distance: framed at three times the face's
 * width from the 1920-px sample (so enlarged), 1080 px wide, softened as a phone's noise reduction
 * does (σ 1 px), with sensor noise (σ 2), JPEG 85 recompressed at 70 by a messaging app (sharpness
 * under the documents' 150, as real selfies measured 70–100); and the same strongly blurred (σ 9 px at
 * 1080 px: 6 at 720).
 */
export async function phoneSelfies(jail: Pick<ImageJail, 'readFaces'>, browser: Browser): Promise<{ phone: Buffer; blurred: Buffer }> {
  const photo = readFileSync(join(demo, 'sample6.jpg'));
  const box = (await jail.readFaces(photo)).faces[0].box;
  const w = box.width * 3;
  const h = (w * 4) / 3;
  const region = { image: photo, crop: { x: box.x + box.width / 2 - w / 2, y: box.y + box.height / 2 - h / 2, width: w, height: h } };
  const framed = readPng(await renderPhoto(browser, region, 1080));
  const img = noise(blur(framed, 1), 2);
  const recompressed = (b: Buffer) => {
    const d = jpeg.decode(b, { useTArray: true, formatAsRGBA: true });
    return writeJpeg({ width: d.width, height: d.height, data: d.data }, 70);
  };
  return { phone: recompressed(writeJpeg(img, 85)), blurred: recompressed(writeJpeg(noise(blur(framed, 9), 2), 85)) };
}
