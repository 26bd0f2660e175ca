// A PDF being extended one incremental revision after another (the universal rendition's DSS,
// document time stamp, DSS): its current bytes and the library's model of exactly those bytes, so
// that a 300-page file is parsed once per revision instead of once per step that reads it.
import { PDF } from '@libpdf/core';
import { PdfSignError } from './sign-errors.js';

export interface OpenPdf {
  /** The current revision: every step appends to these and replaces them. */
  bytes: Uint8Array;
  /** Parsed from `bytes`; a step that saves reloads it from the new bytes. */
  pdf: PDF;
}

export async function openPdf(bytes: Uint8Array): Promise<OpenPdf> {
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (err) {
    throw new PdfSignError('SIGNING_FAILED', `the PDF cannot be read: ${(err as Error).message}`);
  }
  return { bytes, pdf };
}

/** §7.5.6: with a blocker the library silently rewrites the file, breaking every earlier /ByteRange. */
export function requireIncremental(doc: OpenPdf): void {
  const blocker = doc.pdf.canSaveIncrementally();
  if (blocker) {
    throw new PdfSignError('NOT_INCREMENTAL', `the PDF cannot take an incremental revision (${blocker})`);
  }
}

/** Whether `prefix` is an exact prefix of (and shorter than) `whole`, compared on views, not copies. */
export function isStrictPrefix(prefix: Uint8Array, whole: Uint8Array): boolean {
  return (
    whole.length > prefix.length &&
    Buffer.from(prefix.buffer, prefix.byteOffset, prefix.length).equals(Buffer.from(whole.buffer, whole.byteOffset, prefix.length))
  );
}
