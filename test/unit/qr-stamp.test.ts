// The QR stamp, checked from the outside: pages rendered by pdftoppm and decoded by jsQR (position
// and orientation as a reader shows them, /Rotate and CropBox applied), qpdf --check, and the
// bytes (an incremental update of the input).
import { PDF, PdfArray, type PdfDict, PdfNumber } from '@libpdf/core';
import { describe, expect, it } from 'vitest';
import { QUIET_ZONE, qrModules, stampQrCodes, type QrPlacement } from '../../src/pdf/qr-stamp.js';
import { decodeQr, px } from '../helpers/qr.js';
import { A4, makeCroppedPdf, makePdf, qpdfCheck } from '../helpers/pdfs.js';

const URL_ = 'https://sello.example.com/verify/8a1c2f4e-5b6d-4e7f-9a0b-1c2d3e4f5a6b';

async function withRotation(rotate: number): Promise<Buffer> {
  const pdf = await PDF.load(await makePdf([A4]));
  pdf.getPage(0)!.dict.set('Rotate', PdfNumber.of(rotate));
  return Buffer.from(await pdf.save());
}

/** Where a user-space point (relative to the CropBox) shows on a page turned clockwise by `rotate`, in points from the top left. */
function shown(u: number, v: number, w: number, h: number, rotate: number): [number, number] {
  switch (rotate) {
    case 90:
      return [v, u];
    case 180:
      return [w - u, v];
    case 270:
      return [h - v, w - u];
    default:
      return [u, h - v];
  }
}

/** The symbol's expected corners on screen (pixels): the square's, less the quiet zone. */
function expectedSymbol(square: { x: number; y: number; side: number }, w: number, h: number, rotate: number) {
  const size = qrModules(URL_).length + 2 * QUIET_ZONE;
  const inset = (square.side * QUIET_ZONE) / size;
  const corners = [
    shown(square.x + inset, square.y + inset, w, h, rotate),
    shown(square.x + square.side - inset, square.y + square.side - inset, w, h, rotate),
  ];
  const xs = corners.map((c) => px(c[0]));
  const ys = corners.map((c) => px(c[1]));
  return { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys), module: px(square.side / size) };
}

async function decodedAt(pdf: Uint8Array, square: { x: number; y: number; side: number }, w: number, h: number, rotate: number) {
  const qr = await decodeQr(pdf);
  expect(qr, 'no QR code found on the rendered page').not.toBeNull();
  expect(qr!.data).toBe(URL_);
  const { topLeftCorner: tl, topRightCorner: tr, bottomLeftCorner: bl, bottomRightCorner: br } = qr!.location;
  // Upright on screen: the finder patterns top left, top right and bottom left, as printed.
  expect(tr.x - tl.x).toBeGreaterThan(0);
  expect(Math.abs(tr.y - tl.y)).toBeLessThan(3);
  expect(bl.y - tl.y).toBeGreaterThan(0);
  expect(Math.abs(bl.x - tl.x)).toBeLessThan(3);
  const e = expectedSymbol(square, w, h, rotate);
  const tolerance = e.module * 1.5;
  expect(Math.abs(tl.x - e.left)).toBeLessThan(tolerance);
  expect(Math.abs(tl.y - e.top)).toBeLessThan(tolerance);
  expect(Math.abs(br.x - e.right)).toBeLessThan(tolerance);
  expect(Math.abs(br.y - e.bottom)).toBeLessThan(tolerance);
  return qr!;
}

describe('qr-stamp', () => {
  it('draws a decodable code where asked, as an incremental update that qpdf accepts', async () => {
    const input = await makePdf([A4, A4]);
    const placements: QrPlacement[] = [{ page: 0, rect: { lx: 400, ly: 50, tx: 520, ty: 170 } }];
    const out = await stampQrCodes(input, placements, URL_);
    expect(Buffer.from(out.subarray(0, input.length)).equals(input)).toBe(true);
    expect(out.length).toBeGreaterThan(input.length);
    expect(qpdfCheck(Buffer.from(out)).ok).toBe(true);
    await decodedAt(out, { x: 400, y: 50, side: 120 }, A4.width, A4.height, 0);
    expect(await decodeQr(out, 1)).toBeNull(); // only the page asked for

    // Vector modules, not an image: the page gained no image XObject.
    const doc = await PDF.load(out);
    const res = doc.getPage(0)!.dict.getDict('Resources', (r) => doc.getObject(r));
    expect(res?.getDict('XObject', (r) => doc.getObject(r))).toBeUndefined();
    // A link annotation over the code opens the same address.
    const annots = doc
      .getPage(0)!
      .dict.getArray('Annots', (r) => doc.getObject(r))!
      .toArray();
    const link = doc.getObject(annots[annots.length - 1] as never) as PdfDict;
    expect(link.getName('Subtype')?.value).toBe('Link');
    const action = link.getDict('A', (r) => doc.getObject(r))!;
    expect(action.getName('S')?.value).toBe('URI');
    expect(action.getString('URI')?.asString()).toBe(URL_);
  });

  it('fits the largest centred square in a box that is not square', async () => {
    const out = await stampQrCodes(await makePdf([A4]), [{ page: 0, rect: { lx: 100, ly: 300, tx: 400, ty: 420 } }], URL_);
    await decodedAt(out, { x: 190, y: 300, side: 120 }, A4.width, A4.height, 0);
  });

  for (const rotate of [90, 180, 270]) {
    it(`reads upright on a page turned by /Rotate ${rotate}`, async () => {
      const input = await withRotation(rotate);
      const out = await stampQrCodes(input, [{ page: 0, rect: { lx: 60, ly: 500, tx: 200, ty: 640 } }], URL_);
      expect(qpdfCheck(Buffer.from(out)).ok).toBe(true);
      await decodedAt(out, { x: 60, y: 500, side: 140 }, A4.width, A4.height, rotate);
    });
  }

  it('places the box from the CropBox origin', async () => {
    // CropBox [40 50 540 750]: the visible page is 500 × 700 points.
    const out = await stampQrCodes(await makeCroppedPdf(), [{ page: 0, rect: { lx: 10, ly: 10, tx: 130, ty: 130 } }], URL_);
    await decodedAt(out, { x: 10, y: 10, side: 120 }, 500, 700, 0);
  });

  it('keeps its quiet zone over dark page content', async () => {
    const pdf = await PDF.load(await makePdf([A4]));
    pdf.getPage(0)!.drawRectangle({ x: 50, y: 50, width: 300, height: 300 }); // black by default
    const input = Buffer.from(await pdf.save());
    const out = await stampQrCodes(input, [{ page: 0, rect: { lx: 100, ly: 100, tx: 220, ty: 220 } }], URL_);
    await decodedAt(out, { x: 100, y: 100, side: 120 }, A4.width, A4.height, 0);
  });

  it('draws on several pages and refuses a page that does not exist', async () => {
    const out = await stampQrCodes(
      await makePdf([A4, A4]),
      [0, 1].map((page) => ({ page, rect: { lx: 50, ly: 50, tx: 150, ty: 150 } })),
      URL_,
    );
    expect((await decodeQr(out, 0))?.data).toBe(URL_);
    expect((await decodeQr(out, 1))?.data).toBe(URL_);
    await expect(stampQrCodes(await makePdf([A4]), [{ page: 1, rect: { lx: 0, ly: 0, tx: 50, ty: 50 } }], URL_)).rejects.toThrow(
      /page 1 does not exist/,
    );
  });

  it('keeps a page whose /Annots is an indirect array', async () => {
    const pdf = await PDF.load(await makePdf([A4]));
    const page = pdf.getPage(0)!;
    page.dict.set('Annots', pdf.register(new PdfArray([])));
    const input = Buffer.from(await pdf.save());
    const out = await stampQrCodes(input, [{ page: 0, rect: { lx: 50, ly: 50, tx: 150, ty: 150 } }], URL_);
    const doc = await PDF.load(out);
    expect(doc.getPage(0)!.dict.getArray('Annots', (r) => doc.getObject(r))!.length).toBe(1);
    expect((await decodeQr(out))?.data).toBe(URL_);
  });
});
