// The document time stamps of a PDF (/Type /DocTimeStamp, /SubFilter /ETSI.RFC3161: PDF 32000-2
// §12.8.5), with what each covers and what the file's later revisions changed, for the NOM-151
// validation. Only the facts in the file: the tokens are checked by the caller (pki/cms/timestamp-token.ts)
// against the roots it trusts. Pure: bytes in, facts out; run it in the PDF jail.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import { PDF, PdfArray, PdfDict, PdfNumber, PdfRef, PdfString } from '@libpdf/core';
import { checkByteRange, revisionEnds, revisionOf } from './pdf-revisions.js';
import { describeRevisions, type RevisionChange } from './revision-changes.js';

export interface DocumentTimestampEntry {
  fieldName: string;
  /** Object number of the time stamp's dictionary (/V); null when it is a direct object. */
  dictionaryNumber: number | null;
  subFilter: string;
  byteRange: number[];
  /** §12.8.1: every byte of the file, up to the end of the revision it closes, but the token itself is covered. */
  coversRevision: boolean;
  /** 1-based revision this time stamp closes. */
  revision: number;
  /** SHA-256 of the covered bytes: what the token must attest; null when the range is unusable. */
  imprint: Uint8Array | null;
  /** Offset just past the last covered byte: the covered bytes are the file's prefix up to here. */
  coveredEnd: number;
  /** The token (DER, the reserved zeros after it cut off). */
  token: Uint8Array;
}

export interface PdfDocumentTimestamps {
  totalRevisions: number;
  /** In the order they were applied. */
  timestamps: DocumentTimestampEntry[];
  /** What each revision after the first changed (revision-changes.ts). */
  revisions: RevisionChange[];
}

export class DocumentTimestampReadError extends Error {
  override name = 'DocumentTimestampReadError';
}

/** The DER element at the start of `bytes`, without the padding a /Contents reserve leaves after it. */
function firstElement(bytes: Uint8Array): Uint8Array {
  const parsed = asn1js.fromBER(Uint8Array.from(bytes).buffer);
  return parsed.offset > 0 ? bytes.subarray(0, parsed.offset) : bytes;
}

export async function readDocumentTimestamps(bytes: Uint8Array): Promise<PdfDocumentTimestamps> {
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (err) {
    throw new DocumentTimestampReadError(`the PDF cannot be read: ${(err as Error).message}`);
  }
  const resolve = (r: PdfRef) => pdf.getObject(r);
  const ends = revisionEnds(bytes);
  const timestamps: DocumentTimestampEntry[] = [];
  for (const field of pdf.getForm()?.getSignatureFields() ?? []) {
    const v = field.getDict().get('V', resolve);
    if (!(v instanceof PdfDict) || v.getName('Type', resolve)?.value !== 'DocTimeStamp') {
      continue; // a signature, or a field waiting for one
    }
    const rangeObj = v.get('ByteRange', resolve);
    const byteRange = rangeObj instanceof PdfArray ? rangeObj.toArray().map((n) => (n instanceof PdfNumber ? n.value : Number.NaN)) : [];
    const range = checkByteRange(bytes, byteRange);
    const contents = v.get('Contents', resolve);
    const revision = range.signed ? revisionOf(ends, range.end) : ends.length;
    const vRef = field.getDict().get('V');
    timestamps.push({
      fieldName: field.name,
      dictionaryNumber: vRef instanceof PdfRef ? vRef.objectNumber : null,
      subFilter: v.getName('SubFilter', resolve)?.value ?? '',
      byteRange,
      coversRevision: range.signed !== null && checkByteRange(bytes.subarray(0, ends[revision - 1]), byteRange).coversDocument,
      revision,
      imprint: range.signed ? new Uint8Array(range.signed.reduce((h, part) => h.update(part), createHash('sha256')).digest()) : null,
      coveredEnd: range.end,
      token: contents instanceof PdfString ? Uint8Array.from(firstElement(contents.bytes)) : new Uint8Array(),
    });
  }
  timestamps.sort((a, b) => a.revision - b.revision || a.coveredEnd - b.coveredEnd);
  // Only worth the loads when a later revision follows a time stamp.
  const revisions = timestamps.some((t) => t.revision < ends.length) ? await describeRevisions(bytes, ends) : [];
  return { totalRevisions: ends.length, timestamps, revisions };
}
