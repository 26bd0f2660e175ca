// pdfmake documents with text in any script (templates, and through them the history PDF and the
// certified-email evidence): each name set in a face that has it, Arabic joined, right-to-left
// words in order, Devanagari given back through its spans, and poppler's pdftotext returns each.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderPdfmake } from '../../src/render/pdfmake-template.js';
import { drawnGlyphs, glyphOutlines, shapedOutlines } from '../helpers/pdf-glyphs.js';
import { pdfToText } from '../helpers/pdf-forms.js';

const NAMES = ['Łukasz Wójcik', 'Ольга Петрова', 'Νίκος Παπαδόπουλος', '王伟', '山田太郎', 'محمد علي', 'דוד כהן', 'अर्जुन शर्मा', '김민준'];
const FONTS = new URL('../../fonts/', import.meta.url);
/** pdftotext marks a right-to-left line with directional embeddings (U+202B … U+202C). */
const plain = (text: string) => text.replace(/[\u202a-\u202e]/g, '');

let pdf: Buffer;
beforeAll(async () => {
  pdf = await renderPdfmake(
    {
      content: [
        ...NAMES.map((_, i) => `{{n${i}}}`),
        { text: ['Signed by ', { text: '{{n5}}', bold: true }, ' on 28/11'] },
        { table: { body: [['Name', '{{n7}}']] } },
        'Ana 😀 Pérez',
      ],
      defaultStyle: { fontSize: 12 },
    },
    { fields: new Map(NAMES.map((n, i) => [`n${i}`, n])), tables: new Map() },
  );
}, 60_000);

describe('pdfmake text in any script', () => {
  it('pdftotext gives back each name, in a line of its own, mixed with Latin text, and in a table', () => {
    const lines = plain(pdfToText(pdf)).split('\n');
    for (const name of NAMES) {
      expect(lines).toContain(name);
    }
    // (poppler puts a mixed line's spaces round the right-to-left words as it sees fit)
    expect(lines.some((l) => l.startsWith('Signed by') && l.includes('محمد علي') && l.includes('28/11'))).toBe(true);
    expect(lines.some((l) => /^Name\s+अर्जुन शर्मा$/.test(l))).toBe(true);
  });

  it('draws the Arabic name in the joined forms the shaper gives, not the isolated ones', () => {
    const runs = drawnGlyphs(pdf).filter((r) => r.baseFont.endsWith('+NotoSansArabic-Regular'));
    // علي then محمد, left to right: each word drawn as one run of glyphs.
    const face = readFileSync(new URL('NotoSansArabic-Regular.ttf', FONTS));
    const drawn = runs.flatMap((r) => glyphOutlines(r.fontFile, r.gids));
    expect(drawn.slice(0, 7)).toEqual([...shapedOutlines(face, 'علي'), ...shapedOutlines(face, 'محمد')]);
    for (const letter of ['م', 'ح', 'د']) {
      expect(drawn).not.toContain(shapedOutlines(face, letter)[0]);
    }
  });

  it('keeps Latin, Greek and Cyrillic in Roboto, and sets the rest in the script faces', () => {
    const fonts = new Set(drawnGlyphs(pdf).map((r) => r.baseFont.replace(/^[A-Z]{6}\+/, '')));
    expect([...fonts].sort()).toEqual(
      [
        'DroidSansFallback',
        'NanumSquareR',
        'NotoSans-Regular',
        'NotoSansArabic-Bold',
        'NotoSansArabic-Regular',
        'NotoSansDevanagari-Regular',
        'NotoSansHebrew-Regular',
        'Roboto-Medium',
        'Roboto-Regular',
      ].sort(),
    );
  });

  it('keeps an emoji in the text and draws the missing-glyph box for it', () => {
    expect(plain(pdfToText(pdf)).split('\n')).toContain('Ana 😀 Pérez');
    const notoSans = drawnGlyphs(pdf).filter((r) => r.baseFont.endsWith('+NotoSans-Regular'));
    expect(notoSans.map((r) => r.gids)).toEqual([[0]]);
    // Noto Sans's glyph 0 is a drawn rectangle, not an empty glyph.
    expect(glyphOutlines(notoSans[0].fontFile, [0])[0]).toMatch(/^M.+Z.*M.+Z$/);
  });

  it('embeds subsets: each name in another script adds kilobytes over the same document in Roboto alone', async () => {
    const render = (name: string) =>
      renderPdfmake({ content: ['Historial del documento', '{{n}}'] }, { fields: new Map([['n', name]]), tables: new Map() });
    const latin = (await render('Ana Pérez')).length;
    const added: Record<string, number> = {};
    for (const name of NAMES) {
      added[name] = (await render(name)).length - latin;
    }
    console.log(`bytes a pdfmake document's script faces add over Roboto alone: ${JSON.stringify(added)}`);
    for (const name of NAMES.slice(3)) {
      expect(added[name]).toBeGreaterThan(0);
      expect(added[name]).toBeLessThan(30_000);
    }
  });
});
