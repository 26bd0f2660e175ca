// Validates the `qr` of a create payload: where to draw the QR code linking to the document's
// public verification page. The boxes follow the stickers' geometry rules (validate-stickers.ts);
// the code is the largest square centred in each box.
import { AppError } from '../errors.js';
import type { PdfInfo } from '../../pdf/inspect-pdf.js';
import { checkBox, type BoxRect } from './validate-stickers.js';

/** Codes one document may carry. */
export const MAX_QR_CODES = 10;

/**
 * Smallest square side, in points (about 17 mm): with the quiet zone a verification URL takes
 * some 45 modules, about 0.38 mm each at this size, near the smallest a phone camera reads.
 */
export const MIN_QR_SIDE = 48;

export interface PlannedQr {
  index: number;
  page: number;
  rect: BoxRect;
}

function fail(index: number, field: string | null, rule: string): never {
  const where = field ? `qr[${index}].${field}` : `qr[${index}]`;
  throw new AppError('INVALID_INPUT', `${where}: ${rule}`, { field: where, qr_index: index, rule });
}

export function validateQr(input: unknown, pdf: PdfInfo): PlannedQr[] {
  if (input === undefined || input === null) {
    return [];
  }
  if (!Array.isArray(input)) {
    throw new AppError('INVALID_INPUT', 'qr: expected an array of {page, rect}', { field: 'qr' });
  }
  if (input.length > MAX_QR_CODES) {
    throw new AppError('INVALID_INPUT', `qr: at most ${MAX_QR_CODES} codes per document`, { field: 'qr' });
  }
  return input.map((raw: unknown, i: number) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      fail(i, null, 'expected an object {page, rect}');
    }
    const q = raw as Record<string, unknown>;
    const box = checkBox(q.page, q.rect, pdf);
    if (!box.ok) {
      fail(i, box.field, box.rule);
    }
    const side = Math.min(box.rect.tx - box.rect.lx, box.rect.ty - box.rect.ly);
    if (side < MIN_QR_SIDE) {
      fail(
        i,
        'rect',
        `the largest square in the box is ${Math.round(side * 100) / 100} points wide; a QR code needs at least ${MIN_QR_SIDE} × ${MIN_QR_SIDE} points (about 17 mm) to scan`,
      );
    }
    return { index: i, page: box.page, rect: box.rect };
  });
}
