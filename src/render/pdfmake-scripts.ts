// Text in any script in pdfmake documents (templates, the history PDF, the certified-email
// evidence). Roboto, pdfmake's font, has Latin, Greek and Cyrillic; a text with anything else
// (Arabic, Hebrew, Devanagari, Chinese, Japanese, Korean) is split into runs, each in the face that has
// its characters (pdf/text-fonts.ts), and the runs are put in visual order by the Unicode
// Bidirectional Algorithm (UAX #9, rule L2, levels from bidi-js).
//
// pdfmake lays text out word by word and pdfkit shapes each word with fontkit (Arabic joined,
// Indic reordered), turning a right-to-left word's glyphs round; what it does not do is order the
// words of a right-to-left run, so those are given in visual order here. pdfkit embeds a subset of
// each face with a ToUnicode map, glyphs in visual order as poppler and other readers expect.
//
// Glyphs alone do not give Devanagari back: its vowel signs and reph are drawn before or after
// the letters they follow or precede. A word in Devanagari is therefore shown inside a marked-
// content span whose /ActualText (PDF 32000-1 §14.9.4) is the word as written (pdfmake, which
// draws word by word through pdfkit, has no way to ask for one, hence the wrapper below).
// A right-to-left word has no span: readers put its glyphs' text, in visual order, back in
// logical order themselves, and would turn a span's text round as well.
//
// A character no face has (an emoji) is set in Noto Sans, whose missing-glyph box is visible, in
// a span whose /ActualText keeps the character.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import bidiModule, { type Bidi } from 'bidi-js';
import * as hb from 'harfbuzzjs';
import { bundledRobotoFont } from '../pdf/form/bundled-font.js';
import { type FaceId, faceFile, facesFor } from '../pdf/text-fonts.js';

const require = createRequire(import.meta.url);

// bidi-js is a CommonJS module whose export is the factory; its types describe an ES default export.
const bidi = (bidiModule as unknown as () => Bidi)();

/** pdfmake's font family of each face (the template's own Roboto stays for what it has). */
const FAMILY: Record<FaceId, string> = {
  latin: 'SelloNotoSans',
  arabic: 'SelloNotoSansArabic',
  hebrew: 'SelloNotoSansHebrew',
  devanagari: 'SelloNotoSansDevanagari',
  cjk: 'SelloDroidSansFallback',
  hangul: 'SelloNanumSquare',
};

type Variant = 'normal' | 'bold' | 'italics' | 'bolditalics';

/** The families to register with pdfmake beside Roboto: paths, read by pdfkit only when a run uses one. */
export function scriptFontFamilies(): Record<string, Record<Variant, string>> {
  const out: Record<string, Record<Variant, string>> = {};
  for (const [face, family] of Object.entries(FAMILY) as [FaceId, string][]) {
    // No italic faces: an italic run is drawn upright rather than not at all.
    const regular = faceFile(face, 'regular');
    const bold = faceFile(face, 'bold');
    out[family] = { normal: regular, bold, italics: regular, bolditalics: bold };
  }
  return out;
}

let roboto: Set<number> | undefined;
function robotoHas(cp: number): boolean {
  roboto ??= new Set(new hb.Face(new hb.Blob(bundledRobotoFont('normal'))).collectUnicodes());
  return roboto.has(cp);
}

/** An inline run as pdfmake takes it. */
export interface TextRun {
  text: string;
  font?: string;
}

/**
 * The runs of `text` in visual order, or null when Roboto shows all of it (the text is left as
 * it is). A run Roboto shows has no font of its own: it keeps the node's.
 */
export function scriptRuns(text: string): TextRun[] | null {
  const chars = [...text];
  if (chars.every((ch) => robotoHas(ch.codePointAt(0)!) || /\s/.test(ch))) {
    return null;
  }
  const faces = facesFor(chars);
  // Left to right as the paragraph's direction: the documents are laid out left to right, and
  // pdfmake wraps lines after this ordering, so a right-to-left paragraph's first words would
  // otherwise land on its last line.
  const { levels } = bidi.getEmbeddingLevels(text, 'ltr');
  const items: { family: string | undefined; level: number; text: string }[] = [];
  let offset = 0;
  chars.forEach((ch, i) => {
    const face = faces[i];
    // Latin, Greek and Cyrillic stay in Roboto where it has them, as the rest of the document is.
    const family = face === 'latin' && robotoHas(ch.codePointAt(0)!) ? undefined : FAMILY[face ?? 'latin'];
    const level = levels[offset];
    offset += ch.length;
    const last = items.at(-1);
    if (last && last.family === family && last.level === level) {
      last.text += ch;
    } else {
      items.push({ family, level, text: ch });
    }
  });
  // Rule L2: from the highest level to the lowest odd one, reverse every sequence at that level or above.
  const max = Math.max(...items.map((i) => i.level));
  const minOdd = Math.min(...items.map((i) => (i.level % 2 === 1 ? i.level : Number.POSITIVE_INFINITY)));
  for (let level = max; level >= minOdd && level > 0; level--) {
    for (let i = 0; i < items.length; ) {
      if (items[i].level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < items.length && items[j].level >= level) {
        j++;
      }
      items.splice(i, j - i, ...items.slice(i, j).reverse());
      i = j;
    }
  }
  return items.flatMap((item): TextRun[] => {
    const run = (text: string): TextRun => (item.family ? { text, font: item.family } : { text });
    if (item.level % 2 === 0) {
      return [run(item.text)];
    }
    // Within a right-to-left run the words go right to left, each word's letters in logical order
    // (the shaper turns them round). The spaces are runs of their own: pdfmake keeps a space with
    // the word before it, and the shaper would turn it round to that word's left, where it would
    // part nothing.
    return item.text
      .split(/(\s+)/)
      .filter(Boolean)
      .reverse()
      .map((part) => (/^\s+$/.test(part) ? { text: part } : run(part)));
  });
}

type Node = unknown;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A `text` value with its strings split into runs where needed. An inline object whose string is
 * split becomes one inline object per run, each with the object's own properties (bold, colour…):
 * pdfmake does not pass them on to a nested array.
 */
function textValue(value: Node): Node {
  if (typeof value === 'string') {
    return scriptRuns(value) ?? value;
  }
  if (Array.isArray(value)) {
    return value.flatMap((part): Node[] => {
      if (typeof part === 'string') {
        return scriptRuns(part) ?? [part];
      }
      if (isObject(part) && typeof part.text === 'string') {
        const runs = scriptRuns(part.text);
        return runs ? runs.map((run) => ({ ...part, ...run, font: run.font ?? part.font })) : [part];
      }
      return [isObject(part) && 'text' in part ? { ...part, text: textValue(part.text) } : part];
    });
  }
  return value;
}

/**
 * The definition's content with every text in the positions pdfmake shows it (content, stack,
 * columns, lists, table cells, header, footer, `text` values) split into runs where Roboto lacks
 * a character. Other strings (styles, colours, widths, layouts) are never touched.
 */
export function withScriptRuns(def: Record<string, unknown>): Record<string, unknown> {
  const block = (node: Node): Node => {
    if (typeof node === 'string') {
      const runs = scriptRuns(node);
      return runs ? { text: runs } : node;
    }
    if (Array.isArray(node)) {
      return node.map(block);
    }
    if (!isObject(node)) {
      return node;
    }
    const out: Record<string, unknown> = { ...node };
    if ('text' in out) {
      out.text = textValue(out.text);
    }
    for (const key of ['stack', 'columns', 'ul', 'ol']) {
      if (Array.isArray(out[key])) {
        out[key] = block(out[key]);
      }
    }
    if (isObject(out.table) && Array.isArray(out.table.body)) {
      out.table = { ...out.table, body: out.table.body.map((row) => (Array.isArray(row) ? row.map(block) : row)) };
    }
    return out;
  };
  const out: Record<string, unknown> = { ...def, content: block(def.content) };
  for (const key of ['header', 'footer']) {
    if (key in def) {
      out[key] = block(def[key]);
    }
  }
  return out;
}

interface PdfKitPrototype {
  text(this: PdfKitPrototype, text: unknown, ...rest: unknown[]): unknown;
  addContent(this: PdfKitPrototype, op: string): unknown;
  /** The word being drawn that needs a span, while text() draws it. */
  selloActualText?: string;
}
// Devanagari (glyphs reordered) and pictographs (drawn as the missing-glyph box, which poppler
// reads as nothing).
const SPANNED = /[\p{Script=Devanagari}\p{Extended_Pictographic}]/u;
let installed = false;

const utf16be = (text: string) =>
  `<FEFF${Array.from({ length: text.length }, (_, i) => text.charCodeAt(i).toString(16).padStart(4, '0')).join('')}>`;

/**
 * Wraps pdfkit's text() (the instance pdfmake loads) so that a Devanagari word or a pictograph is drawn in a
 * span with its /ActualText. The span opens right after BT and closes right after ET, inside the
 * q … Q pdfkit draws the text in: poppler places a span's text with the transformation and font in
 * force at EMC, and after Q those are the page's (pdfkit's own markContent() would put the span
 * around q … Q, and the word would land at the wrong height, alone on a line).
 */
export function installActualText(): void {
  if (installed) {
    return;
  }
  const pdfkitPath = require.resolve('@foliojs-fork/pdfkit', { paths: [dirname(require.resolve('pdfmake'))] });
  const PdfKit = require(pdfkitPath) as { prototype: PdfKitPrototype } | { default: { prototype: PdfKitPrototype } };
  const proto = 'default' in PdfKit ? PdfKit.default.prototype : PdfKit.prototype;
  const text = proto.text;
  const addContent = proto.addContent;
  proto.addContent = function (this: PdfKitPrototype, op: string) {
    if (this.selloActualText !== undefined && op === 'BT') {
      addContent.call(this, `/Span << /ActualText ${utf16be(this.selloActualText)} >> BDC`);
      return addContent.call(this, op);
    }
    const result = addContent.call(this, op);
    if (this.selloActualText !== undefined && op === 'ET') {
      addContent.call(this, 'EMC');
    }
    return result;
  };
  proto.text = function (this: PdfKitPrototype, value: unknown, ...rest: unknown[]) {
    if (typeof value !== 'string' || !SPANNED.test(value)) {
      return text.call(this, value, ...rest);
    }
    this.selloActualText = value;
    try {
      return text.call(this, value, ...rest);
    } finally {
      this.selloActualText = undefined;
    }
  };
  installed = true;
}
