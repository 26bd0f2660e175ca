// What each incremental revision of a PDF changed, as far as a stamp's validation needs it: the
// signatures, document time stamps and DSS (validation data) it added, and anything else it
// touched that a reader sees (page content, page boxes, annotations other than signature widgets,
// form values). Each revision is compared with the one before it by loading both prefixes of the
// file. This is the summary the NOM-151 validation reports; a full difference analysis can replace
// describeRevisions without changing its callers. Pure: bytes in, facts out.
import { createHash } from 'node:crypto';
import { PDF, PdfArray, PdfDict, type PdfName, PdfRef, PdfStream, PdfString } from '@libpdf/core';
import { pageGeometry } from './page-geometry.js';

export interface RevisionChange {
  /** 1-based revision; the first (the original file) is not described. */
  revision: number;
  /** Fields whose signature (/Type /Sig or none) this revision added. */
  signatures: string[];
  /** Fields whose document time stamp (/Type /DocTimeStamp) this revision added. */
  documentTimestamps: string[];
  /** The document security store (/DSS) was added or changed. */
  dss: boolean;
  /** Everything else that changed, one short sentence each; empty when nothing else did. */
  other: string[];
}

interface Snapshot {
  signed: Map<string, 'signature' | 'document_timestamp'>;
  dss: string | null;
  pages: string[];
  fields: Map<string, string>;
}

const sha = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/** A stable text of a PDF object, references followed (cycles and depth bounded). */
function fingerprint(pdf: PDF, obj: unknown, depth = 0, seen = new Set<string>()): string {
  if (depth > 12) {
    return '…';
  }
  if (obj instanceof PdfRef) {
    const key = `${obj.objectNumber} ${obj.generation}`;
    if (seen.has(key)) {
      return `@${key}`;
    }
    seen.add(key);
    return fingerprint(pdf, pdf.getObject(obj), depth + 1, seen);
  }
  if (obj instanceof PdfStream) {
    let data: Uint8Array;
    try {
      data = obj.getDecodedData();
    } catch {
      data = obj.data;
    }
    return `stream(${sha(data)})`;
  }
  if (obj instanceof PdfDict) {
    const keys = [...obj.keys()].map((k) => (typeof k === 'string' ? k : (k as PdfName).value)).sort();
    return `<<${keys.map((k) => `/${k} ${fingerprint(pdf, obj.get(k), depth + 1, seen)}`).join(' ')}>>`;
  }
  if (obj instanceof PdfArray) {
    return `[${obj
      .toArray()
      .map((v) => fingerprint(pdf, v, depth + 1, seen))
      .join(' ')}]`;
  }
  if (obj instanceof PdfString) {
    return `(${Buffer.from(obj.bytes).toString('hex')})`;
  }
  return String((obj as { value?: unknown } | undefined)?.value ?? obj);
}

function isSignatureWidget(pdf: PDF, annot: PdfDict): boolean {
  const resolve = (r: PdfRef) => pdf.getObject(r);
  const ft = annot.getName('FT', resolve)?.value ?? annot.getDict('Parent', resolve)?.getName('FT', resolve)?.value;
  return annot.getName('Subtype', resolve)?.value === 'Widget' && ft === 'Sig';
}

async function snapshot(bytes: Uint8Array): Promise<Snapshot> {
  const pdf = await PDF.load(bytes);
  const resolve = (r: PdfRef) => pdf.getObject(r);
  const signed = new Map<string, 'signature' | 'document_timestamp'>();
  const fields = new Map<string, string>();
  for (const field of pdf.getForm()?.getFields() ?? []) {
    const v = field.getDict().get('V', resolve);
    if (field.getDict().getName('FT', resolve)?.value === 'Sig' || (v instanceof PdfDict && v.has('ByteRange'))) {
      if (v instanceof PdfDict) {
        signed.set(field.name, v.getName('Type', resolve)?.value === 'DocTimeStamp' ? 'document_timestamp' : 'signature');
      }
      continue;
    }
    fields.set(field.name, fingerprint(pdf, v ?? null));
  }
  const pages = pdf.getPages().map((page) => {
    const annots = (page.dict.getArray('Annots', resolve)?.toArray() ?? [])
      .map((a) => (a instanceof PdfRef ? pdf.getObject(a) : a))
      .filter((a): a is PdfDict => a instanceof PdfDict && !isSignatureWidget(pdf, a));
    const { crop, rotation } = pageGeometry(pdf, page);
    return sha(
      [
        crop.join(' '),
        rotation,
        fingerprint(pdf, page.dict.get('Contents')),
        fingerprint(pdf, page.dict.get('Resources')),
        annots.map((a) => fingerprint(pdf, a)).join('|'),
      ].join('\n'),
    );
  });
  const dss = pdf.getCatalog().get('DSS');
  return { signed, dss: dss ? sha(fingerprint(pdf, dss)) : null, pages, fields };
}

function compare(revision: number, before: Snapshot, after: Snapshot): RevisionChange {
  const change: RevisionChange = { revision, signatures: [], documentTimestamps: [], dss: after.dss !== before.dss, other: [] };
  for (const [name, kind] of after.signed) {
    if (!before.signed.has(name)) {
      (kind === 'document_timestamp' ? change.documentTimestamps : change.signatures).push(name);
    }
  }
  for (const name of before.signed.keys()) {
    if (!after.signed.has(name)) {
      change.other.push(`the signature ${name} was removed`);
    }
  }
  if (after.pages.length !== before.pages.length) {
    change.other.push(`the page count changed from ${before.pages.length} to ${after.pages.length}`);
  }
  after.pages.forEach((p, i) => {
    if (i < before.pages.length && p !== before.pages[i]) {
      change.other.push(`page ${i + 1} changed (content, resources, boxes or annotations)`);
    }
  });
  for (const [name, value] of after.fields) {
    if (before.fields.get(name) !== value) {
      change.other.push(`the form field ${name} was ${before.fields.has(name) ? 'changed' : 'added'}`);
    }
  }
  if (after.dss === null && before.dss !== null) {
    change.other.push('the validation data (DSS) was removed');
    change.dss = false;
  }
  return change;
}

/**
 * What each revision after the first changed. `ends` are the revisions' end offsets (revisionEnds);
 * a prefix that does not load is reported as such rather than failing the whole reading.
 */
export async function describeRevisions(bytes: Uint8Array, ends: number[]): Promise<RevisionChange[]> {
  const out: RevisionChange[] = [];
  let before: Snapshot | null = null;
  for (let i = 0; i < ends.length; i++) {
    let after: Snapshot | null = null;
    try {
      after = await snapshot(bytes.subarray(0, ends[i]));
    } catch {
      after = null;
    }
    if (i > 0) {
      if (before && after) {
        out.push(compare(i + 1, before, after));
      } else {
        out.push({
          revision: i + 1,
          signatures: [],
          documentTimestamps: [],
          dss: false,
          other: ['the revision cannot be read on its own'],
        });
      }
    }
    before = after;
  }
  return out;
}
