// The pure parts of the built-in identity checks: decoding (and refusing) evidence images, the
// reading of a machine-readable zone out of OCR text with its usual errors, the comparison of
// names, and the image jail's limits.
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compareNames, nameWords } from '../../src/domain/identity/name-match.js';
import { decodeImage, ImageDecodeError } from '../../src/identity-imaging/decode-image.js';
import { rotate, skewAngle } from '../../src/identity-imaging/deskew.js';
import { measureQuality } from '../../src/identity-imaging/image-quality.js';
import { findMrz, fitLine } from '../../src/identity-imaging/mrz-text.js';
import { ImageDecodeFailure, ImageJail, ImageTooComplexError } from '../../src/jail/image-jail.js';
import { blur, glare, readPng, writeJpeg, writePng } from '../helpers/image-ops.js';
import { testPng } from '../helpers/images.js';
import { td1, td3 } from '../helpers/mrz-lines.js';

const ANA = {
  surnames: 'GARCIA LOPEZ',
  given: 'ANA MARIA',
  birth: '900412',
  expiry: '310101',
  sex: 'F' as const,
  documentNumber: 'G08QX7730',
};

/** A card-like test pattern: dark "text" strokes on a light field, sharp, 1200 × 760. */
function pattern(): Buffer {
  const img = readPng(testPng(1200, 760, [235, 235, 230]));
  for (let y = 100; y < 660; y += 24) {
    for (let x = 80; x < 1120; x++) {
      if ((x >> 3) % 3 !== 0) {
        for (let dy = 0; dy < 10; dy++) {
          img.data.set([20, 20, 20], ((y + dy) * 1200 + x) * 4);
        }
      }
    }
  }
  return writePng(img);
}

describe('decoding evidence images', () => {
  it('decodes PNG and JPEG to the same planes, and refuses WebP, damaged and oversized images', () => {
    const png = pattern();
    const fromPng = decodeImage(png);
    const fromJpeg = decodeImage(writeJpeg(readPng(png), 95));
    expect([fromPng.width, fromPng.height, fromJpeg.width, fromJpeg.height]).toEqual([1200, 760, 1200, 760]);
    expect(Math.abs(measureQuality(fromPng).brightness - measureQuality(fromJpeg).brightness)).toBeLessThan(2);

    // A lossy WebP header (VP8 frame tag and start code), 640 × 480.
    const webp = Buffer.alloc(40);
    webp.write('RIFF', 0, 'latin1');
    webp.write('WEBPVP8 ', 8, 'latin1');
    webp.set([0x9d, 0x01, 0x2a], 23);
    webp.writeUInt16LE(640, 26);
    webp.writeUInt16LE(480, 28);
    const problem = (b: Buffer) => {
      try {
        decodeImage(b);
        return 'decoded';
      } catch (err) {
        return (err as ImageDecodeError).problem;
      }
    };
    expect(problem(webp)).toBe('unsupported');
    expect(problem(png.subarray(0, png.length / 2))).toBe('unreadable');
    expect(problem(Buffer.from('not an image at all, just text'))).toBe('unreadable');
    const huge = Buffer.from(png);
    huge.writeUInt32BE(70000, 16); // IHDR width: 70000 × 760 px, 53 MP
    expect(problem(huge)).toBe('too_large');
  });

  it('bounds what an interlaced PNG inflates to by its size', () => {
    // 100 × 100 interlaced, its data inflating to 50 MB: refused before pngjs inflates it unbounded.
    const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const chunk = (type: string, data: Buffer) => {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(data.length, 0);
      head.write(type, 4, 'latin1');
      return Buffer.concat([head, data, Buffer.alloc(4)]);
    };
    const ihdr = Buffer.from([0, 0, 0, 100, 0, 0, 0, 100, 8, 2, 0, 0, 1]);
    const bomb = Buffer.concat([
      sig,
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.alloc(50_000_000))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    expect(() => decodeImage(bomb)).toThrow(ImageDecodeError);
  });
});

describe('image quality measures', () => {
  it('falls with blur, rises with a clipped reflection', () => {
    const sharp = readPng(pattern());
    const q = measureQuality(decodeImage(writePng(sharp)));
    const blurred = measureQuality(decodeImage(writePng(blur(sharp, 3))));
    const glaring = measureQuality(decodeImage(writePng(glare(sharp, 0.5, 0.5, 0.05))));
    expect(q.sharpness).toBeGreaterThan(blurred.sharpness * 5);
    expect([q.glare, blurred.glare]).toEqual([0, 0]);
    expect(glaring.glare).toBeGreaterThan(0.01);
  });

  it('finds the angle of text rows and turns them level', () => {
    const w = 600;
    const h = 400;
    const data = new Float32Array(w * h).fill(230);
    for (let row = 60; row < 340; row += 30) {
      for (let x = 50; x < 550; x++) {
        if (x % 9 < 6) {
          for (let t = 0; t < 8; t++) {
            data[(row + t) * w + x] = 20;
          }
        }
      }
    }
    const level = { w, h, data };
    expect(skewAngle(level)).toBe(0);
    // Rotating by -3 turns rows level at +3 into rows at -3: their angle is then found as -3.
    expect(skewAngle(rotate(level, 3))).toBe(-3);
    expect(skewAngle(rotate(rotate(level, 3), -3))).toBe(0);
  });
});

describe('the machine-readable zone in OCR text', () => {
  it('reads a clean zone, TD1 and TD3', () => {
    const card = findMrz(`IDENTIDAD\n${td1(ANA).join('\n')}\n`);
    expect(card).toMatchObject({ format: 'TD1', valid: true, surnames: 'GARCIA LOPEZ', givenNames: 'ANA MARIA', expirationDate: '310101' });
    const passport = findMrz(td3(ANA).join('\n'));
    expect(passport).toMatchObject({ format: 'TD3', valid: true, documentCode: 'P', issuingState: 'MEX' });
  });

  it("repairs OCR's usual errors and says so, but not a wrong check digit", () => {
    const [l1, l2, l3] = td1(ANA);
    // A stray letter before the zone, 0 read as O in the document number, one filler too many.
    const misread = [`T${l1.replace('G08', 'GO8')}`, l2, `${l3.replace('<<<<', '<<<<<')}`].join('\n');
    const r = findMrz(misread);
    expect(r).toMatchObject({ valid: true, surnames: 'GARCIA LOPEZ' });
    expect(r!.corrected).toBeGreaterThanOrEqual(1);
    // A wrong expiry check digit cannot be "repaired": there is no confusable character to swap.
    const wrongDigit = `${l2.slice(0, 14)}${(Number(l2[14]) + 1) % 10}${l2.slice(15)}`;
    const bad = findMrz([l1, wrongDigit, l3].join('\n'));
    expect(bad?.valid).toBe(false);
    expect(bad?.invalidFields).toContain('expirationDateCheckDigit');
    expect(findMrz('PASAPORTE\nNOMBRE ANA\n')).toBeUndefined();
    expect(fitLine('AB<<<<CD', 6)).toBe('AB<<CD');
    expect(fitLine('AB<<CD', 8)).toBe('AB<<<<CD');
  });
});

describe('names', () => {
  const zone = { surnames: 'GARCIA LOPEZ', givenNames: 'ANA MARIA', truncated: false };
  it.each([
    ['Ana García', 'match'],
    ['ANA MARÍA GARCÍA LÓPEZ', 'match'],
    ['García López, Ana María', 'match'],
    ['ana maria garcia', 'match'],
    ['Ana', 'mismatch'],
    ['Ana Pérez', 'mismatch'],
    ['García López', 'mismatch'],
    ['Bruno Díaz', 'mismatch'],
  ])('%s against GARCIA LOPEZ << ANA MARIA: %s', (name, result) => {
    expect(compareNames(name, zone).result).toBe(result);
  });

  it('ignores accents and marks, and accepts a name the zone cut short', () => {
    expect(nameWords('Peña Núñez-Ñandú, José')).toEqual(['PENA', 'NUNEZ', 'NANDU', 'JOSE']);
    const cut = { surnames: 'HERNANDEZ DE LA TORRE', givenNames: 'MAXIMILIA', truncated: true };
    expect(compareNames('Maximiliano Hernández', cut).result).toBe('match');
    expect(compareNames('Maximiliano Hernández', { ...cut, truncated: false }).result).toBe('mismatch');
  });
});

describe('the image jail', () => {
  it('decodes off the main thread, answers what is not an image, and stops a task past its time', async () => {
    const jail = new ImageJail({ qualityTimeoutMs: 15_000, ocrTimeoutMs: 60_000, memoryMb: 256, faceTimeoutMs: 30_000, faceWasmMb: 768 });
    const slow = new ImageJail({ qualityTimeoutMs: 30, ocrTimeoutMs: 30, memoryMb: 256, faceTimeoutMs: 30, faceWasmMb: 768 });
    try {
      const q = await jail.measure(pattern());
      expect([q.width, q.height]).toEqual([1200, 760]);
      await expect(jail.measure(Buffer.from('plain text, not an image'))).rejects.toBeInstanceOf(ImageDecodeFailure);
      // A large image cannot be decoded in 30 ms: the worker is stopped, the caller told.
      await expect(slow.measure(writeJpeg(readPng(testPng(4000, 3000)), 90))).rejects.toBeInstanceOf(ImageTooComplexError);
      // And the pool goes on with a fresh worker.
      expect((await jail.measure(pattern())).width).toBe(1200);
    } finally {
      await jail.close();
      await slow.close();
    }
  });
});
