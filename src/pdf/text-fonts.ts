// The faces that draw names in any script (fonts/README.md says where each file comes from): Noto
// Sans for Latin, Greek and Cyrillic, Noto Sans Arabic, Hebrew and Devanagari, Droid Sans Fallback
// for Chinese and Japanese, and NanumSquare for Korean. Each character goes to the first face that has it, except that
// a mark, a joiner or a neutral character (space, digit, punctuation) stays in the face of the
// character before it when that face has it too: an Arabic name keeps its space and its marks in
// the Arabic face, so the shaper sees the whole word. A character no face has (an emoji) gets none
// and is drawn as a box by the caller.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as hb from 'harfbuzzjs';

export type FaceId = 'latin' | 'arabic' | 'hebrew' | 'devanagari' | 'cjk' | 'hangul';
export type Weight = 'regular' | 'bold';

/** In the order a character is looked up. */
export const FACE_ORDER: readonly FaceId[] = ['latin', 'arabic', 'hebrew', 'devanagari', 'cjk', 'hangul'];

const FILES: Record<FaceId, Record<Weight, string>> = {
  latin: { regular: 'NotoSans-Regular.ttf', bold: 'NotoSans-Bold.ttf' },
  arabic: { regular: 'NotoSansArabic-Regular.ttf', bold: 'NotoSansArabic-Bold.ttf' },
  hebrew: { regular: 'NotoSansHebrew-Regular.ttf', bold: 'NotoSansHebrew-Bold.ttf' },
  devanagari: { regular: 'NotoSansDevanagari-Regular.ttf', bold: 'NotoSansDevanagari-Bold.ttf' },
  // One weight only: a bold line in Chinese or Japanese is drawn in the regular weight.
  cjk: { regular: 'DroidSansFallbackFull.ttf', bold: 'DroidSansFallbackFull.ttf' },
  // Droid Sans Fallback has no Hangul syllables.
  hangul: { regular: 'NanumSquareR.ttf', bold: 'NanumSquareB.ttf' },
};

// fonts/ at the repository's root: src/pdf/ and build/pdf/ are both two levels below it.
const FONTS_DIR = new URL('../../fonts/', import.meta.url);

/** The path of a face's file (pdfmake reads the same files). */
export function faceFile(face: FaceId, weight: Weight): string {
  return fileURLToPath(new URL(FILES[face][weight], FONTS_DIR));
}

const bytesCache = new Map<string, Uint8Array>();
/** A face's file, read once per process. */
export function faceBytes(face: FaceId, weight: Weight): Uint8Array {
  const path = faceFile(face, weight);
  let bytes = bytesCache.get(path);
  if (!bytes) {
    bytes = new Uint8Array(readFileSync(path));
    bytesCache.set(path, bytes);
  }
  return bytes;
}

interface LoadedFace {
  font: hb.Font;
  face: hb.Face;
  upem: number;
}
const hbCache = new Map<string, LoadedFace>();
/** The shaper's font for a face's file (or for any font file: a subset). */
export function hbFont(bytes: Uint8Array): LoadedFace {
  const face = new hb.Face(new hb.Blob(bytes));
  return { font: new hb.Font(face), face, upem: face.upem };
}
export function shaperFont(face: FaceId, weight: Weight): LoadedFace {
  const key = `${face}/${weight}`;
  let loaded = hbCache.get(key);
  if (!loaded) {
    loaded = hbFont(faceBytes(face, weight));
    hbCache.set(key, loaded);
  }
  return loaded;
}

const coverage = new Map<FaceId, Set<number>>();
/** The characters a face has (its regular weight's cmap; the bold files cover the same). */
function covers(face: FaceId, cp: number): boolean {
  let set = coverage.get(face);
  if (!set) {
    const f = new hb.Face(new hb.Blob(faceBytes(face, 'regular')));
    set = new Set(f.collectUnicodes());
    coverage.set(face, set);
  }
  return set.has(cp);
}

const STAYS = /^[\p{M}\p{Script=Common}\p{Script=Inherited}]$/u;
// Pictographs are never taken from a text face that happens to list one: they are drawn as boxes.
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;

/**
 * The face of each character of `chars` (code points, in logical order), null where no face has
 * it. Variation selectors and joiners follow the character before them.
 */
export function facesFor(chars: string[]): (FaceId | null)[] {
  const out: (FaceId | null)[] = [];
  let prev: FaceId | null = null;
  for (const ch of chars) {
    const cp = ch.codePointAt(0)!;
    let face: FaceId | null;
    if (PICTOGRAPH.test(ch)) {
      face = null;
    } else if ((cp === 0x200c || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) && out.length > 0) {
      face = out[out.length - 1];
    } else if (prev && STAYS.test(ch) && covers(prev, cp)) {
      face = prev;
    } else {
      face = FACE_ORDER.find((f) => covers(f, cp)) ?? null;
    }
    out.push(face);
    if (face) {
      prev = face;
    }
  }
  return out;
}
