// Reads the machine-readable zone of a document photograph with Tesseract (tesseract.js: the
// C++ engine compiled to WebAssembly, run in the worker thread it starts). Only in the image jail:
// the photograph was decoded there by decode-image.ts, and Tesseract is given a plain grey image
// the service wrote itself (PGM), never the signer's file.
//
// Nothing leaves the machine: the English model comes from the @tesseract.js-data/eng package in
// node_modules (langPath is that folder; without it tesseract.js would download it from a CDN), the
// engine from tesseract.js-core, and the model is neither cached nor written anywhere (cacheMethod
// 'none'). Only the zone's alphabet is allowed, which is what makes a general English model read it.
//
// Tesseract and its model are an optional part of the install (optional-readers.ts): loaded when
// the first zone is read, never when this module is, so the image jail's worker that shares this
// module measures photographs on a server installed without them.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Worker } from 'tesseract.js';
import type { Planes } from './decode-image.js';
import { rotate, skewAngle } from './deskew.js';
import { downscale } from './image-quality.js';
import { candidateLines, findMrz, type MrzReading } from './mrz-text.js';

const require = createRequire(import.meta.url);
/** The integer-quantized LSTM model ("best_int"), the one tesseract.js itself loads for LSTM-only reading. */
export const langPath = (): string => join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
/**
 * The sizes (longer side, px) and orientations the photo is read at, in turn, until a valid zone is
 * read. Measured on synthetic cards (docs/api.md, "Built-in checks"), one reading each: at 1000 px 71
 * of 72 zones were read, at 1500 px 68, at 2000 px 61 (large characters read worse); the second
 * size catches zones whose characters are small in the photo; upside down, a card put the wrong way.
 */
const ATTEMPTS = [
  { side: 1000, upsideDown: false },
  { side: 1500, upsideDown: false },
  { side: 1000, upsideDown: true },
];

let engine: Promise<Worker> | undefined;

function ocrEngine(): Promise<Worker> {
  engine ??= (async () => {
    const { createWorker, OEM, PSM } = await import('tesseract.js');
    const w = await createWorker('eng', OEM.LSTM_ONLY, { langPath: langPath(), cacheMethod: 'none', gzip: true });
    await w.setParameters({
      tessedit_char_whitelist: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<',
      tessedit_pageseg_mode: PSM.AUTO,
      // Given, so that the engine does not estimate it and print that it did.
      user_defined_dpi: '300',
      // The engine's notes ("Detected 37 diacritics") would go to the process's output.
      debug_file: '/dev/null',
    });
    return w;
  })();
  return engine;
}

/** A grey plane as a binary PGM (P5): Leptonica reads it without a decoder of its own. */
function pgm(w: number, h: number, data: Float32Array | Uint8Array): Buffer {
  const head = Buffer.from(`P5\n${w} ${h}\n255\n`, 'latin1');
  const body = Buffer.alloc(w * h);
  for (let i = 0; i < body.length; i++) {
    body[i] = data[i];
  }
  return Buffer.concat([head, body]);
}

export interface MrzOcrResult {
  /** The zone found, valid or not; undefined when no zone-like lines were read. */
  reading?: MrzReading;
  /** Lines of the zone's alphabet and length read (a photo with none has no zone, or is not readable). */
  candidateLines: number;
  /** Whether the zone was read with the photo turned upside down. */
  upsideDown: boolean;
  /** Degrees the photo was turned back before it was read. */
  skew: number;
  ms: number;
}

export async function readMrz(planes: Planes): Promise<MrzOcrResult> {
  const started = Date.now();
  const w = await ocrEngine();
  const skew = skewAngle(downscale(planes.gray, planes.width, planes.height));
  const prepared = new Map<number, { w: number; h: number; data: Float32Array | Uint8Array }>();
  const at = (side: number) => {
    let p = prepared.get(side);
    if (!p) {
      p =
        Math.max(planes.width, planes.height) > side
          ? downscale(planes.gray, planes.width, planes.height, side)
          : { w: planes.width, h: planes.height, data: planes.gray };
      if (Math.abs(skew) >= 0.5) {
        p = rotate(p, skew);
      }
      prepared.set(side, p);
    }
    return p;
  };
  let best: { reading?: MrzReading; lines: number; upsideDown: boolean } = { lines: 0, upsideDown: false };
  for (const attempt of ATTEMPTS) {
    const p = at(attempt.side);
    const data = attempt.upsideDown ? Float32Array.from(p.data).reverse() : p.data;
    const { data: out } = await w.recognize(pgm(p.w, p.h, data));
    const reading = findMrz(out.text);
    if (reading && (!best.reading || (reading.valid && !best.reading.valid))) {
      best = { reading, lines: candidateLines(out.text).length, upsideDown: attempt.upsideDown };
    } else if (!best.reading) {
      best.lines = Math.max(best.lines, candidateLines(out.text).length);
    }
    if (best.reading?.valid) {
      break;
    }
  }
  return { reading: best.reading, candidateLines: best.lines, upsideDown: best.upsideDown, skew, ms: Date.now() - started };
}
