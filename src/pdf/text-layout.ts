// One line of text in any script, laid out for drawing: split into runs of one direction and one
// face, each run shaped by HarfBuzz (Arabic letters joined, Devanagari conjuncts and marks placed,
// Hebrew and Arabic in visual order), and the runs put in visual order by the Unicode
// Bidirectional Algorithm (UAX #9 rule L2, levels from bidi-js). A character no face has becomes
// a box of its own, so that it shows as something missing rather than vanishing.
import bidiModule, { type Bidi } from 'bidi-js';
import * as hb from 'harfbuzzjs';
import { facesFor, type FaceId } from './text-fonts.js';

/** A glyph placed in a run, in em units from the run's start (y up). */
export interface PlacedGlyph {
  gid: number;
  x: number;
  y: number;
  advance: number;
  /** The characters this glyph stands for; empty for the second and later glyphs of a cluster. */
  text: string;
}

export type LineRun =
  | { kind: 'glyphs'; face: FaceId; text: string; rtl: boolean; width: number; glyphs: PlacedGlyph[] }
  | { kind: 'box'; text: string; width: number };

/** A line in visual order (left to right), its width in em. */
export interface ShapedLine {
  /** The line as given, normalized (NFC, control characters as spaces): what a reader extracts. */
  text: string;
  runs: LineRun[];
  width: number;
}

/** The shaper's font for a face, and its units per em. */
export type FontFor = (face: FaceId) => { font: hb.Font; upem: number };

/** A box's advance: the box is 0.6 em wide with 0.1 em either side. */
export const BOX_ADVANCE = 0.8;

// bidi-js is a CommonJS module whose export is the factory; its types describe an ES default export.
const bidi = (bidiModule as unknown as () => Bidi)();
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The text as a line: composed, control characters as spaces. */
export function normalizeLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this replaces
  return text.normalize('NFC').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

interface Item {
  face: FaceId | null;
  level: number;
  text: string;
}

/** The runs of one level and one face, in logical order; a grapheme no face has is a run alone. */
function itemize(text: string): Item[] {
  const chars = [...text];
  const faces = facesFor(chars);
  const faceAt = new Map<number, FaceId | null>();
  let offset = 0;
  chars.forEach((ch, i) => {
    faceAt.set(offset, faces[i]);
    offset += ch.length;
  });
  // The paragraph's direction from its first strong character (rule P2), as a reader would.
  const { levels } = bidi.getEmbeddingLevels(text);
  const items: Item[] = [];
  for (const { segment, index } of graphemes.segment(text)) {
    // A grapheme is drawn in its first character's face: a base and its marks stay together.
    const face = faceAt.get(index) ?? null;
    const level = levels[index];
    const last = items.at(-1);
    if (face && last && last.face === face && last.level === level) {
      last.text += segment;
    } else {
      items.push({ face, level, text: segment });
    }
  }
  return items;
}

/** Rule L2: from the highest level to the lowest odd one, reverse every sequence at that level or above. */
function visualOrder<T extends { level: number }>(items: T[]): T[] {
  const out = [...items];
  const max = Math.max(0, ...out.map((i) => i.level));
  const minOdd = Math.min(...out.map((i) => (i.level % 2 === 1 ? i.level : Number.POSITIVE_INFINITY)));
  for (let level = max; level >= minOdd && level > 0; level--) {
    for (let i = 0; i < out.length; ) {
      if (out[i].level >= level) {
        let j = i;
        while (j < out.length && out[j].level >= level) {
          j++;
        }
        out.splice(i, j - i, ...out.slice(i, j).reverse());
        i = j;
      } else {
        i++;
      }
    }
  }
  return out;
}

function shapeRun(text: string, rtl: boolean, face: FaceId, fontFor: FontFor): LineRun {
  const { font, upem } = fontFor(face);
  const buffer = new hb.Buffer();
  buffer.addText(text);
  buffer.setDirection(rtl ? hb.Direction.RTL : hb.Direction.LTR);
  buffer.guessSegmentProperties();
  hb.shape(font, buffer);
  const shaped = buffer.getGlyphInfosAndPositions();
  // A cluster's characters run from its value to the next larger cluster value (UTF-16 offsets).
  const starts = [...new Set(shaped.map((g) => g.cluster))].sort((a, b) => a - b);
  const clusterText = (c: number) => text.slice(c, starts.find((s) => s > c) ?? text.length);
  const seen = new Set<number>();
  let x = 0;
  const glyphs: PlacedGlyph[] = shaped.map((g) => {
    const placed = {
      gid: g.codepoint,
      x: x + (g.xOffset ?? 0) / upem,
      y: (g.yOffset ?? 0) / upem,
      advance: (g.xAdvance ?? 0) / upem,
      text: seen.has(g.cluster) ? '' : clusterText(g.cluster),
    };
    seen.add(g.cluster);
    x += (g.xAdvance ?? 0) / upem;
    return placed;
  });
  return { kind: 'glyphs', face, text, rtl, width: x, glyphs };
}

/** Lays a line out with the fonts `fontFor` gives (the whole faces, or the subsets embedded). */
export function shapeLine(line: string, fontFor: FontFor): ShapedLine {
  const text = normalizeLine(line);
  const runs = visualOrder(itemize(text)).map(
    (item): LineRun =>
      item.face ? shapeRun(item.text, item.level % 2 === 1, item.face, fontFor) : { kind: 'box', text: item.text, width: BOX_ADVANCE },
  );
  return { text, runs, width: runs.reduce((w, r) => w + r.width, 0) };
}

/** The characters of each face a line uses: what a subset of that face must keep. */
export function charactersByFace(text: string): Map<FaceId, Set<number>> {
  const out = new Map<FaceId, Set<number>>();
  for (const item of itemize(normalizeLine(text))) {
    if (item.face) {
      const set = out.get(item.face) ?? new Set<number>();
      for (const ch of item.text) {
        set.add(ch.codePointAt(0)!);
      }
      out.set(item.face, set);
    }
  }
  return out;
}
