// Faces for the face check of identity verification, from the sample photographs shipped in the
// face-api package (read from node_modules, never copied into the repository): "Ana" is the largest
// face of the sixth sample, another person the largest of the first. The card's portrait and the
// selfies are framed from them; the face boxes come from the service's own face reader.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { ImageJail } from '../../src/jail/image-jail.js';
import type { FoundFace } from '../../src/imaging/face-descriptor.js';
import { type PhotoRegion, renderPhoto } from './id-card.js';
import { readPng, writeJpeg } from './image-ops.js';

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
