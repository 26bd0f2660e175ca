// The glyphs a PDF draws with its composite (Type0, Identity-H) fonts, read through qpdf's JSON
// (an independent reader): every content stream and form XObject, its /Font resources, each
// `/Name size Tf` and the two-byte codes of the strings shown after it (Tj, TJ), with the font
// file embedded for that font. The shaper's own outlines of those glyphs then tell which forms
// were drawn (an Arabic letter's joined form or its isolated one), whatever ids a subset gave them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as hb from 'harfbuzzjs';

type Json = Record<string, unknown>;

export interface DrawnRun {
  /** The font's /BaseFont, subset prefix included. */
  baseFont: string;
  /** The embedded TrueType program (FontFile2). */
  fontFile: Uint8Array;
  /** Glyph ids in drawing order (Identity-H: code = CID = glyph id). */
  gids: number[];
}

function qpdfObjects(pdf: Uint8Array): Map<string, { value?: Json; stream?: { dict: Json; data?: string } }> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-glyphs-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    const out = execFileSync(
      'qpdf',
      ['--json=2', '--json-key=qpdf', '--json-stream-data=inline', '--decode-level=generalized', join(dir, 'in.pdf')],
      { maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' },
    );
    const objects = (JSON.parse(out) as { qpdf: [unknown, Record<string, { value?: Json; stream?: { dict: Json; data?: string } }>] })
      .qpdf[1];
    return new Map(Object.entries(objects));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every run of glyphs shown with a Type0 font, in content order, stream by stream. */
export function drawnGlyphs(pdf: Uint8Array): DrawnRun[] {
  const objects = qpdfObjects(pdf);
  const get = (v: unknown): unknown => {
    if (typeof v === 'string' && / R$/.test(v)) {
      const o = objects.get(`obj:${v}`);
      return o?.value ?? o?.stream;
    }
    return v;
  };
  const dictOf = (v: unknown): Json | undefined => {
    const o = get(v) as Json | undefined;
    return o && 'dict' in o ? (o.dict as Json) : o;
  };
  const fontInfo = new Map<string, { baseFont: string; fontFile: Uint8Array } | null>();
  const type0 = (ref: unknown): { baseFont: string; fontFile: Uint8Array } | null => {
    const key = String(ref);
    if (fontInfo.has(key)) {
      return fontInfo.get(key)!;
    }
    const font = dictOf(ref);
    let info: { baseFont: string; fontFile: Uint8Array } | null = null;
    if (font?.['/Subtype'] === '/Type0') {
      const descendant = dictOf((get(font['/DescendantFonts']) as unknown[])[0]);
      const descriptor = dictOf(descendant?.['/FontDescriptor']);
      const file = get(descriptor?.['/FontFile2']) as { data?: string } | undefined;
      if (file?.data) {
        info = { baseFont: String(font['/BaseFont']).slice(1), fontFile: new Uint8Array(Buffer.from(file.data, 'base64')) };
      }
    }
    fontInfo.set(key, info);
    return info;
  };
  const runs: DrawnRun[] = [];
  for (const [key, obj] of objects) {
    if (!key.startsWith('obj:') || !obj.stream?.data) {
      continue;
    }
    const resources = dictOf(obj.stream.dict['/Resources']);
    let fonts = dictOf(resources?.['/Font']);
    if (!fonts) {
      // A page's content stream: its resources are the page's.
      for (const [, o] of objects) {
        const d = o.value;
        if (d?.['/Type'] === '/Page' && [d['/Contents']].flat().includes(key.slice(4))) {
          fonts = dictOf(dictOf(d['/Resources'])?.['/Font']);
        }
      }
    }
    if (!fonts) {
      continue;
    }
    const content = Buffer.from(obj.stream.data, 'base64').toString('latin1');
    let current: DrawnRun | null = null;
    for (const m of content.matchAll(/\/([^\s/<>[\]()]+)\s+[\d.]+\s+Tf|\[((?:<[0-9A-Fa-f\s]*>|[^\]])*)\]\s*TJ|<([0-9A-Fa-f\s]*)>\s*Tj/g)) {
      if (m[1] !== undefined) {
        const info = type0(fonts[`/${m[1]}`]);
        current = info ? { ...info, gids: [] } : null;
        if (current) {
          runs.push(current);
        }
        continue;
      }
      if (!current) {
        continue;
      }
      const hexes = m[2] !== undefined ? [...m[2].matchAll(/<([0-9A-Fa-f\s]*)>/g)].map((h) => h[1]) : [m[3]];
      for (const hex of hexes) {
        const clean = hex.replace(/\s/g, '');
        for (let i = 0; i + 4 <= clean.length; i += 4) {
          current.gids.push(Number.parseInt(clean.slice(i, i + 4), 16));
        }
      }
    }
  }
  return runs.filter((r) => r.gids.length > 0);
}

/** The outline of each glyph (SVG path data, font units): equal outlines, same glyph drawn. */
export function glyphOutlines(fontFile: Uint8Array, gids: number[]): string[] {
  const font = new hb.Font(new hb.Face(new hb.Blob(fontFile)));
  return gids.map((g) => font.glyphToPath(g));
}

/** The glyphs HarfBuzz gives for `text` in a font file, left to right, as outlines. */
export function shapedOutlines(fontFile: Uint8Array, text: string): string[] {
  const font = new hb.Font(new hb.Face(new hb.Blob(fontFile)));
  const buffer = new hb.Buffer();
  buffer.addText(text);
  buffer.guessSegmentProperties();
  hb.shape(font, buffer);
  return buffer.getGlyphInfos().map((g) => font.glyphToPath(g.codepoint));
}
