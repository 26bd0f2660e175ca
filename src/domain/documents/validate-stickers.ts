// Validates the `stickers` of a create payload against the parsed document and groups them into
// signers: one signer per (authority, data) pair, owning one or more boxes (decisions.md).
import { AppError } from '../errors.js';
import type { Limits } from '../../config.js';
import type { PdfInfo } from '../../pdf/inspect-pdf.js';
import { AUTHORITIES, isAuthority, isEmail, normalizeSignerData, type Authority } from './authorities.js';
import { type CertificateMatch, readCertificateMatch } from './certificate-match.js';

export interface PlannedSigner {
  position: number;
  authority: Authority;
  data: string;
  name: string | null;
  email: string | null;
  /** Verified before signing (the sticker's flag, or the payload's for every signer). */
  requireIdentityVerification: boolean;
  /** CERT: the certificate's subject attribute that must hold a value (decisions.md, own certificates). */
  certificateMatch: CertificateMatch | null;
}

export interface PlannedSticker {
  index: number;
  signerPosition: number;
  page: number;
  rect: { lx: number; ly: number; tx: number; ty: number };
  /** Keys public clients send that we keep but do not act on (stickerType, dataType, imageType). */
  extra: Record<string, unknown>;
}

// Rounding slack for boxes computed by clients in floating point against the page edge.
const EPSILON = 0.01;

function fail(index: number, field: string, rule: string): never {
  throw new AppError('INVALID_STICKER', `stickers[${index}].${field}: ${rule}`, { sticker_index: index, field, rule });
}

export function validateStickers(input: unknown, pdf: PdfInfo, limits: Limits): { signers: PlannedSigner[]; stickers: PlannedSticker[] } {
  if (input === undefined || input === null) {
    return { signers: [], stickers: [] };
  }
  if (!Array.isArray(input)) {
    throw new AppError('INVALID_INPUT', 'stickers: expected an array', { field: 'stickers' });
  }
  if (input.length > limits.stickersPerDocument) {
    throw new AppError('INVALID_INPUT', `stickers: at most ${limits.stickersPerDocument} boxes per document`, {
      field: 'stickers',
    });
  }
  const signers = new Map<string, PlannedSigner>();
  const stickers: PlannedSticker[] = [];
  input.forEach((raw: unknown, i: number) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new AppError('INVALID_STICKER', `stickers[${i}]: expected an object`, { sticker_index: i, rule: 'object' });
    }
    const s = raw as Record<string, unknown>;
    if (!isAuthority(s.authority)) {
      fail(i, 'authority', `unknown authority ${JSON.stringify(s.authority)}; expected one of ${AUTHORITIES.join(', ')}`);
    }
    if (typeof s.data !== 'string' || s.data.trim() === '') {
      fail(i, 'data', 'required: the signer identifier for the authority');
    }
    const data = normalizeSignerData(s.authority, s.data);
    if (!data.ok) {
      fail(i, 'data', data.rule);
    }
    const box = checkBox(s.page, s.rect, pdf);
    if (!box.ok) {
      fail(i, box.field, box.rule);
    }
    const { page, rect } = box;
    const name = optionalString(i, s, 'name', 200);
    const email = optionalString(i, s, 'email', 254);
    if (email !== null && !isEmail(email)) {
      fail(i, 'email', 'must be an email address');
    }
    if (s.requireIdentityVerification !== undefined && typeof s.requireIdentityVerification !== 'boolean') {
      fail(i, 'requireIdentityVerification', 'must be true or false');
    }
    const verify = s.requireIdentityVerification === true;
    const match = readCertificateMatch(s.authority, s.certificate_match);
    if (!match.ok) {
      fail(i, match.field, match.rule);
    }

    const key = `${s.authority}\u0000${data.value}`;
    let signer = signers.get(key);
    if (!signer) {
      if (signers.size >= limits.signersPerDocument) {
        fail(i, 'data', `at most ${limits.signersPerDocument} signers per document`);
      }
      const isMail = s.authority === 'EMAIL' || s.authority === 'EMAIL_LINK' || s.authority === 'CERT' || s.authority === 'CSC';
      signer = {
        position: signers.size,
        authority: s.authority,
        data: data.value,
        name,
        email: email?.toLowerCase() ?? (isMail ? data.value : null),
        requireIdentityVerification: verify,
        certificateMatch: match.value,
      };
      signers.set(key, signer);
    } else {
      signer.name ??= name;
      signer.email ??= email?.toLowerCase() ?? null;
      // One box of the signer asking is enough: the signer signs all their boxes at once.
      signer.requireIdentityVerification ||= verify;
      // Two boxes of one signer that name different certificates would make one of them unsignable.
      if (JSON.stringify(signer.certificateMatch) !== JSON.stringify(match.value)) {
        fail(i, 'certificate_match', "must be the same as on this signer's other boxes");
      }
    }
    const extra: Record<string, unknown> = {};
    for (const k of ['stickerType', 'dataType', 'imageType']) {
      if (s[k] !== undefined) {
        extra[k] = s[k];
      }
    }
    stickers.push({ index: i, signerPosition: signer.position, page, rect, extra });
  });
  return { signers: [...signers.values()], stickers };
}

/** A box on a page: 0-based page; PDF points from the CropBox's lower-left corner, unrotated. */
export type BoxRect = { lx: number; ly: number; tx: number; ty: number };

/** A box that passed, or the first rule it breaks, with the field (relative to the box) to name. */
export type BoxCheck = { ok: true; page: number; rect: BoxRect } | { ok: false; field: string; rule: string };

/**
 * The geometry rules every box of the create payload follows (stickers, qr): an existing 0-based
 * page, lx < tx and ly < ty, inside the page's visible area (CropBox).
 */
export function checkBox(page: unknown, raw: unknown, pdf: PdfInfo): BoxCheck {
  if (typeof page !== 'number' || !Number.isInteger(page)) {
    return { ok: false, field: 'page', rule: 'required: a whole number, 0 for the first page' };
  }
  if (page < 0 || page >= pdf.pageCount) {
    return { ok: false, field: 'page', rule: `page ${page} does not exist; the document has ${pdf.pageCount} page(s), numbered from 0` };
  }
  if (typeof raw !== 'object' || raw === null) {
    return { ok: false, field: 'rect', rule: 'required: an object {lx, ly, tx, ty} in PDF points' };
  }
  const r = raw as Record<string, unknown>;
  for (const k of ['lx', 'ly', 'tx', 'ty']) {
    if (typeof r[k] !== 'number' || !Number.isFinite(r[k])) {
      return { ok: false, field: `rect.${k}`, rule: 'required: a finite number of PDF points' };
    }
  }
  const { lx, ly, tx, ty } = r as BoxRect;
  if (!(lx < tx)) {
    return { ok: false, field: 'rect', rule: `lx (${lx}) must be less than tx (${tx})` };
  }
  if (!(ly < ty)) {
    return { ok: false, field: 'rect', rule: `ly (${ly}) must be less than ty (${ty})` };
  }
  const crop = pdf.pages[page].cropBox;
  const w = round(crop.width);
  const h = round(crop.height);
  if (lx < -EPSILON || ly < -EPSILON || tx > w + EPSILON || ty > h + EPSILON) {
    return {
      ok: false,
      field: 'rect',
      rule: `the box [${lx}, ${ly}, ${tx}, ${ty}] must lie inside the page (0 ≤ x ≤ ${w}, 0 ≤ y ≤ ${h} points, origin at the lower-left corner)`,
    };
  }
  return { ok: true, page, rect: { lx, ly, tx, ty } };
}

function optionalString(i: number, s: Record<string, unknown>, key: string, max: number): string | null {
  const v = s[key];
  if (v === undefined || v === null || v === '') {
    return null;
  }
  if (typeof v !== 'string' || v.length > max) {
    fail(i, key, `must be a string of at most ${max} characters`);
  }
  return v.trim() || null;
}

function round(n: number) {
  return Math.round(n * 100) / 100;
}
