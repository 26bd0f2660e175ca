// The visible part of a signature: a form XObject used as each widget's normal appearance
// (PDF 32000-1 §12.5.5, §8.10), holding the drawn or typed signature image, the signer's name,
// the date and time, and how the identity was proven. Text is set in Helvetica, one of the
// standard 14 fonts every reader has (§9.6.2.2), with WinAnsiEncoding (Annex D), which covers
// Spanish and the other Western European languages; other characters become "?".
import { PdfArray, PdfDict, PdfName, PdfNumber, type PdfRef, Standard14Font, type PDF } from '@libpdf/core';
import type { EmbeddedImage } from './signature-image.js';
import type { Rotation } from './signature-widgets.js';

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

/**
 * The content stream for a width × height box (in the orientation the reader sees): the image
 * scaled to fit the top, then three lines (name in bold, date and time, authority) at the largest
 * size up to 10 pt that fits; below 4 pt the lines are shortened with "…" instead.
 */
export function appearanceContent(width: number, height: number, text: AppearanceText, image?: { width: number; height: number }): string {
  const locale = text.locale ?? 'es';
  const lines = [
    ...(text.heading ?? []).map((h, i) => ({
      text: toWinAnsiText(h),
      font: i === 0 ? BOLD : REGULAR,
      name: i === 0 ? '/SelloB' : '/SelloR',
    })),
    { text: toWinAnsiText(text.signerName), font: BOLD, name: '/SelloB' },
    { text: toWinAnsiText(formatSignedAt(text.signedAt, locale)), font: REGULAR, name: '/SelloR' },
    { text: toWinAnsiText(text.authorityLabel), font: REGULAR, name: '/SelloR' },
  ];
  const pad = Math.min(4, Math.min(width, height) * 0.08);
  const innerW = width - 2 * pad;
  const innerH = height - 2 * pad;
  const byWidth = Math.min(...lines.map((l) => innerW / Math.max(l.font.widthOfTextAtSize(l.text, 1), 0.001)));
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
  const typed = !image && text.typedSignature ? toWinAnsiText(text.typedSignature) : '';
  if (typed && imgAreaH > 2) {
    // The typed signature fills the signature area in the bold face, up to 24 pt.
    const typedSize = Math.min(24, imgAreaH / LEADING, innerW / Math.max(BOLD.widthOfTextAtSize(typed, 1), 0.001));
    const shown = fit(typed, BOLD, typedSize, innerW);
    const x = pad + Math.max(0, (innerW - BOLD.widthOfTextAtSize(shown, typedSize)) / 2);
    const y = height - pad - imgAreaH + (imgAreaH - typedSize) / 2 + typedSize * 0.2;
    ops.push('BT', '0.05 0.15 0.45 rg', `/SelloB ${n(typedSize)} Tf`, `1 0 0 1 ${n(x)} ${n(y)} Tm`, `${hexString(shown)} Tj`, 'ET');
  }
  ops.push('BT', '0.1 0.1 0.1 rg');
  // Without a signature the legend is centred vertically; with one it sits under it.
  const bottom = image || typed ? pad : pad + Math.max(0, (innerH - textH) / 2);
  lines.forEach((line, i) => {
    const shown = fit(line.text, line.font, size, innerW);
    const baseline = bottom + (lines.length - 1 - i) * size * LEADING + size * 0.25;
    ops.push(`${line.name} ${n(size)} Tf`, `1 0 0 1 ${n(pad)} ${n(baseline)} Tm`, `${hexString(shown)} Tj`);
  });
  ops.push('ET', 'Q');
  return ops.join('\n');
}

/** The two font dictionaries, shared by every widget of the revision. */
export function registerAppearanceFonts(pdf: PDF): { regular: PdfRef; bold: PdfRef } {
  const font = (base: string) =>
    pdf.register(
      PdfDict.of({
        Type: PdfName.of('Font'),
        Subtype: PdfName.of('Type1'),
        BaseFont: PdfName.of(base),
        Encoding: PdfName.of('WinAnsiEncoding'),
      }),
    );
  return { regular: font('Helvetica'), bold: font('Helvetica-Bold') };
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
  const content = appearanceContent(w, h, text, res.image ? { width: res.image.width, height: res.image.height } : undefined);
  const resources = PdfDict.of({ Font: PdfDict.of({ SelloR: res.regular, SelloB: res.bold }) });
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
