// Reading QR codes back from PDFs the way a phone would see them: the page rendered by poppler's
// pdftoppm (an independent renderer; -cropbox shows the visible page, as readers do, and /Rotate is
// applied) and decoded by jsQR.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jsqr, { type QRCode } from 'jsqr';
import { PNG } from 'pngjs';

export const RENDER_DPI = 150;

/** Page `page` (0-based) rendered at 150 dpi (or `dpi`) as RGBA pixels. */
export async function renderPage(
  pdf: Uint8Array,
  page = 0,
  dpi = RENDER_DPI,
): Promise<{ width: number; height: number; data: Uint8ClampedArray }> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-qr-'));
  try {
    writeFileSync(join(dir, 'doc.pdf'), pdf);
    const n = String(page + 1);
    await promisify(execFile)('pdftoppm', [
      '-r',
      String(dpi),
      '-png',
      '-cropbox',
      '-f',
      n,
      '-l',
      n,
      '-singlefile',
      join(dir, 'doc.pdf'),
      join(dir, 'page'),
    ]);
    const png = PNG.sync.read(readFileSync(join(dir, 'page.png')));
    return { width: png.width, height: png.height, data: new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The QR code found on the rendered page, or null. */
export async function decodeQr(pdf: Uint8Array, page = 0): Promise<(QRCode & { width: number; height: number }) | null> {
  const img = await renderPage(pdf, page);
  // jsqr is CommonJS: under NodeNext its default export is module.exports, which carries .default.
  const found = jsqr.default(img.data, img.width, img.height);
  return found ? { ...found, width: img.width, height: img.height } : null;
}

/** Points to pixels at the render resolution. */
export const px = (points: number) => (points * RENDER_DPI) / 72;
