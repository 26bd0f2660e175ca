// Synthetic identity documents for the identity-check tests: a card (TD1: portrait and printed
// fields on the front, the machine-readable zone on the back) or a passport data page (TD3: all on
// one side), drawn as HTML by Chromium and captured as PNG, the way a phone photographs a card
// laid on a table: the card a little smaller than the frame, on a darker background. The portrait
// is a drawn face, or a photograph's region (a face found in a sample photo) for the face check.
import type { Browser } from 'playwright-core';
import { imageInfo } from '../../src/identity-imaging/image-info.js';
import { type MrzPerson, td1, td3 } from './mrz-lines.js';

export interface CardOptions {
  format: 'TD1' | 'TD3';
  person: MrzPerson;
  /** The name printed on the card (accents and all), as a person reads it. */
  printedName: string;
  /** Monospace face of the zone; the fonts this machine has are DejaVu Sans Mono, regular and bold. */
  mrzFont?: { family: string; weight: 400 | 700 };
  /** Width of the captured image in pixels (the card fills about 86 % of it). */
  widthPx?: number;
  /** The card turned by this many degrees on the table. */
  rotateDeg?: number;
  /** Replaces the zone's lines (a misprint, a wrong check digit). */
  mrzLines?: string[];
  /** A photograph printed as the portrait (cropped to `crop` and filling the portrait's frame); else a drawn face. */
  portrait?: PhotoRegion;
}

/** A region of a photograph (JPEG or PNG), in the photograph's pixels; the whole of it without `crop`. */
export interface PhotoRegion {
  image: Buffer;
  crop?: { x: number; y: number; width: number; height: number };
}

/** An <img> of the region filling a w × h frame (centred, cut to the frame's proportions). */
function regionHtml(r: PhotoRegion, w: number, h: number): string {
  const info = imageInfo(r.image);
  if (!info) {
    throw new Error('the portrait is not a JPEG or PNG image');
  }
  const c = r.crop ?? { x: 0, y: 0, width: info.width, height: info.height };
  const s = Math.max(w / c.width, h / c.height);
  const left = -c.x * s + (w - c.width * s) / 2;
  const top = -c.y * s + (h - c.height * s) / 2;
  const src = `data:${info.contentType};base64,${r.image.toString('base64')}`;
  return `<div style="position:relative;width:${w}px;height:${h}px;overflow:hidden"><img src="${src}"
    style="position:absolute;left:${left.toFixed(1)}px;top:${top.toFixed(1)}px;width:${(info.width * s).toFixed(1)}px;height:${(info.height * s).toFixed(1)}px"></div>`;
}

export interface CardImages {
  front: Buffer;
  back: Buffer;
  mrz: string[];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const PORTRAIT = `<svg viewBox="0 0 100 125" width="100%" height="100%"><rect width="100" height="125" fill="#c9d6df"/>
  <ellipse cx="50" cy="118" rx="42" ry="30" fill="#34495e"/><ellipse cx="50" cy="56" rx="24" ry="31" fill="#e0b48f"/>
  <path d="M26 50 Q50 10 74 50 Q72 28 50 24 Q28 28 26 50Z" fill="#3b2a20"/><ellipse cx="41" cy="55" rx="3.4" ry="2.2" fill="#222"/>
  <ellipse cx="59" cy="55" rx="3.4" ry="2.2" fill="#222"/><path d="M50 58 L47 68 L52 68" stroke="#a77" fill="none"/>
  <path d="M42 75 Q50 80 58 75" stroke="#833" stroke-width="2" fill="none"/></svg>`;

function page(side: 'front' | 'back', o: CardOptions, lines: string[]): string {
  const td3Page = o.format === 'TD3';
  // ID-1 is 85.6 × 54 mm, a passport page 125 × 88 mm: drawn at 10 CSS px per mm.
  const [w, h] = td3Page ? [1250, 880] : [856, 540];
  const font = o.mrzFont ?? { family: 'DejaVu Sans Mono', weight: 400 };
  const zoneChars = td3Page ? 44 : 30;
  // OCR-B is 2.54 mm a character across; a monospace face's advance is ~0.6 em.
  const mrzSize = ((w - 60) / zoneChars / 0.63).toFixed(1);
  const fields = `<div class="fields"><div class="t">${td3Page ? 'PASAPORTE / PASSPORT' : 'CREDENCIAL DE IDENTIDAD'}</div>
    <div class="l">NOMBRE / NAME</div><div class="v">${esc(o.printedName)}</div>
    <div class="l">FECHA DE NACIMIENTO</div><div class="v">${o.person.birth.replace(/(\d\d)(\d\d)(\d\d)/, '$3/$2/19$1')}</div>
    <div class="l">VIGENCIA / EXPIRY</div><div class="v">${o.person.expiry.replace(/(\d\d)(\d\d)(\d\d)/, '$3/$2/20$1')}</div>
    <div class="l">DOCUMENTO</div><div class="v">${esc(o.person.documentNumber)}</div></div>`;
  const body =
    side === 'front'
      ? `<div class="portrait">${o.portrait ? regionHtml(o.portrait, td3Page ? 300 : 230, td3Page ? 375 : 290) : PORTRAIT}</div>${fields}${td3Page ? `<div class="mrz">${lines.map(esc).join('<br>')}</div>` : ''}`
      : `<div class="stripe"></div><div class="sig">Firma / Signature</div><div class="mrz">${lines.map(esc).join('<br>')}</div>`;
  return `<!doctype html><html><head><style>
    html, body { margin: 0; background: #5b5148; }
    .card { position: absolute; left: 7%; top: 7%; width: ${w}px; height: ${h}px; border-radius: 28px; overflow: hidden;
      background: linear-gradient(135deg, #e8efe9, #d7e4ee 60%, #efe7d8); transform: rotate(${o.rotateDeg ?? 0}deg);
      box-shadow: 0 6px 18px rgba(0,0,0,.45); font-family: 'DejaVu Sans', sans-serif; color: #1d2731; }
    .portrait { position: absolute; left: 40px; top: 90px; width: ${td3Page ? 300 : 230}px; height: ${td3Page ? 375 : 290}px; }
    .fields { position: absolute; left: ${td3Page ? 380 : 300}px; top: 40px; right: 30px; }
    .t { font-weight: 700; font-size: 30px; margin-bottom: 18px; letter-spacing: 1px; }
    .l { font-size: 16px; color: #566; margin-top: 10px; } .v { font-size: 26px; font-weight: 700; }
    .stripe { position: absolute; left: 0; right: 0; top: 40px; height: 70px; background: #3c4c5c; }
    .sig { position: absolute; left: 40px; top: 150px; font-size: 20px; color: #566; }
    .mrz { position: absolute; left: 30px; right: 30px; bottom: 26px; background: #f4f6f4; font-family: '${font.family}', monospace;
      font-weight: ${font.weight}; font-size: ${mrzSize}px; line-height: 1.3; white-space: pre; color: #111; }
  </style></head><body><div class="card">${body}</div></body></html>`;
}

/** Front and back of the document as PNG photographs. */
export async function renderIdCard(browser: Browser, o: CardOptions): Promise<CardImages> {
  const mrz = o.mrzLines ?? (o.format === 'TD3' ? td3(o.person) : td1(o.person));
  const [w, h] = o.format === 'TD3' ? [1250, 880] : [856, 540];
  const viewport = { width: Math.round(w / 0.86), height: Math.round(h / 0.86) };
  const ctx = await browser.newContext({ viewport, deviceScaleFactor: (o.widthPx ?? 1600) / viewport.width });
  try {
    const p = await ctx.newPage();
    const shot = async (side: 'front' | 'back') => {
      await p.setContent(page(side, o, mrz));
      await p.evaluate(() => Promise.all([document.fonts.ready, ...Array.from(document.images, (i) => i.decode())]));
      return p.screenshot({ type: 'png' });
    };
    return { front: await shot('front'), back: await shot('back'), mrz };
  } finally {
    await ctx.close();
  }
}

/** A photograph's region as a phone's selfie would frame it: PNG, `widthPx` wide, 3:4. */
export async function renderPhoto(browser: Browser, region: PhotoRegion, widthPx = 900): Promise<Buffer> {
  const [w, h] = [600, 800];
  const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: widthPx / w });
  try {
    const p = await ctx.newPage();
    await p.setContent(`<!doctype html><html><body style="margin:0">${regionHtml(region, w, h)}</body></html>`);
    await p.evaluate(() => Promise.all(Array.from(document.images, (i) => i.decode())));
    return await p.screenshot({ type: 'png' });
  } finally {
    await ctx.close();
  }
}
