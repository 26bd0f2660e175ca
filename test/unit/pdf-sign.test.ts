// Signatures checked by independent validators: poppler's pdfsig, openssl cms/ts -verify,
// qpdf --check and --json, and poppler's renderer (pdftoppm). Signer A (RSA) signs a two-page PDF
// with a box on each page, then signer B (ECDSA) signs the result: two incremental revisions.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PdfArray, PdfNumber, PDF } from '@libpdf/core';
import * as asn1js from 'asn1js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPdf, type SignPdfOptions } from '../../src/pdf/sign-pdf.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { makeFormPdf } from '../helpers/pdf-forms.js';
import { A4, makePdf, qpdfCheck } from '../helpers/pdfs.js';
import { signaturePng } from '../helpers/validators.js';

let dir: string;
let pki: TestPki;
let ana: TestSigner;
let bob: TestSigner;
let nssDir: string | null = null;
let T: Date; // one fixed clock for the whole file, set once the certificates exist

// --- small independent tools ----------------------------------------------------------------

function run(cmd: string, args: string[]): { code: number; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
let fileNo = 0;
function file(bytes: Uint8Array, ext = 'pdf'): string {
  const path = join(dir, `f${fileNo++}.${ext}`);
  writeFileSync(path, bytes);
  return path;
}

interface PdfsigEntry {
  field: string;
  block: string;
}
/** pdfsig's report, one block per signature. */
function pdfsig(bytes: Uint8Array): PdfsigEntry[] {
  const args = nssDir ? ['-nssdir', `sql:${nssDir}`, file(bytes)] : [file(bytes)];
  const { out } = run('pdfsig', args);
  return out
    .split(/^Signature #\d+:$/m)
    .slice(1)
    .map((block) => ({ field: /Signature Field Name: (.*)$/m.exec(block)?.[1] ?? '', block }));
}

/** Every /ByteRange in the file with the /Contents it brackets, read from the bytes alone. */
function signatures(bytes: Buffer): { byteRange: number[]; cms: Buffer; signed: Buffer }[] {
  const text = bytes.toString('latin1');
  return [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)].map((m) => {
    const br = m.slice(1, 5).map(Number);
    const hex = text.slice(br[1] + 1, br[2] - 1);
    const der = Buffer.from(hex, 'hex');
    // Trim the zero padding: the DER length is in the outer SEQUENCE header.
    const lenBytes = der[1] & 0x80 ? der[1] & 0x7f : 0;
    const len = lenBytes ? der.subarray(2, 2 + lenBytes).reduce((a, b) => a * 256 + b, 0) : der[1];
    const cms = der.subarray(0, 2 + lenBytes + len);
    return { byteRange: br, cms, signed: Buffer.concat([bytes.subarray(br[0], br[0] + br[1]), bytes.subarray(br[2], br[2] + br[3])]) };
  });
}

interface Annot {
  page: number;
  subtype: string;
  rect: number[];
  ft?: string;
  t?: string;
  hasAp: boolean;
  flags: number;
}
/** The annotations of every page, as qpdf reads them (--json). */
function annotations(bytes: Uint8Array): Annot[] {
  const { out } = run('qpdf', ['--json=2', '--json-key=pages', '--json-key=qpdf', file(bytes)]);
  const json = JSON.parse(out) as {
    pages: { object: string }[];
    qpdf: [unknown, Record<string, { value?: Record<string, unknown> | unknown[] }>];
  };
  const objects = json.qpdf[1];
  const deref = (v: unknown) => (typeof v === 'string' && / R$/.test(v) ? objects[`obj:${v}`]?.value : v);
  const result: Annot[] = [];
  json.pages.forEach((p, page) => {
    const pageDict = deref(p.object) as Record<string, unknown>;
    for (const a of (deref(pageDict['/Annots']) as unknown[] | undefined) ?? []) {
      const d = deref(a) as Record<string, unknown>;
      result.push({
        page,
        subtype: String(d['/Subtype']),
        rect: (deref(d['/Rect']) as number[]).map(Number),
        ft: d['/FT'] as string | undefined,
        t: typeof d['/T'] === 'string' ? d['/T'].replace(/^u:/, '') : undefined, // qpdf marks text strings "u:"
        hasAp: d['/AP'] !== undefined,
        flags: Number(d['/F'] ?? 0),
      });
    }
  });
  return result;
}

/** Page `page` (0-based) rendered by poppler at 72 dpi in grey, its CropBox as readers show it: 1 pixel = 1 point. */
function render(bytes: Uint8Array, page: number): { width: number; height: number; at: (x: number, y: number) => number } {
  const out = join(dir, `r${fileNo++}`);
  const r = run('pdftoppm', [
    '-r',
    '72',
    '-gray',
    '-cropbox',
    '-f',
    String(page + 1),
    '-l',
    String(page + 1),
    '-singlefile',
    file(bytes),
    out,
  ]);
  expect(r.code).toBe(0);
  const pgm = readFileSync(`${out}.pgm`);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 50).toString('latin1'))!;
  const [width, height] = [Number(header[1]), Number(header[2])];
  const data = pgm.subarray(header[0].length);
  return { width, height, at: (x, y) => data[y * width + x] };
}

/** Dark pixels in a region given in points from the top-left of the rendered page. */
function darkPixels(img: ReturnType<typeof render>, x0: number, y0: number, x1: number, y1: number): number {
  let n = 0;
  for (let y = Math.max(0, Math.ceil(y0)); y < Math.min(img.height, Math.floor(y1)); y++) {
    for (let x = Math.max(0, Math.ceil(x0)); x < Math.min(img.width, Math.floor(x1)); x++) {
      if (img.at(x, y) < 160) {
        n++;
      }
    }
  }
  return n;
}

// --- the two-signer document --------------------------------------------------------------

let original: Buffer;
let first: Buffer;
let second: Buffer;
const png = signaturePng();
const BOX_A0 = { lx: 50, ly: 50, tx: 250, ty: 130 };
const BOX_A1 = { lx: 300, ly: 600, tx: 500, ty: 680 };
const BOX_B1 = { lx: 50, ly: 50, tx: 250, ty: 130 };

function options(signer: TestSigner, pdf: Uint8Array, extra: Partial<SignPdfOptions>): SignPdfOptions {
  return {
    pdf,
    fieldName: `Sello-${signer.cn}`,
    boxes: [{ page: 0, rect: BOX_A0 }],
    appearance: { signerName: signer.cn, signedAt: T, authorityLabel: `Email link: ${signer.email}`, locale: 'es' },
    signer,
    timestamp: pki.timestamp,
    trustedRootsDer: [pki.rootDer],
    now: () => T,
    ...extra,
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sello-sign-test-'));
  pki = await createTestPki();
  ana = await pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
  bob = await pki.issueSigner({ cn: 'Bob Smith', email: 'bob@example.com', keyType: 'ec' });
  T = new Date();
  // With NSS's certutil (Debian: libnss3-tools) pdfsig can also be told to trust our root.
  if (run('sh', ['-c', 'command -v certutil']).code === 0) {
    nssDir = join(dir, 'nss');
    run('mkdir', ['-p', nssDir]);
    run('certutil', ['-N', '-d', `sql:${nssDir}`, '--empty-password']);
    run('certutil', ['-A', '-d', `sql:${nssDir}`, '-n', 'sello-test-root', '-t', 'CT,C,C', '-i', pki.rootPath]);
  }
  original = await makePdf([A4, A4]);
  first = (
    await signPdf(
      options(ana, original, {
        boxes: [
          { page: 0, rect: BOX_A0 },
          { page: 1, rect: BOX_A1 },
        ],
        appearance: { image: png, signerName: ana.cn, signedAt: T, authorityLabel: 'Email link: ana@example.com', locale: 'es' },
        reason: 'Conforme',
      }),
    )
  ).pdf;
  second = (
    await signPdf(
      options(bob, first, {
        boxes: [{ page: 1, rect: BOX_B1 }],
        appearance: { signerName: bob.cn, signedAt: T, authorityLabel: 'SMS code: +34 600 000 000', locale: 'en' },
      }),
    )
  ).pdf;
}, 60_000);

afterAll(() => {
  pki?.dispose();
  if (dir) {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('two signers, two revisions', () => {
  it('pdfsig finds both signatures valid, ETSI.CAdES.detached, by the right signers', () => {
    const report = pdfsig(second);
    expect(report.map((s) => s.field)).toEqual(['Sello-Ana García', 'Sello-Bob Smith']);
    for (const [i, s] of report.entries()) {
      expect(s.block).toContain('Signature Validation: Signature is Valid.');
      expect(s.block).toContain('Signature Type: ETSI.CAdES.detached');
      expect(s.block).toContain('Signing Hash Algorithm: SHA-256');
      expect(s.block).toContain(`Signer Certificate Common Name: ${[ana, bob][i].cn}`);
      if (nssDir) {
        expect(s.block).toContain('Certificate Validation: Certificate is Trusted.');
      }
    }
    // The earlier signature covers its own revision; the last one the whole file.
    expect(report[0].block).toContain('Not total document signed');
    expect(report[1].block).toContain('Total document signed');
    const ranges = report.map((s) => /Signed Ranges: \[(\d+) - (\d+)\], \[(\d+) - (\d+)\]/.exec(s.block)!.slice(1).map(Number));
    expect(ranges[0][3]).toBe(first.length);
    expect(ranges[1][3]).toBe(second.length);
  });

  it('openssl cms -verify accepts each CMS over its /ByteRange; the attributes are PAdES baseline', () => {
    const sigs = signatures(second);
    expect(sigs).toHaveLength(2);
    for (const s of sigs) {
      const r = run('openssl', [
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        file(s.cms, 'der'),
        '-content',
        file(s.signed, 'bin'),
        '-CAfile',
        pki.rootPath,
        '-out',
        '/dev/null',
      ]);
      expect(r.out).toContain('Verification successful');
      const printed = run('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', file(s.cms, 'der')]).out;
      const signedAttrs = printed.slice(printed.indexOf('signedAttrs:'), printed.indexOf('unsignedAttrs:'));
      const attrNames = [...signedAttrs.matchAll(/object: (\S+)/g)].map((m) => m[1]);
      // EN 319 142-1 §6.3: no CMS signing-time in PAdES baseline (the time is /M); ESS v2 present.
      expect(attrNames).toEqual(['contentType', 'messageDigest', 'id-smime-aa-signingCertificateV2']);
      expect(printed.slice(printed.indexOf('unsignedAttrs:'))).toMatch(/^\s+object: id-smime-aa-timeStampToken/m);
    }
  });

  it('each embedded signature time-stamp verifies with openssl ts -verify over the signature value', () => {
    for (const s of signatures(second)) {
      // Walked by hand: ContentInfo → [0] SignedData → signerInfos → SignerInfo → [1] unsignedAttrs.
      const kids = (node: asn1js.AsnType) => (node as asn1js.Sequence).valueBlock.value;
      const signedData = kids(kids(asn1js.fromBER(new Uint8Array(s.cms)).result)[1])[0];
      const signerInfo = kids(kids(signedData).at(-1)!)[0];
      const parts = kids(signerInfo);
      const unsigned = parts.at(-1)!;
      expect(unsigned.idBlock).toMatchObject({ tagClass: 3, tagNumber: 1 });
      const attr = kids(unsigned).find(
        (a) => (kids(a)[0] as asn1js.ObjectIdentifier).valueBlock.toString() === '1.2.840.113549.1.9.16.2.14',
      )!;
      const token = new Uint8Array(kids(kids(attr)[1])[0].toBER(false));
      const signatureValue = (parts.at(-2) as asn1js.OctetString).valueBlock.valueHexView;
      const digest = createHash('sha256').update(signatureValue).digest('hex');
      const r = run('openssl', ['ts', '-verify', '-digest', digest, '-in', file(token, 'tst'), '-token_in', '-CAfile', pki.rootPath]);
      expect(r.out).toContain('Verification: OK');
    }
  });

  it('qpdf --check passes on both revisions', () => {
    for (const bytes of [first, second]) {
      const check = qpdfCheck(bytes);
      expect(check.output).toContain('No syntax or stream encoding errors found');
      expect(check.ok).toBe(true);
    }
  });

  it('each revision is an exact prefix of the next', () => {
    expect(first.subarray(0, original.length).equals(original)).toBe(true);
    expect(second.subarray(0, first.length).equals(first)).toBe(true);
    expect(second.length).toBeGreaterThan(first.length);
  });

  it('puts one annotation per box, at its /Rect on its page, with an appearance; none at [0 0 0 0] (gap 1)', () => {
    const annots = annotations(second);
    const rect = (b: typeof BOX_A0) => [b.lx, b.ly, b.tx, b.ty];
    expect(annots).toHaveLength(3);
    expect(annots.filter((a) => a.page === 0).map((a) => a.rect)).toEqual([rect(BOX_A0)]);
    expect(annots.filter((a) => a.page === 1).map((a) => a.rect)).toEqual([rect(BOX_A1), rect(BOX_B1)]);
    // A's signature field is its widget on page 0; its second box is a locked stamp.
    expect(annots.find((a) => a.t?.includes('Ana'))).toMatchObject({ page: 0, subtype: '/Widget', ft: '/Sig' });
    expect(annots.find((a) => a.t?.includes('Bob'))).toMatchObject({ page: 1, subtype: '/Widget', ft: '/Sig' });
    expect(annots.find((a) => a.subtype === '/Stamp')).toMatchObject({ page: 1, rect: rect(BOX_A1) });
    for (const a of annots) {
      expect(a.hasAp).toBe(true);
      expect(a.flags & 4).toBe(4); // printed
      expect(a.flags & (2 | 32)).toBe(0); // neither hidden nor no-view
      expect(a.rect).not.toEqual([0, 0, 0, 0]);
      expect(a.rect[2] - a.rect[0]).toBeGreaterThan(0);
    }
  });

  it("renders every box visibly, with the drawn signature in the upper part of A's boxes", () => {
    const pages = [render(second, 0), render(second, 1)];
    const boxes: [number, typeof BOX_A0, boolean][] = [
      [0, BOX_A0, true],
      [1, BOX_A1, true],
      [1, BOX_B1, false],
    ];
    for (const [page, b, hasImage] of boxes) {
      const img = pages[page];
      const top = img.height - b.ty;
      expect(darkPixels(img, b.lx + 3, top + 3, b.tx - 3, img.height - b.ly - 3)).toBeGreaterThan(200);
      // The image fills the upper part; the text the lower part.
      if (hasImage) {
        expect(darkPixels(img, b.lx + 3, top + 3, b.tx - 3, top + (b.ty - b.ly) * 0.4)).toBeGreaterThan(100);
      }
    }
    // Outside the boxes the pages stay white there.
    expect(darkPixels(pages[0], 300, 500, 500, 600)).toBe(0);
  });
});

describe('placement', () => {
  it('adds the CropBox origin: a box on a page whose CropBox starts at (40, 50) lands there', async () => {
    const pdf = await PDF.load(await makePdf([{ width: 500, height: 700 }]));
    pdf.getPage(0)!.dict.set('CropBox', new PdfArray([40, 50, 440, 650].map((n) => PdfNumber.of(n))));
    const cropped = Buffer.from(await pdf.save());
    const box = { lx: 20, ly: 30, tx: 170, ty: 90 };
    const { pdf: signed } = await signPdf(options(ana, cropped, { boxes: [{ page: 0, rect: box }] }));
    expect(annotations(signed)[0].rect).toEqual([60, 80, 210, 140]);
    const img = render(signed, 0); // poppler renders the CropBox: 400 × 600
    expect([img.width, img.height]).toEqual([400, 600]);
    expect(darkPixels(img, box.lx + 3, 600 - box.ty + 3, box.tx - 3, 600 - box.ly - 3)).toBeGreaterThan(200);
    expect(pdfsig(signed)[0].block).toContain('Signature is Valid.');
  });

  it('draws upright on a page turned by /Rotate 90', async () => {
    const pdf = await PDF.load(await makePdf([A4]));
    pdf.getPage(0)!.dict.set('Rotate', PdfNumber.of(90));
    const rotated = Buffer.from(await pdf.save());
    const box = { lx: 100, ly: 100, tx: 180, ty: 300 }; // 80 wide, 200 tall in user space: 200 × 80 on screen
    const { pdf: signed } = await signPdf(options(ana, rotated, { boxes: [{ page: 0, rect: box }] }));
    const img = render(signed, 0);
    expect(img.width).toBeGreaterThan(img.height);
    // Turned 90° clockwise: user (x, y) shows at (y, x) from the top-left.
    expect(darkPixels(img, box.ly + 3, box.lx + 3, box.ty - 3, box.tx - 3)).toBeGreaterThan(200);
  });

  it('leaves the form widgets already on the page exactly as they were drawn', async () => {
    const pdf = await PDF.load(await makeFormPdf());
    pdf.getForm()!.fill({ city: 'Sevilla' });
    const form = Buffer.from(await pdf.save());
    const before = render(form, 0);
    const box = { lx: 300, ly: 40, tx: 520, ty: 110 };
    const { pdf: signed } = await signPdf(options(ana, form, { boxes: [{ page: 0, rect: box }] }));
    const after = render(signed, 0);
    // The city field (150, 660)–(450, 682) shows its value, pixel for pixel as before.
    const top = before.height - 682;
    expect(darkPixels(after, 150, top, 450, top + 22)).toBeGreaterThan(20);
    for (let y = 0; y < before.height; y++) {
      for (let x = 0; x < before.width; x++) {
        const inBox = x >= box.lx && x < box.tx && y >= before.height - box.ty && y < before.height - box.ly;
        if (!inBox && before.at(x, y) !== after.at(x, y)) {
          throw new Error(`pixel (${x}, ${y}) changed outside the signature box`);
        }
      }
    }
    expect(annotations(signed).filter((a) => a.subtype === '/Widget').length).toBe(
      annotations(form).filter((a) => a.subtype === '/Widget').length + 1,
    );
    expect(pdfsig(signed).find((s) => s.field.startsWith('Sello'))!.block).toContain('Signature is Valid.');
  });

  it('reuses a signature field a template placed, keeping its box where it is and visible', async () => {
    const form = await makeFormPdf(); // field "signature": a widget kid at [150 300 400 360]
    const templateBox = { lx: 150, ly: 300, tx: 400, ty: 360 };
    const extraBox = { lx: 300, ly: 40, tx: 520, ty: 110 };
    const { pdf: signed } = await signPdf(
      options(ana, form, {
        fieldName: 'signature',
        boxes: [
          { page: 0, rect: templateBox },
          { page: 0, rect: extraBox },
        ],
      }),
    );
    const annots = annotations(signed);
    const field = annots.filter((a) => a.ft === '/Sig');
    expect(field).toHaveLength(1);
    expect(field[0]).toMatchObject({ t: 'signature', rect: [150, 300, 400, 360], hasAp: true });
    expect(annots.find((a) => a.subtype === '/Stamp')?.rect).toEqual([300, 40, 520, 110]);
    const img = render(signed, 0);
    expect(darkPixels(img, 153, img.height - 357, 397, img.height - 303)).toBeGreaterThan(200);
    const report = pdfsig(signed);
    expect(report).toHaveLength(1);
    expect(report[0]).toMatchObject({ field: 'signature' });
    expect(report[0].block).toContain('Signature is Valid.');
  });
});
