// Embeds what a set of shaped lines draws: per face and weight, a Type0 font (PDF 32000-1 §9.7)
// whose descendant is a CIDFontType2 with Identity-H codes equal to glyph ids, a subset of the face
// (FontFile2, §9.9) holding only the glyphs drawn, their widths (/W, §9.7.4.3) and a ToUnicode
// CMap (§9.10.3) from each glyph to the characters it stands for.
//
// Two subsets per face: the first keeps the line's characters and every glyph the shaper can reach
// from them (joined Arabic forms, Devanagari conjuncts), and the lines are shaped again with it, so
// glyph ids are the subset's; the second keeps exactly the glyphs drawn under those ids, without
// the layout tables and hinting no reader uses. A CJK face's 4 MB become a few kilobytes.
import { createHash } from 'node:crypto';
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfRef, PdfString } from '@libpdf/core';
import { faceBytes, type FaceId, hbFont, type Weight } from './text-fonts.js';
import { BOX_ADVANCE, charactersByFace, shapeLine, type ShapedLine } from './text-layout.js';
import { subsetFont } from './text-subset.js';

/** A line to draw, and the weight it is drawn in. */
export interface LineRequest {
  text: string;
  weight: Weight;
}

/** The embedded fonts and the lines shaped with them. */
export interface EmbeddedLines {
  /** Resource name (without the slash) → font dictionary. */
  fonts: Map<string, PdfRef>;
  /** The shaped line of `lineKey(text, weight)`. */
  lines: Map<string, ShapedLine>;
  /** Resource name of a face and weight. */
  fontName(face: FaceId, weight: Weight): string;
}

/** The key of a line in EmbeddedLines.lines (signature-appearance.ts spells it out too). */
export const lineKey = (text: string, weight: Weight) => `${weight}:${text}`;

const fontName = (face: FaceId, weight: Weight) => `SelloU${face[0].toUpperCase()}${face.slice(1)}${weight === 'bold' ? 'B' : 'R'}`;

const int16 = (t: Uint8Array, at: number) => new DataView(t.buffer, t.byteOffset, t.byteLength).getInt16(at);

/** Font-wide metrics from 'head' and 'hhea' (OpenType spec), in 1000ths of an em. */
function metrics(font: Uint8Array) {
  const face = hbFont(font);
  const head = face.face.referenceTable('head');
  const hhea = face.face.referenceTable('hhea');
  if (!head || !hhea) {
    throw new Error('the font has no head or hhea table');
  }
  const k = 1000 / face.upem;
  const bbox = [36, 38, 40, 42].map((at) => Math.round(int16(head, at) * k));
  return { bbox, ascent: Math.round(int16(hhea, 4) * k), descent: Math.round(int16(hhea, 6) * k) };
}

const utf16Hex = (text: string) =>
  [...text]
    .flatMap((ch) => {
      const units: string[] = [];
      for (let i = 0; i < ch.length; i++) {
        units.push(ch.charCodeAt(i).toString(16).padStart(4, '0'));
      }
      return units;
    })
    .join('');
const gidHex = (gid: number) => gid.toString(16).padStart(4, '0');

/** §9.10.3: glyph id → UTF-16BE characters, in blocks of at most 100 entries. */
function toUnicodeCMap(map: Map<number, string>): string {
  const entries = [...map].filter(([, text]) => text !== '').sort(([a], [b]) => a - b);
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const chunk = entries.slice(i, i + 100);
    blocks.push(`${chunk.length} beginbfchar`, ...chunk.map(([gid, text]) => `<${gidHex(gid)}> <${utf16Hex(text)}>`), 'endbfchar');
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <FFFF>',
    'endcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
}

const POSTSCRIPT_NAMES: Record<FaceId, Record<Weight, string>> = {
  latin: { regular: 'NotoSans-Regular', bold: 'NotoSans-Bold' },
  arabic: { regular: 'NotoSansArabic-Regular', bold: 'NotoSansArabic-Bold' },
  hebrew: { regular: 'NotoSansHebrew-Regular', bold: 'NotoSansHebrew-Bold' },
  devanagari: { regular: 'NotoSansDevanagari-Regular', bold: 'NotoSansDevanagari-Bold' },
  cjk: { regular: 'DroidSansFallbackFull', bold: 'DroidSansFallbackFull' },
  hangul: { regular: 'NanumSquareR', bold: 'NanumSquareB' },
};

function registerType0(
  pdf: PDF,
  face: FaceId,
  weight: Weight,
  subset: Uint8Array,
  widths: Map<number, number>,
  unicode: Map<number, string>,
) {
  // §9.9.2: a subset's name starts with six capital letters naming that subset.
  const digest = createHash('sha256').update(subset).digest();
  const prefix = [...digest.subarray(0, 6)].map((b) => String.fromCharCode(65 + (b % 26))).join('');
  const baseFont = PdfName.of(`${prefix}+${POSTSCRIPT_NAMES[face][weight]}`);
  const m = metrics(subset);
  const fontFile = pdf.createStream({ Length1: PdfNumber.of(subset.length) }, subset);
  const descriptor = pdf.register(
    PdfDict.of({
      Type: PdfName.of('FontDescriptor'),
      FontName: baseFont,
      // Symbolic (bit 3): glyphs are reached by id, not through a standard encoding.
      Flags: PdfNumber.of(4),
      FontBBox: new PdfArray(m.bbox.map((v) => PdfNumber.of(v))),
      ItalicAngle: PdfNumber.of(0),
      Ascent: PdfNumber.of(m.ascent),
      Descent: PdfNumber.of(m.descent),
      CapHeight: PdfNumber.of(m.ascent),
      StemV: PdfNumber.of(weight === 'bold' ? 120 : 80),
      FontFile2: fontFile,
    }),
  );
  const w: (PdfNumber | PdfArray)[] = [];
  for (const [gid, width] of [...widths].sort(([a], [b]) => a - b)) {
    w.push(PdfNumber.of(gid), new PdfArray([PdfNumber.of(width)]));
  }
  const cidFont = pdf.register(
    PdfDict.of({
      Type: PdfName.of('Font'),
      Subtype: PdfName.of('CIDFontType2'),
      BaseFont: baseFont,
      CIDSystemInfo: PdfDict.of({
        Registry: PdfString.fromString('Adobe'),
        Ordering: PdfString.fromString('Identity'),
        Supplement: PdfNumber.of(0),
      }),
      FontDescriptor: descriptor,
      DW: PdfNumber.of(1000),
      W: new PdfArray(w),
      CIDToGIDMap: PdfName.of('Identity'),
    }),
  );
  const toUnicode = pdf.createStream({}, new TextEncoder().encode(toUnicodeCMap(unicode)));
  return pdf.register(
    PdfDict.of({
      Type: PdfName.of('Font'),
      Subtype: PdfName.of('Type0'),
      BaseFont: baseFont,
      Encoding: PdfName.of('Identity-H'),
      DescendantFonts: new PdfArray([cidFont]),
      ToUnicode: toUnicode,
    }),
  );
}

/**
 * Shapes `requests` and embeds the subsets they draw. A line with a box (a character no face has)
 * also gets the Latin face's glyph 0 in its weight: it is set invisibly where the box is, so that
 * the text layer has a place for the missing character.
 */
export function embedLines(pdf: PDF, requests: LineRequest[]): EmbeddedLines {
  const wanted = new Map<string, { face: FaceId; weight: Weight; chars: Set<number> }>();
  for (const { text, weight } of requests) {
    for (const [face, chars] of charactersByFace(text)) {
      const key = `${face}/${weight}`;
      const entry = wanted.get(key) ?? { face, weight, chars: new Set<number>() };
      for (const c of chars) {
        entry.chars.add(c);
      }
      wanted.set(key, entry);
    }
  }
  const firstSubsets = new Map<string, Uint8Array>();
  const shapers = new Map<string, ReturnType<typeof hbFont>>();
  const shaperFor = (face: FaceId, weight: Weight) => {
    const key = `${face}/${weight}`;
    let shaper = shapers.get(key);
    if (!shaper) {
      const chars = wanted.get(key)?.chars ?? new Set<number>();
      const subset = subsetFont(faceBytes(face, weight), { unicodes: chars }, true);
      firstSubsets.set(key, subset);
      shaper = hbFont(subset);
      shapers.set(key, shaper);
    }
    return shaper;
  };
  const lines = new Map<string, ShapedLine>();
  const used = new Map<string, { face: FaceId; weight: Weight; widths: Map<number, number>; unicode: Map<number, string> }>();
  const use = (face: FaceId, weight: Weight) => {
    const key = `${face}/${weight}`;
    let u = used.get(key);
    if (!u) {
      shaperFor(face, weight);
      // Glyph 0 is always kept: it is what a box is set with, as wide as the box's advance so that
      // a reader sees no gap (and adds no space) between the box and what follows.
      u = { face, weight, widths: new Map([[0, Math.round(BOX_ADVANCE * 1000)]]), unicode: new Map() };
      used.set(key, u);
    }
    return u;
  };
  for (const { text, weight } of requests) {
    const line = shapeLine(text, (face) => shaperFor(face, weight));
    lines.set(lineKey(text, weight), line);
    for (const run of line.runs) {
      if (run.kind === 'box') {
        use('latin', weight);
        continue;
      }
      const u = use(run.face, weight);
      for (const g of run.glyphs) {
        if (g.gid === 0) {
          continue; // .notdef keeps the box's width
        }
        // The glyph's own advance (hmtx), not the shaped one: each glyph is placed by its own matrix.
        const shaper = shaperFor(run.face, weight);
        u.widths.set(g.gid, Math.round((shaper.font.glyphHAdvance(g.gid) * 1000) / shaper.upem));
        if (!u.unicode.get(g.gid)) {
          u.unicode.set(g.gid, g.text);
        }
      }
    }
  }
  const fonts = new Map<string, PdfRef>();
  for (const [key, u] of used) {
    const subset = subsetFont(firstSubsets.get(key)!, { glyphs: u.widths.keys() });
    fonts.set(fontName(u.face, u.weight), registerType0(pdf, u.face, u.weight, subset, u.widths, u.unicode));
  }
  return { fonts, lines, fontName };
}
