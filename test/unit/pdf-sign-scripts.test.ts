// Names in any script in the signature box: each signer's name is shaped, set in an embedded subset
// and given back exactly by poppler's pdftotext; every signature stays valid for pdfsig; the Arabic
// letters drawn are the joined forms the shaper gives; a character no font has (an emoji) is a
// visible box while the text keeps it; and what the fonts add to a signature is a few kilobytes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPdf } from '../../src/pdf/sign-pdf.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { drawnGlyphs, glyphOutlines, shapedOutlines } from '../helpers/pdf-glyphs.js';
import { pdfToText } from '../helpers/pdf-forms.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { pdfsig } from '../helpers/validators.js';

const NAMES = ['Łukasz Wójcik', 'Ольга Петрова', 'Νίκος Παπαδόπουλος', '王伟', '山田太郎', 'محمد علي', 'דוד כהן', 'अर्जुन शर्मा', '김민준'];
const FONTS = new URL('../../fonts/', import.meta.url);
/** pdftotext marks a right-to-left line with directional embeddings (U+202B … U+202C). */
const plain = (text: string) => text.replace(/[\u202a-\u202e]/g, '');

let pki: TestPki;
let signer: TestSigner;
let original: Buffer;
let signed: Buffer;
let T: Date;

const box = (i: number) => ({ lx: 50, ly: 30 + i * 78, tx: 300, ty: 100 + i * 78 });
async function sign(pdf: Uint8Array, signerName: string, i = 0, fieldName = `Sello-${i}`): Promise<Uint8Array> {
  return (
    await signPdf({
      pdf,
      fieldName,
      boxes: [{ page: 0, rect: box(i) }],
      appearance: { signerName, signedAt: T, authorityLabel: 'Email link: s@example.com', locale: 'en' },
      signer,
      timestamp: pki.timestamp,
      trustedRootsDer: [pki.rootDer],
      now: () => T,
    })
  ).pdf;
}

beforeAll(async () => {
  pki = await createTestPki();
  signer = await pki.issueSigner({ cn: 'Witness', email: 'witness@example.com' });
  T = new Date();
  original = await makePdf([A4]);
  let pdf: Uint8Array = original;
  for (const [i, name] of NAMES.entries()) {
    pdf = await sign(pdf, name, i);
  }
  signed = Buffer.from(pdf);
}, 120_000);
afterAll(() => pki?.dispose());

describe('names in any script in the signature box', () => {
  it('pdftotext gives every name back, each on its own line', () => {
    const lines = plain(pdfToText(signed)).split('\n');
    for (const name of NAMES) {
      expect(lines).toContain(name);
    }
  });

  it('pdfsig finds all nine signatures valid, the last covering the whole file', async () => {
    const { signatures, output } = await pdfsig(signed, readFileSync(pki.rootPath, 'utf8'), { noOcsp: true });
    expect(
      signatures.map((s) => s.field),
      output,
    ).toEqual(NAMES.map((_, i) => `Sello-${i}`));
    expect(
      signatures.every((s) => s.valid),
      output,
    ).toBe(true);
    expect(signatures.at(-1)!.totalDocumentSigned, output).toBe(true);
  });

  it('draws the Arabic name in the joined forms the shaper gives, not the isolated ones', () => {
    const runs = drawnGlyphs(signed).filter((r) => r.baseFont.endsWith('+NotoSansArabic-Bold'));
    expect(runs).toHaveLength(1);
    const drawn = glyphOutlines(runs[0].fontFile, runs[0].gids);
    const face = readFileSync(new URL('NotoSansArabic-Bold.ttf', FONTS));
    expect(drawn).toEqual(shapedOutlines(face, 'محمد علي'));
    // Each letter alone is its isolated form: none of محمد's four letters is drawn that way.
    for (const letter of ['م', 'ح', 'د']) {
      const [isolated] = shapedOutlines(face, letter);
      expect(drawn).not.toContain(isolated);
    }
  });

  it('embeds subsets: the Chinese, Japanese, Korean and every other face add kilobytes, not the whole face', async () => {
    const latin = (await sign(original, 'Ana Pérez')).length;
    const added: Record<string, number> = {};
    for (const name of NAMES) {
      added[name] = (await sign(original, name)).length - latin;
    }
    console.log(`bytes a signature's fonts add over one in Helvetica: ${JSON.stringify(added)}`);
    for (const name of NAMES) {
      expect(added[name]).toBeGreaterThan(0);
      expect(added[name]).toBeLessThan(30_000);
    }
  });
});

describe('a character no font has', () => {
  let pdf: Uint8Array;
  beforeAll(async () => {
    pdf = await sign(original, 'Ana 😀 Pérez', 0, 'Sello-emoji');
  });

  it('keeps the character in the text layer', () => {
    expect(plain(pdfToText(pdf)).split('\n')).toContain('Ana 😀 Pérez');
  });

  it('is drawn as a visible box where it stands', () => {
    // The box is the stroked rectangle after the text; the frame is the first one.
    const glyphs = drawnGlyphs(pdf);
    expect(glyphs.some((r) => r.baseFont.endsWith('+NotoSans-Bold') && r.gids.includes(0))).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'sello-emoji-'));
    try {
      writeFileSync(join(dir, 'in.pdf'), pdf);
      const qdf = spawnSync('qpdf', ['--qdf', '--object-streams=disable', join(dir, 'in.pdf'), join(dir, 'qdf.pdf')]);
      expect(qdf.status).toBe(0);
      const text = readFileSync(join(dir, 'qdf.pdf')).toString('latin1');
      const rects = [...text.matchAll(/([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re S/g)].map((m) => m.slice(1, 5).map(Number));
      // The frame, then the box: as tall as three quarters of the name's size, narrower than tall.
      expect(rects).toHaveLength(2);
      const [x, y, w, h] = rects[1];
      expect(w).toBeGreaterThan(0);
      expect(w).toBeLessThan(h);
      // Rendered at 4 px a point: the box's left edge is ink, its middle is paper.
      const r = spawnSync('pdftoppm', ['-r', '288', '-gray', '-singlefile', join(dir, 'in.pdf'), join(dir, 'page')]);
      expect(r.status).toBe(0);
      const pgm = readFileSync(join(dir, 'page.pgm'));
      const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 50).toString('latin1'))!;
      const width = Number(header[1]);
      const height = Number(header[2]);
      const px = (pxX: number, pxY: number) => pgm[header[0].length + pxY * width + pxX];
      const { lx, ly } = box(0);
      const toPx = (px0: number, py0: number) => [Math.round((lx + px0) * 4), Math.round(height - (ly + py0) * 4)] as const;
      const edge = Array.from({ length: 5 }, (_, i) => {
        const [ex, ey] = toPx(x, y + (h * (i + 1)) / 6);
        return Math.min(px(ex - 1, ey), px(ex, ey), px(ex + 1, ey));
      });
      expect(Math.max(...edge)).toBeLessThan(128);
      const [cx, cy] = toPx(x + w / 2, y + h / 2);
      expect(px(cx, cy)).toBeGreaterThan(200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
