// The visible part of a signature: a form XObject used as each widget's normal appearance
// (PDF 32000-1 §12.5.5, §8.10), holding the drawn or typed signature image, the signer's name,
// the date and time, and how the identity was proven. A line that WinAnsiEncoding (Annex D) can
// show (Spanish and the other Western European languages) is set in Helvetica, one of the standard
// 14 fonts every reader has (§9.6.2.2), at no cost in bytes. Any other line (a name in Polish,
// Greek, Cyrillic, Arabic, Hebrew, Devanagari, Chinese, Japanese or Korean) is shaped and set in
// subsets of Unicode faces embedded for the revision (text-pdf-fonts.ts), with a text layer that
// gives the name back as written (shapedLineOps says how).
import { PdfArray, PdfDict, PdfName, PdfNumber, type PdfRef, Standard14Font, type PDF } from '@libpdf/core';
import type { EmbeddedImage } from './signature-image.js';
import type { Rotation } from './signature-widgets.js';
import type { Weight } from './text-fonts.js';
import type { ShapedLine } from './text-layout.js';
import type { EmbeddedLines, LineRequest } from './text-pdf-fonts.js';

// The shaper (HarfBuzz's WebAssembly) and the fonts are loaded the first time a legend needs them
// (prepareAppearanceFonts), not when the service starts: most legends are WinAnsi.
type TextFonts = typeof import('./text-pdf-fonts.js');
let textFonts: TextFonts | undefined;

/** What the appearance shows. */
export interface AppearanceText {
  signerName: string;
  /** A typed signature, drawn large where a drawn signature's image would go (when no image). */
  typedSignature?: string;
  signedAt: Date;
  authorityLabel: string;
  locale?: 'es' | 'en';
  /** Lines above the name, e.g. an endorsement's type, text and endorsee; the first in bold. */
  heading?: string[];
}

export interface AppearanceResources {
  regular: PdfRef;
  bold: PdfRef;
  /** The embedded subsets and shaped lines, when some line is beyond WinAnsi. */
  unicode?: EmbeddedLines;
  /** The drawn signature, embedded once per revision by signature-image.ts (native zlib, not pako). */
  image?: EmbeddedImage;
}

const LEADING = 1.2;
const MAX_FONT = 10;
const MIN_FONT = 4;
const REGULAR = Standard14Font.of('Helvetica');
const BOLD = Standard14Font.of('Helvetica-Bold');

// WinAnsiEncoding 0x80–0x9F (PDF 32000-1 Annex D.2); 0x20–0x7E and 0xA0–0xFF match Unicode.
const WIN_ANSI_HIGH: Record<string, number> = {
  '€': 0x80,
  '‚': 0x82,
  ƒ: 0x83,
  '„': 0x84,
  '…': 0x85,
  '†': 0x86,
  '‡': 0x87,
  ˆ: 0x88,
  '‰': 0x89,
  Š: 0x8a,
  '‹': 0x8b,
  Œ: 0x8c,
  Ž: 0x8e,
  '‘': 0x91,
  '’': 0x92,
  '“': 0x93,
  '”': 0x94,
  '•': 0x95,
  '–': 0x96,
  '—': 0x97,
  '˜': 0x98,
  '™': 0x99,
  š: 0x9a,
  '›': 0x9b,
  œ: 0x9c,
  ž: 0x9e,
  Ÿ: 0x9f,
};

function winAnsiCode(ch: string): number | null {
  const cp = ch.codePointAt(0)!;
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) {
    return cp;
  }
  return WIN_ANSI_HIGH[ch] ?? null;
}

/** The text as the font can show it: composed (NFC), control characters as spaces, others as "?". */
export function toWinAnsiText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this removes
  return [...text.normalize('NFC')].map((ch) => (/[\u0000-\u001f\u007f]/.test(ch) ? ' ' : winAnsiCode(ch) === null ? '?' : ch)).join('');
}

/** Whether WinAnsi lacks a character of the text (control characters aside): then it is shaped. */
export function needsUnicode(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are drawn as spaces either way
  return [...text.normalize('NFC')].some((ch) => !/[\u0000-\u001f\u007f]/.test(ch) && winAnsiCode(ch) === null);
}

/** Loads what registerAppearanceFonts needs to embed fonts for `text`, when it needs any. */
export async function prepareAppearanceFonts(text: AppearanceText): Promise<void> {
  if (!textFonts && appearanceLines(text).some((l) => needsUnicode(l.text))) {
    textFonts = await import('./text-pdf-fonts.js');
  }
}

/** Every line the appearance may draw, with its weight: what the embedded subsets must hold. */
function appearanceLines(text: AppearanceText): LineRequest[] {
  const locale = text.locale ?? 'es';
  return [
    ...(text.heading ?? []).map((h, i): LineRequest => ({ text: h, weight: i === 0 ? 'bold' : 'regular' })),
    { text: text.signerName, weight: 'bold' },
    { text: formatSignedAt(text.signedAt, locale), weight: 'regular' },
    { text: text.authorityLabel, weight: 'regular' },
    ...(text.typedSignature ? [{ text: text.typedSignature, weight: 'bold' as const }] : []),
  ];
}

const utf16be = (text: string) =>
  `<FEFF${[...text].flatMap((ch) => [...Array(ch.length).keys()].map((i) => ch.charCodeAt(i).toString(16).padStart(4, '0'))).join('')}>`;

/**
 * A shaped line at `size`, its left end at (x, baseline), squeezed horizontally when wider than
 * `maxWidth` (the whole name stays: it is evidence). Each glyph is placed by its own text matrix,
 * offsets from the shaper included.
 *
 * The text layer: a left-to-right run is a marked-content span whose /ActualText (§14.9.4) is the
 * run as written, which gives back what glyphs alone cannot (Devanagari's reordered vowel signs
 * and reph). A right-to-left run has no span: its glyphs' ToUnicode entries, in visual order, are
 * what readers put back in logical order (poppler does; a span's text would be taken as drawn
 * left to right and turned round). A character no face has is stroked as a box, and a span with
 * that character holds the Latin face's glyph 0 set invisibly (render mode 3) in the box's place.
 */
export function shapedLineOps(
  line: ShapedLine,
  weight: Weight,
  size: number,
  x: number,
  baseline: number,
  maxWidth: number,
  fonts: EmbeddedLines,
  rgb: string,
): string[] {
  const k = Math.min(1, maxWidth / Math.max(line.width * size, 0.001));
  const ops = ['BT', `${rgb} rg`];
  const boxes: string[] = [];
  let pen = x;
  for (const run of line.runs) {
    if (run.kind === 'box') {
      const left = pen + 0.1 * size * k;
      ops.push(
        `/Span << /ActualText ${utf16be(run.text)} >> BDC`,
        `/${fonts.fontName('latin', weight)} ${n(size)} Tf`,
        '3 Tr',
        `${n(k)} 0 0 1 ${n(pen)} ${n(baseline)} Tm`,
        '<0000> Tj',
        '0 Tr',
        'EMC',
      );
      boxes.push(`${n(left)} ${n(baseline - 0.05 * size)} ${n((run.width - 0.2) * size * k)} ${n(0.75 * size)} re S`);
    } else {
      if (!run.rtl) {
        ops.push(`/Span << /ActualText ${utf16be(run.text)} >> BDC`);
      }
      ops.push(`/${fonts.fontName(run.face, weight)} ${n(size)} Tf`);
      for (const g of run.glyphs) {
        ops.push(`${n(k)} 0 0 1 ${n(pen + g.x * size * k)} ${n(baseline + g.y * size)} Tm`, `<${g.gid.toString(16).padStart(4, '0')}> Tj`);
      }
      if (!run.rtl) {
        ops.push('EMC');
      }
    }
    pen += run.width * size * k;
  }
  ops.push('ET');
  if (boxes.length) {
    ops.push(`${rgb} RG`, `${n(Math.max(0.3, size * 0.06))} w`, ...boxes);
  }
  return ops;
}

function hexString(text: string): string {
  return `<${[...text].map((ch) => (winAnsiCode(ch) ?? 0x3f).toString(16).padStart(2, '0')).join('')}>`;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** In UTC, so that the legend does not depend on the server's time zone. */
export function formatSignedAt(date: Date, locale: 'es' | 'en'): string {
  const d = `${pad2(date.getUTCDate())}/${pad2(date.getUTCMonth() + 1)}/${date.getUTCFullYear()}`;
  const iso = `${date.getUTCFullYear()}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}`;
  const t = `${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())} UTC`;
  return locale === 'es' ? `Firmado: ${d} ${t}` : `Signed: ${iso} ${t}`;
}

function fit(text: string, font: Standard14Font, size: number, width: number): string {
  if (font.widthOfTextAtSize(text, size) <= width) {
    return text;
  }
  let cut = text;
  while (cut.length > 1 && font.widthOfTextAtSize(`${cut}…`, size) > width) {
    cut = cut.slice(0, -1);
  }
  return `${cut.trimEnd()}…`;
}

const n = (v: number) => (Math.round(v * 1000) / 1000).toString();

type Line = { kind: 'winansi'; text: string; font: Standard14Font; name: string } | { kind: 'shaped'; line: ShapedLine; weight: Weight };

const widthAt1 = (l: Line) => (l.kind === 'winansi' ? l.font.widthOfTextAtSize(l.text, 1) : l.line.width);

function lineOf(text: string, weight: Weight, unicode: EmbeddedLines | undefined): Line {
  const shaped = needsUnicode(text) ? unicode?.lines.get(`${weight}:${text}`) : undefined;
  if (shaped) {
    return { kind: 'shaped', line: shaped, weight };
  }
  return weight === 'bold'
    ? { kind: 'winansi', text: toWinAnsiText(text), font: BOLD, name: '/SelloB' }
    : { kind: 'winansi', text: toWinAnsiText(text), font: REGULAR, name: '/SelloR' };
}

/**
 * The content stream for a width × height box (in the orientation the reader sees): the image
 * scaled to fit the top, then three lines (name in bold, date and time, authority) at the largest
 * size up to 10 pt that fits; below 4 pt the lines are shortened with "…" instead (a shaped line
 * is squeezed horizontally instead, whole). `unicode` holds the shaped lines (registerAppearanceFonts):
 * without it every line is set in Helvetica.
 */
export function appearanceContent(
  width: number,
  height: number,
  text: AppearanceText,
  image?: { width: number; height: number },
  unicode?: EmbeddedLines,
): string {
  const locale = text.locale ?? 'es';
  const lines: Line[] = [
    ...(text.heading ?? []).map((h, i) => lineOf(h, i === 0 ? 'bold' : 'regular', unicode)),
    lineOf(text.signerName, 'bold', unicode),
    lineOf(formatSignedAt(text.signedAt, locale), 'regular', unicode),
    lineOf(text.authorityLabel, 'regular', unicode),
  ];
  const pad = Math.min(4, Math.min(width, height) * 0.08);
  const innerW = width - 2 * pad;
  const innerH = height - 2 * pad;
  const byWidth = Math.min(...lines.map((l) => innerW / Math.max(widthAt1(l), 0.001)));
  const byHeight = (innerH * (image || text.typedSignature ? 0.55 : 1)) / (lines.length * LEADING);
  let size = Math.min(MAX_FONT, byWidth, byHeight);
  if (size < MIN_FONT) {
    size = Math.min(MIN_FONT, byHeight);
  }
  const textH = lines.length * size * LEADING;
  const ops: string[] = ['q'];
  // A thin frame marks the box as a signature even where the image is faint.
  ops.push('0.18 0.33 0.58 RG 0.6 w', `${n(0.3)} ${n(0.3)} ${n(width - 0.6)} ${n(height - 0.6)} re S`);
  const imgAreaH = innerH - textH - pad / 2;
  if (image && image.width > 0 && image.height > 0 && imgAreaH > 2) {
    const scale = Math.min(innerW / image.width, imgAreaH / image.height);
    const w = image.width * scale;
    const h = image.height * scale;
    const x = pad + (innerW - w) / 2;
    const y = height - pad - imgAreaH + (imgAreaH - h) / 2;
    ops.push('q', `${n(w)} 0 0 ${n(h)} ${n(x)} ${n(y)} cm`, '/SelloImg Do', 'Q');
  }
  const typed = !image && text.typedSignature ? lineOf(text.typedSignature, 'bold', unicode) : undefined;
  const shapedOps: string[] = [];
  if (typed && imgAreaH > 2) {
    // The typed signature fills the signature area in the bold face, up to 24 pt.
    const typedSize = Math.min(24, imgAreaH / LEADING, innerW / Math.max(widthAt1(typed), 0.001));
    const y = height - pad - imgAreaH + (imgAreaH - typedSize) / 2 + typedSize * 0.2;
    if (typed.kind === 'winansi') {
      const shown = fit(typed.text, BOLD, typedSize, innerW);
      const x = pad + Math.max(0, (innerW - BOLD.widthOfTextAtSize(shown, typedSize)) / 2);
      ops.push('BT', '0.05 0.15 0.45 rg', `/SelloB ${n(typedSize)} Tf`, `1 0 0 1 ${n(x)} ${n(y)} Tm`, `${hexString(shown)} Tj`, 'ET');
    } else if (unicode) {
      const x = pad + Math.max(0, (innerW - typed.line.width * typedSize) / 2);
      shapedOps.push(...shapedLineOps(typed.line, 'bold', typedSize, x, y, innerW, unicode, '0.05 0.15 0.45'));
    }
  }
  ops.push('BT', '0.1 0.1 0.1 rg');
  // Without a signature the legend is centred vertically; with one it sits under it.
  const bottom = image || typed ? pad : pad + Math.max(0, (innerH - textH) / 2);
  lines.forEach((line, i) => {
    const baseline = bottom + (lines.length - 1 - i) * size * LEADING + size * 0.25;
    if (line.kind === 'winansi') {
      const shown = fit(line.text, line.font, size, innerW);
      ops.push(`${line.name} ${n(size)} Tf`, `1 0 0 1 ${n(pad)} ${n(baseline)} Tm`, `${hexString(shown)} Tj`);
    } else if (unicode) {
      shapedOps.push(...shapedLineOps(line.line, line.weight, size, pad, baseline, innerW, unicode, '0.1 0.1 0.1'));
    }
  });
  ops.push('ET', ...shapedOps, 'Q');
  return ops.join('\n');
}

/**
 * The font dictionaries, shared by every widget of the revision: Helvetica and Helvetica-Bold, and
 * the subsets for the lines of `text` that WinAnsi cannot show (none when every line fits WinAnsi).
 */
export function registerAppearanceFonts(pdf: PDF, text?: AppearanceText): Omit<AppearanceResources, 'image'> {
  const beyond = text ? appearanceLines(text).filter((l) => needsUnicode(l.text)) : [];
  if (beyond.length && !textFonts) {
    throw new Error('the appearance fonts were not loaded: call prepareAppearanceFonts first');
  }
  const unicode = beyond.length && textFonts ? textFonts.embedLines(pdf, beyond) : undefined;
  const font = (base: string) =>
    pdf.register(
      PdfDict.of({
        Type: PdfName.of('Font'),
        Subtype: PdfName.of('Type1'),
        BaseFont: PdfName.of(base),
        Encoding: PdfName.of('WinAnsiEncoding'),
      }),
    );
  return { regular: font('Helvetica'), bold: font('Helvetica-Bold'), unicode };
}

// §12.5.5: the BBox, mapped through /Matrix, is fitted to /Rect. On a page the reader turns by
// /Rotate, the appearance is counter-rotated so the legend reads upright (§8.3.2.3 for /Rotate).
const MATRIX: Record<Rotation, number[]> = {
  0: [1, 0, 0, 1, 0, 0],
  90: [0, 1, -1, 0, 0, 0],
  180: [-1, 0, 0, -1, 0, 0],
  270: [0, -1, 1, 0, 0, 0],
};

/** A form XObject for a /Rect of rectW × rectH (user space) on a page turned by `rotation`. */
export function createAppearanceStream(
  pdf: PDF,
  rectW: number,
  rectH: number,
  rotation: Rotation,
  text: AppearanceText,
  res: AppearanceResources,
): PdfRef {
  const [w, h] = rotation === 90 || rotation === 270 ? [rectH, rectW] : [rectW, rectH];
  const content = appearanceContent(w, h, text, res.image ? { width: res.image.width, height: res.image.height } : undefined, res.unicode);
  const fonts = PdfDict.of({ SelloR: res.regular, SelloB: res.bold });
  for (const [name, ref] of res.unicode?.fonts ?? []) {
    fonts.set(name, ref);
  }
  const resources = PdfDict.of({ Font: fonts });
  if (res.image) {
    resources.set('XObject', PdfDict.of({ SelloImg: res.image.ref }));
  }
  return pdf.createStream(
    {
      Type: PdfName.of('XObject'),
      Subtype: PdfName.of('Form'),
      BBox: new PdfArray([0, 0, w, h].map((v) => PdfNumber.of(Math.round(v * 1000) / 1000))),
      Matrix: new PdfArray(MATRIX[rotation].map((v) => PdfNumber.of(v))),
      Resources: resources,
    },
    new TextEncoder().encode(content),
  );
}
