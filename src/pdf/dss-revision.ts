// Long-term validation data as one incremental revision: the Document Security Store of
// PDF 2.0 §12.8.4.3 / ETSI EN 319 142-1 §5.4 (/DSS in the catalog: /Certs, /OCSPs, /CRLs, /VRI).
//
// Why not @libpdf/core's addValidationData(): it decides by itself what to gather (OCSP, and a CRL
// only where OCSP failed, never both), fetches AIA issuers and revocation data from the network
// inside pdf/ when the provider lets it, and turns every failure into a warning, so a "B-LT" file
// can silently lack what makes it B-LT. Here the caller (domain/universal) gathers and checks
// everything first; this file only writes it, merging with any DSS already in the file (an
// earlier revision's streams are referenced again, not copied), and checks afterwards that the
// previous bytes are an exact prefix of the new ones, as signPdf does.
import { createHash } from 'node:crypto';
import { type PDF, PdfArray, PdfDict, PdfName, PdfRef, PdfStream, PdfString } from '@libpdf/core';
import { isStrictPrefix, type OpenPdf, requireIncremental } from './open-pdf.js';
import { PdfSignError } from './sign-errors.js';

/** Validation data owed to one signature or time stamp (its VRI entry). */
export interface VriEntry {
  /** The signature's /Contents as written (padding included), or a time-stamp token's DER. */
  signature: Uint8Array;
  certificatesDer: Uint8Array[];
  ocspsDer: Uint8Array[];
  crlsDer: Uint8Array[];
}

export interface DssData {
  /** Each VRI entry's data also goes into the document-wide arrays. */
  vri: VriEntry[];
  /** When the data was gathered (/TU of each VRI entry). */
  at: Date;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** PDF 2.0 §12.8.4.4: the VRI key is the upper-case hex SHA-1 of the signature it applies to. */
export const vriKey = (signature: Uint8Array) => createHash('sha1').update(signature).digest('hex').toUpperCase();

function pdfDate(d: Date): string {
  const p = (v: number) => String(v).padStart(2, '0');
  return `D:${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

/** One array of the DSS (/Certs, /OCSPs or /CRLs): existing streams kept, new bytes added once. */
class StreamSet {
  private readonly refs: PdfRef[] = [];
  private readonly byHash = new Map<string, PdfRef>();

  constructor(private readonly pdf: PDF) {}

  keep(existing: PdfArray | undefined): void {
    for (const item of existing?.toArray() ?? []) {
      if (!(item instanceof PdfRef)) {
        continue;
      }
      const stream = this.pdf.getObject(item);
      if (stream instanceof PdfStream && !this.byHash.has(sha256(stream.getDecodedData()))) {
        this.byHash.set(sha256(stream.getDecodedData()), item);
        this.refs.push(item);
      }
    }
  }

  add(bytes: Uint8Array): PdfRef {
    const hash = sha256(bytes);
    let ref = this.byHash.get(hash);
    if (!ref) {
      ref = this.pdf.register(new PdfStream(new PdfDict(), new Uint8Array(bytes)));
      this.byHash.set(hash, ref);
      this.refs.push(ref);
    }
    return ref;
  }

  array(): PdfArray | undefined {
    return this.refs.length > 0 ? new PdfArray([...this.refs]) : undefined;
  }
}

/**
 * Appends one incremental revision whose catalog /DSS holds `data` merged with the DSS already
 * there; `doc` then holds the new bytes (and, unless reload is false, their model).
 */
export async function appendDss(doc: OpenPdf, data: DssData, opts: { reload?: boolean } = {}): Promise<void> {
  requireIncremental(doc);
  const pdf = doc.pdf;
  const resolve = (r: PdfRef) => pdf.getObject(r);
  const catalog = pdf.getCatalog();
  const old = catalog.getDict('DSS', resolve);
  const certs = new StreamSet(pdf);
  const ocsps = new StreamSet(pdf);
  const crls = new StreamSet(pdf);
  certs.keep(old?.getArray('Certs', resolve));
  ocsps.keep(old?.getArray('OCSPs', resolve));
  crls.keep(old?.getArray('CRLs', resolve));
  const vri = new PdfDict();
  const oldVri = old?.getDict('VRI', resolve);
  for (const key of oldVri?.keys() ?? []) {
    const entry = oldVri?.get(key);
    if (entry) {
      vri.set(key.value, entry);
    }
  }
  for (const entry of data.vri) {
    const e = new PdfDict();
    const refs = (set: StreamSet, items: Uint8Array[]) => new PdfArray([...new Set(items.map((b) => set.add(b)))]);
    if (entry.certificatesDer.length > 0) {
      e.set('Cert', refs(certs, entry.certificatesDer));
    }
    if (entry.ocspsDer.length > 0) {
      e.set('OCSP', refs(ocsps, entry.ocspsDer));
    }
    if (entry.crlsDer.length > 0) {
      e.set('CRL', refs(crls, entry.crlsDer));
    }
    e.set('TU', PdfString.fromString(pdfDate(data.at)));
    vri.set(vriKey(entry.signature), e);
  }
  const dss = PdfDict.of({ Type: PdfName.of('DSS') });
  for (const [key, set] of [
    ['Certs', certs],
    ['OCSPs', ocsps],
    ['CRLs', crls],
  ] as const) {
    const array = set.array();
    if (array) {
      dss.set(key, array);
    }
  }
  if ([...vri.keys()].length > 0) {
    dss.set('VRI', pdf.register(vri));
  }
  catalog.set('DSS', pdf.register(dss));
  const out = await pdf.save({ incremental: true });
  if (!isStrictPrefix(doc.bytes, out)) {
    throw new PdfSignError('NOT_INCREMENTAL', 'the PDF library did not append the validation data; refusing a rewrite');
  }
  doc.bytes = out;
  if (opts.reload !== false) {
    await pdf.reload(out);
  }
}
