// Every signature of a PDF, as an external verifier sees it: the signature fields of the AcroForm
// whose /V is a signature dictionary (PDF 32000-1 §12.7.4.5, §12.8.1), where their widget is, what
// their /ByteRange covers, which revision each closes, and what their CMS says
// (pki/cms/signature-cms-check.ts).
// Pure, as pdf/ must be: no clock (times come from the file and its time-stamps) and the trusted
// roots are a parameter.
//
// Geometry: `page` is 0-based, and the box is given in PDF points in the page's unrotated user
// space, measured from the top-left corner of its CropBox: `left` rightwards, `top` downwards to
// the box's upper edge. That is what layout tools and most clients mean by left/top, and it maps
// one to one onto a sticker (origin at the CropBox's lower-left): left = lx, top = cropHeight - ty,
// width = tx - lx, height = ty - ly. Page rotation is not applied, as it is not for stickers.
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfString, type PDFPage } from '@libpdf/core';
import { loadAsReaders } from './encrypted-pdf.js';
import { normalise, numbersOf, pageGeometry, resolverOf } from './page-geometry.js';
import { checkByteRange, parsePdfDate, revisionEnds, revisionOf } from './pdf-revisions.js';
import { analyzeCms, type CmsReport } from '../pki/cms/index.js';

export { summarizeCertificate, type CertificateSummary, type CmsReport } from '../pki/cms/index.js';

/** A box in points from the CropBox's top-left corner (see the file comment). */
export interface TopLeftBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface PdfSignature extends CmsReport {
  /** Fully qualified field name (§12.7.3.2). */
  fieldName: string;
  /** Object number of the signature dictionary (/V); null when it is a direct object. */
  dictionaryNumber: number | null;
  /** 0-based page of the field's widget; -1 when the widget is on no page. */
  page: number;
  box: TopLeftBox;
  subFilter: string;
  byteRange: number[];
  coversDocument: boolean;
  /** 1-based revision this signature closes. */
  revision: number;
  /** A later revision was appended after the one this signature closes. */
  downstream: boolean;
  /** /M: the claimed signing time, not proven. */
  claimedTime: Date | null;
  reason: string | null;
  name: string | null;
  /** The verified time-stamp's genTime, else /M. */
  signDate: Date | null;
}

export interface PdfSignatures {
  /** Revisions of the file: the original plus one per incremental update. */
  totalRevisions: number;
  /** Visible size of each page (CropBox), to place boxes given from the bottom-left corner. */
  pages: { width: number; height: number }[];
  /** In the order they were applied (by the end of their signed range). */
  signatures: PdfSignature[];
}

export class PdfReadError extends Error {}

const round = (v: number) => Math.round(v * 1000) / 1000;
const sameRef = (a: unknown, b: PdfRef) => a instanceof PdfRef && a.objectNumber === b.objectNumber && a.generation === b.generation;

function text(dict: PdfDict, key: string, pdf: PDF): string | null {
  const v = dict.get(key, resolverOf(pdf));
  return v instanceof PdfString ? v.asString() : v instanceof PdfName ? v.value : null;
}

/** The page showing a widget: the one whose /Annots lists it; /P is only a hint (§12.5.2). */
function pageIndexOf(pdf: PDF, pages: PDFPage[], ref: PdfRef | null, dict: PdfDict): number {
  const resolve = resolverOf(pdf);
  if (ref) {
    const i = pages.findIndex((p) =>
      p.dict
        .getArray('Annots', resolve)
        ?.toArray()
        .some((a) => sameRef(a, ref)),
    );
    if (i >= 0) {
      return i;
    }
  }
  const p = dict.get('P');
  return p instanceof PdfRef ? pages.findIndex((pg) => sameRef(p, pg.ref)) : -1;
}

/** The field's widget: the first with an area on a page, else the first (an invisible signature). */
function placeOf(pdf: PDF, pages: PDFPage[], widgets: { ref: PdfRef | null; dict: PdfDict }[]): { page: number; box: TopLeftBox } {
  const placed = widgets.map((w) => {
    const page = pageIndexOf(pdf, pages, w.ref, w.dict);
    const raw = numbersOf(w.dict.get('Rect', resolverOf(pdf)));
    return { page, rect: raw ? normalise(raw) : null };
  });
  const best = placed.find((p) => p.page >= 0 && p.rect && p.rect[2] > p.rect[0] && p.rect[3] > p.rect[1]) ?? placed[0];
  if (!best || best.page < 0 || !best.rect) {
    return { page: best?.page ?? -1, box: { left: 0, top: 0, width: 0, height: 0 } };
  }
  const { crop, userUnit: u } = pageGeometry(pdf, pages[best.page]);
  const [x1, y1, x2, y2] = best.rect;
  // In points, as stickers are: user space units times the page's /UserUnit.
  return {
    page: best.page,
    box: { left: round((x1 - crop[0]) * u), top: round((crop[3] - y2) * u), width: round((x2 - x1) * u), height: round((y2 - y1) * u) },
  };
}

/** What reading one signature dictionary needs of its file. */
export interface SignatureContext {
  /** The file (or the revision of it) the dictionary is read from. */
  pdf: PDF;
  /** The whole file: byte ranges are offsets into it. */
  bytes: Uint8Array;
  pages: PDFPage[];
  ends: number[];
  opts: ReadSignaturesOptions;
}

/**
 * One signature dictionary, checked: its /ByteRange, its CMS over the bytes that range covers, and
 * where its widget is. `widgets` places it on a page; an empty list leaves it on none (page -1).
 */
export async function readSignatureDictionary(
  context: SignatureContext,
  sig: { dict: PdfDict; dictionaryNumber: number | null; fieldName: string; widgets: { ref: PdfRef | null; dict: PdfDict }[] },
): Promise<PdfSignature> {
  const { pdf, bytes, pages, ends, opts } = context;
  const resolve = resolverOf(pdf);
  const v = sig.dict;
  const rangeObj = v.get('ByteRange', resolve);
  const byteRange = rangeObj instanceof PdfArray ? rangeObj.toArray().map((n) => (n instanceof PdfNumber ? n.value : NaN)) : [];
  const contents = v.get('Contents', resolve);
  const range = checkByteRange(bytes, byteRange);
  const subFilter = text(v, 'SubFilter', pdf) ?? '';
  const claimedTime = parsePdfDate(text(v, 'M', pdf));
  const cms = await analyzeCms({
    contents: contents instanceof PdfString ? contents.bytes : new Uint8Array(),
    signedBytes: range.signed,
    subFilter,
    claimedTime,
    trustedRootsDer: opts.trustedRootsDer,
    timestampRootsDer: opts.timestampRootsDer,
  });
  const totalRevisions = ends.length;
  const revision = range.signed ? revisionOf(ends, range.end) : totalRevisions;
  return {
    ...cms,
    fieldName: sig.fieldName,
    dictionaryNumber: sig.dictionaryNumber,
    ...(sig.widgets.length > 0 ? placeOf(pdf, pages, sig.widgets) : { page: -1, box: { left: 0, top: 0, width: 0, height: 0 } }),
    subFilter,
    byteRange,
    coversDocument: range.coversDocument,
    revision,
    // Decided: "downstream" means the file was extended after this signature (another signature
    // or any incremental update), whether or not that update changes what the signer saw.
    downstream: revision < totalRevisions,
    claimedTime,
    reason: text(v, 'Reason', pdf),
    name: text(v, 'Name', pdf),
    signDate: (cms.timestamp?.verified ? cms.timestamp.genTime : undefined) ?? claimedTime,
  };
}

export interface ReadSignaturesOptions {
  trustedRootsDer: Uint8Array[];
  timestampRootsDer?: Uint8Array[];
}

/** Reads every signed signature field of `bytes`. Throws PdfReadError when the file cannot be parsed. */
export async function readSignatures(bytes: Uint8Array, opts: ReadSignaturesOptions): Promise<PdfSignatures> {
  let pdf: PDF;
  try {
    pdf = await loadAsReaders(bytes);
  } catch (err) {
    throw new PdfReadError(`the PDF cannot be read: ${(err as Error).message}`);
  }
  return readSignaturesOf(pdf, bytes, opts);
}

/**
 * readSignatures over a file the caller has already loaded: `pdf` is `bytes` parsed, or a prefix of
 * them (an earlier revision; byte ranges are still offsets into the whole file). `only` picks the
 * signature dictionaries worth reading (by object number; null for a direct one), before their CMS
 * is checked. `ends` are the file's revision ends when the caller has them already.
 */
export async function readSignaturesOf(
  pdf: PDF,
  bytes: Uint8Array,
  opts: ReadSignaturesOptions,
  only?: (dictionaryNumber: number | null) => boolean,
  ends = revisionEnds(bytes),
): Promise<PdfSignatures> {
  let pages: PDFPage[];
  try {
    pages = pdf.getPages();
  } catch (err) {
    throw new PdfReadError(`the PDF cannot be read: ${(err as Error).message}`);
  }
  const resolve = resolverOf(pdf);
  const totalRevisions = ends.length;
  const pageSizes = pages.map((p) => {
    const { crop, userUnit: u } = pageGeometry(pdf, p);
    return { width: round((crop[2] - crop[0]) * u), height: round((crop[3] - crop[1]) * u) };
  });

  const context: SignatureContext = { pdf, bytes, pages, ends, opts };
  const signatures: PdfSignature[] = [];
  for (const field of pdf.getForm()?.getSignatureFields() ?? []) {
    const v = field.getDict().get('V', resolve);
    if (!(v instanceof PdfDict)) {
      continue; // an unsigned field, a box waiting for its signer
    }
    const vRef = field.getDict().get('V');
    const dictionaryNumber = vRef instanceof PdfRef ? vRef.objectNumber : null;
    if (only && !only(dictionaryNumber)) {
      continue;
    }
    const widgets = field.getWidgets().map((w) => ({ ref: w.ref, dict: w.dict }));
    signatures.push(
      await readSignatureDictionary(context, {
        dict: v,
        dictionaryNumber,
        fieldName: field.name,
        widgets: widgets.length > 0 ? widgets : [{ ref: field.getRef(), dict: field.getDict() }],
      }),
    );
  }
  signatures.sort((a, b) => a.revision - b.revision || (a.byteRange[2] ?? 0) - (b.byteRange[2] ?? 0));
  return { totalRevisions, pages: pageSizes, signatures };
}
