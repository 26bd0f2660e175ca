// The drawn signature's image XObject (src/pdf/signature-image.ts), checked with tools that are not
// the code under test: PNGs written by pngjs with each PNG row filter, their pixels as pngjs decodes
// them, the PDF streams as qpdf decodes them (predictors included), and the signed page as poppler
// renders it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { PDF } from '@libpdf/core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfSignError, signPdf } from '../../src/pdf/sign-pdf.js';
import { embedSignaturePng } from '../../src/pdf/signature-image.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { A4, makePdf } from '../helpers/pdfs.js';

let dir: string;
let pki: TestPki;
let ana: TestSigner;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sello-sig-image-'));
  pki = await createTestPki();
  ana = await pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
}, 60_000);
afterAll(() => {
  pki?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** An RGBA drawing: a dark stroke on a transparent black background, with a soft edge and noise in the stroke. */
function drawing(width: number, height: number): PNG {
  const img = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const curve = height / 2 + (height / 3) * Math.sin((x / width) * 3 * Math.PI);
      const d = Math.abs(y - curve);
      const i = (y * width + x) * 4;
      img.data[i] = (20 + x * 7) & 0x3f;
      img.data[i + 1] = (30 + y * 3) & 0x3f;
      img.data[i + 2] = 120 + ((x * y) % 50);
      img.data[i + 3] = d < 3 ? 255 : d < 6 ? Math.round((255 * (6 - d)) / 3) : 0;
    }
  }
  return img;
}

/** A PNG written chunk by chunk, for the shapes pngjs does not write. */
function handPng(ihdr: { width: number; height: number; bitDepth: number; colorType: number }, chunks: [string, Buffer][]): Buffer {
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length);
    head.write(type, 4, 'latin1');
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])));
    return Buffer.concat([head, body, sum]);
  };
  const h = Buffer.alloc(13);
  h.writeUInt32BE(ihdr.width, 0);
  h.writeUInt32BE(ihdr.height, 4);
  h[8] = ihdr.bitDepth;
  h[9] = ihdr.colorType;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', h),
    ...chunks.map(([t, b]) => chunk(t, b)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

interface DecodedImage {
  dict: Record<string, unknown>;
  data: Buffer;
  smask?: { dict: Record<string, unknown>; data: Buffer };
}

/** The image XObjects of a PDF with their data decoded by qpdf (Flate and PNG predictors), or as stored. */
function qpdfImages(pdf: Uint8Array, decode: 'generalized' | 'none' = 'generalized'): DecodedImage[] {
  const path = join(dir, `i${n++}.pdf`);
  writeFileSync(path, pdf);
  const r = spawnSync('qpdf', ['--json=2', '--json-key=qpdf', '--json-stream-data=inline', `--decode-level=${decode}`, path], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  expect(r.status, r.stderr).toBe(0);
  const objects = (
    JSON.parse(r.stdout) as { qpdf: [unknown, Record<string, { stream?: { dict: Record<string, unknown>; data: string } }>] }
  ).qpdf[1];
  const streams = Object.entries(objects).flatMap(([key, o]) => (o.stream ? [{ key: key.replace(/^obj:/, ''), ...o.stream }] : []));
  const byRef = new Map(streams.map((s) => [s.key, s]));
  const masks = new Set(streams.map((s) => s.dict['/SMask']).filter(Boolean));
  return streams
    .filter((s) => s.dict['/Subtype'] === '/Image' && !masks.has(s.key))
    .map((s) => {
      const mask = byRef.get(s.dict['/SMask'] as string);
      return {
        dict: s.dict,
        data: Buffer.from(s.data, 'base64'),
        smask: mask ? { dict: mask.dict, data: Buffer.from(mask.data, 'base64') } : undefined,
      };
    });
}

async function embedded(png: Buffer, decode: 'generalized' | 'none' = 'generalized'): Promise<DecodedImage> {
  const pdf = PDF.create();
  pdf.addPage();
  const image = embedSignaturePng(pdf, png);
  // Drawn nowhere, so the image is referenced from the catalog to survive the writer's pruning.
  pdf.getCatalog().set('SelloTestImage', image.ref);
  const images = qpdfImages(await pdf.save(), decode);
  expect(images).toHaveLength(1);
  return images[0];
}

describe('the signature image', () => {
  const source = drawing(97, 41); // odd sizes: rows that are not a multiple of anything
  const rgba = PNG.sync.read(PNG.sync.write(source)).data; // pngjs's own decoding of what it wrote

  for (const filterType of [0, 1, 2, 3, 4, -1]) {
    it(`keeps every pixel of an RGBA PNG (row filter ${filterType === -1 ? 'adaptive' : filterType}): colour, and alpha as the soft mask`, async () => {
      const png = PNG.sync.write(source, { colorType: 6, filterType });
      const image = await embedded(png);
      expect(image.dict).toMatchObject({ '/Width': 97, '/Height': 41, '/ColorSpace': '/DeviceRGB', '/BitsPerComponent': 8 });
      expect(image.smask?.dict).toMatchObject({ '/Width': 97, '/Height': 41, '/ColorSpace': '/DeviceGray', '/BitsPerComponent': 8 });
      const color = Buffer.alloc(97 * 41 * 3);
      const alpha = Buffer.alloc(97 * 41);
      for (let p = 0; p < alpha.length; p++) {
        rgba.copy(color, p * 3, p * 4, p * 4 + 3);
        alpha[p] = rgba[p * 4 + 3];
      }
      expect(image.data.equals(color)).toBe(true);
      expect(image.smask!.data.equals(alpha)).toBe(true);
    });
  }

  it('keeps grey + alpha, and passes opaque RGB and grey through with their PNG predictors', async () => {
    for (const colorType of [0, 2, 4] as const) {
      const png = PNG.sync.write(source, { colorType, filterType: -1 });
      const decoded = PNG.sync.read(png).data; // RGBA, as pngjs reads it back
      const image = await embedded(png);
      const channels = colorType === 2 ? 3 : 1;
      const expected = Buffer.alloc(97 * 41 * channels);
      for (let p = 0; p < 97 * 41; p++) {
        decoded.copy(expected, p * channels, p * 4, p * 4 + channels);
      }
      expect(image.data.equals(expected)).toBe(true);
      if (colorType === 4) {
        expect(image.smask?.data.equals(Buffer.from(Array.from({ length: 97 * 41 }, (_, p) => decoded[p * 4 + 3])))).toBe(true);
      } else {
        expect(image.smask).toBeUndefined();
        // The PNG's own compressed rows, not a re-encoding.
        const stored = await embedded(png, 'none');
        expect(stored.dict).toMatchObject({
          '/Filter': '/FlateDecode',
          '/DecodeParms': { '/Predictor': 15, '/Colors': channels, '/Columns': 97 },
        });
        const idat = png.indexOf('IDAT');
        expect(stored.data.equals(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)))).toBe(true);
      }
    }
  });

  it('still embeds the shapes it leaves to the PDF library: 16-bit and palette images', async () => {
    const sixteen = await embedded(PNG.sync.write(source, { colorType: 6, bitDepth: 16 }));
    expect(sixteen.dict).toMatchObject({ '/Width': 97, '/Height': 41 });
    expect(sixteen.smask).toBeDefined();
    const rows = Buffer.from([0, 0, 1, 0, 1, 0]); // 2 × 2, palette indexes, filter 0
    const palette = handPng({ width: 2, height: 2, bitDepth: 8, colorType: 3 }, [
      ['PLTE', Buffer.from([0, 0, 0, 255, 255, 255])],
      ['IDAT', deflateSync(rows)],
    ]);
    const image = await embedded(palette);
    expect(image.dict).toMatchObject({ '/Width': 2, '/Height': 2 });
  });

  it('draws a transparent-background signature in its box: dark strokes, white around them (poppler)', async () => {
    const T = new Date();
    const png = PNG.sync.write(drawing(800, 280), { colorType: 6, filterType: -1 });
    const box = { lx: 50, ly: 50, tx: 350, ty: 170 };
    const { pdf } = await signPdf({
      pdf: await makePdf([A4]),
      fieldName: 'Sello-ana',
      boxes: [{ page: 0, rect: box }],
      appearance: { image: png, signerName: ana.cn, signedAt: T, authorityLabel: 'Email link: ana@example.com', locale: 'en' },
      signer: ana,
      timestamp: pki.timestamp,
      trustedRootsDer: [pki.rootDer],
      now: () => T,
    });
    const path = join(dir, `s${n++}.pdf`);
    writeFileSync(path, pdf);
    const out = join(dir, `r${n++}`);
    expect(spawnSync('pdftoppm', ['-r', '72', '-gray', '-singlefile', path, out]).status).toBe(0);
    const pgm = readFileSync(`${out}.pgm`);
    const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 50).toString('latin1'))!;
    const [width, height] = [Number(header[1]), Number(header[2])];
    const px = pgm.subarray(header[0].length);
    // The image's area: the upper part of the box (the legend takes the lower part).
    let dark = 0;
    let total = 0;
    for (let y = height - box.ty + 4; y < height - box.ty + (box.ty - box.ly) * 0.4; y++) {
      for (let x = box.lx + 4; x < box.tx - 4; x++) {
        total++;
        dark += px[y * width + x] < 160 ? 1 : 0;
      }
    }
    expect(dark).toBeGreaterThan(150); // the stroke is there
    expect(dark / total).toBeLessThan(0.35); // and the transparent black around it is not drawn
    const sig = spawnSync('pdfsig', [path], { encoding: 'utf8' }).stdout;
    expect(sig).toContain('Signature is Valid.');
  });

  it('refuses malformed, truncated and oversized PNGs, and data that inflates past the image size', async () => {
    const good = PNG.sync.write(source, { colorType: 6, filterType: -1 });
    const idatAt = good.indexOf('IDAT');
    const corrupt = Buffer.from(good);
    corrupt.fill(0x55, idatAt + 10, idatAt + 40);
    const rows = (w: number, h: number, bytes: number) => Buffer.alloc(h * (1 + w * bytes));
    const cases: [string, Buffer][] = [
      ['truncated', good.subarray(0, idatAt + 20)],
      ['corrupt data', corrupt],
      ['too little data', handPng({ width: 50, height: 50, bitDepth: 8, colorType: 6 }, [['IDAT', deflateSync(rows(50, 10, 4))]])],
      ['a bomb', handPng({ width: 50, height: 50, bitDepth: 8, colorType: 6 }, [['IDAT', deflateSync(Buffer.alloc(50_000_000))]])],
      ['too large', handPng({ width: 5000, height: 4000, bitDepth: 8, colorType: 6 }, [['IDAT', deflateSync(rows(10, 1, 4))]])],
      [
        'bad filter',
        handPng({ width: 2, height: 1, bitDepth: 8, colorType: 6 }, [['IDAT', deflateSync(Buffer.from([7, 1, 2, 3, 4, 5, 6, 7, 8]))]]),
      ],
      [
        'bad filter, opaque',
        handPng({ width: 2, height: 1, bitDepth: 8, colorType: 2 }, [['IDAT', deflateSync(Buffer.from([9, 1, 2, 3, 4, 5, 6]))]]),
      ],
    ];
    const pdf = PDF.create();
    pdf.addPage();
    for (const [name, png] of cases) {
      expect(() => embedSignaturePng(pdf, png), name).toThrow();
    }
    const T = new Date();
    const err = await signPdf({
      pdf: await makePdf([A4]),
      fieldName: 'Sello-ana',
      boxes: [{ page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 130 } }],
      appearance: { image: cases[3][1], signerName: ana.cn, signedAt: T, authorityLabel: 'x' },
      signer: ana,
      timestamp: pki.timestamp,
      trustedRootsDer: [pki.rootDer],
      now: () => T,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PdfSignError);
    expect((err as PdfSignError).message).toContain('not a readable PNG');
  });
});
