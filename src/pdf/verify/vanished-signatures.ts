// Signatures that an earlier revision of the file holds and the last one no longer shows. Reading
// only the final form would let an incremental update that deletes every signature field (or points
// a field at another signature dictionary) turn a signed, altered document into "0 signatures,
// intact". A signature stays a fact of the file once written: each is found in the revision that
// still holds it, checked like any other, and reported as modified after signing.
import type { PDF } from '@libpdf/core';
import { type PdfSignature, type ReadSignaturesOptions, readSignaturesOf } from '../read-signatures.js';
import type { DocumentFacts } from './document-facts.js';
import { objectAt, sameObject } from './revision-diff.js';

export interface VanishedSignature {
  signature: PdfSignature;
  /** The revision that held it (the file as it stood then): its field, widget and page are read there. */
  pdf: PDF;
  /** The first revision that no longer shows it. */
  goneAt: number;
}

const keyOf = (s: PdfSignature) => `${s.dictionaryNumber}:${s.byteRange.join(' ')}`;

/**
 * `facts` holds every revision that loads, in order; `finalPdf` is the file as it ends and `final`
 * the signatures its form shows. Signature dictionaries that are direct objects have no number to
 * follow across revisions and are only read from the final form.
 */
export async function vanishedSignatures(
  facts: DocumentFacts[],
  finalPdf: PDF,
  final: PdfSignature[],
  bytes: Uint8Array,
  opts: ReadSignaturesOptions,
): Promise<VanishedSignature[]> {
  const shown = new Set(final.map((s) => s.dictionaryNumber));
  const seen = new Set(final.map(keyOf));
  const out: VanishedSignature[] = [];
  // From the newest revision back, so each signature is read where it was last shown.
  for (let i = facts.length - 1; i >= 0; i--) {
    const here = facts[i];
    if (here.view.pdf === finalPdf) {
      continue;
    }
    const gone = [...here.signatureValues.keys()].filter(
      (n) => !shown.has(n) || !sameObject(objectAt(here.view.pdf, n), objectAt(finalPdf, n)),
    );
    if (gone.length === 0) {
      continue;
    }
    const wanted = new Set(gone);
    const read = await readSignaturesOf(here.view.pdf, bytes, opts, (n) => n !== null && wanted.has(n));
    for (const signature of read.signatures) {
      const key = keyOf(signature);
      if (!seen.has(key)) {
        seen.add(key);
        out.push({ signature, pdf: here.view.pdf, goneAt: facts[i + 1]?.view.revision ?? here.view.revision + 1 });
      }
    }
  }
  return out;
}
