// Reads what the service needs to know of an uploaded PDF before accepting it: that it really is a
// PDF we can later sign incrementally, its pages and their geometry. Pure: bytes in, facts out.
//
// The file is read strictly, every object of it, as `qpdf --check` reads it: a file is accepted
// only if it reads as it is. The library's lenient mode repairs what it meets (a stray ")" or "}"
// in an array or dictionary, offsets that miss their objects, a missing cross-reference table),
// and on some such files it loops without end while allocating; what a repair makes of a file
// is also not what every other reader makes of it, so the signers could see different documents.
// Reading every object now, not only those the pages need, is what lets later readers of the
// stored file (signing, which runs on the main thread) meet no syntax they have not met here.
import { PDF, PdfArray, PdfDict, PdfRef, type PdfObject } from '@libpdf/core';
import { decryptedCopy, encryptionOf, isEncryptedFile, needsPassword } from './encrypted-pdf.js';
import { pageGeometry } from './page-geometry.js';

export interface PageInfo {
  /**
   * CropBox (the visible page, clipped to the MediaBox), in PDF points, unrotated user space: on a
   * page with /UserUnit, its user space units times that unit.
   */
  cropBox: { x: number; y: number; width: number; height: number };
  rotation: 0 | 90 | 180 | 270;
}

export interface PdfInfo {
  pageCount: number;
  pages: PageInfo[];
  version: string;
  /** The file was encrypted with an owner password only and `encrypted: 'decrypt'` was asked: its decrypted copy, which the facts above describe. */
  decrypted?: { bytes: Uint8Array; encryption: string };
}

/**
 * What to do with a file encrypted with an owner password only (one that needs a password to open
 * is always refused): refuse it, read it as it is (its pages are the same), or read and answer a
 * decrypted copy.
 */
export type EncryptedPolicy = 'refuse' | 'read' | 'decrypt';

export type PdfProblem = 'NOT_PDF' | 'DAMAGED' | 'ENCRYPTED' | 'TOO_MANY_PAGES' | 'NO_PAGES' | 'TOO_COMPLEX';

export class PdfInputError extends Error {
  constructor(
    readonly problem: PdfProblem,
    message: string,
  ) {
    super(message);
    this.name = 'PdfInputError';
  }
}

/** PDF 32000-1 Annex C.2: the most indirect objects a file may have (8,388,607). */
const MAX_OBJECTS = 8_388_607;

const REPAIR_HINT = 'open and save it again with a PDF tool, then retry';

export async function inspectPdf(bytes: Uint8Array, opts: { maxPages: number; encrypted?: EncryptedPolicy }): Promise<PdfInfo> {
  const pdf = await loadStrict(bytes);
  if (isEncryptedFile(pdf)) {
    return inspectEncrypted(pdf, { maxPages: opts.maxPages, encrypted: opts.encrypted ?? 'refuse' });
  }
  return inspectOpen(pdf, opts.maxPages);
}

/**
 * An encrypted file. One that needs a password is refused, whatever the policy. One protected by an
 * owner password only is signed as a decrypted copy: signing it encrypted would leave the
 * signatures' strings and streams readable only through the encryption, which validators handle
 * unevenly; the copy is what every reader shows anyway.
 */
async function inspectEncrypted(pdf: PDF, opts: { maxPages: number; encrypted: EncryptedPolicy }): Promise<PdfInfo> {
  if (needsPassword(pdf)) {
    throw new PdfInputError('ENCRYPTED', PASSWORD_NEEDED);
  }
  if (opts.encrypted === 'refuse') {
    throw new PdfInputError('ENCRYPTED', 'the PDF is encrypted (with an owner password only); remove the protection and retry');
  }
  if (opts.encrypted === 'read') {
    return inspectOpen(pdf, opts.maxPages);
  }
  // A decrypted copy rewrites the whole file, which breaks every signature it carries.
  if (
    pdf
      .getForm()
      ?.getSignatureFields()
      .some((f) => f.getDict().has('V'))
  ) {
    throw new PdfInputError(
      'ENCRYPTED',
      'the PDF is encrypted (with an owner password only) and signed: decrypting it would break its signatures; send it without the protection',
    );
  }
  let copy: Uint8Array;
  try {
    copy = await decryptedCopy(pdf);
  } catch (err) {
    throw new PdfInputError('DAMAGED', `the encrypted PDF cannot be decrypted (${(err as Error).message}); ${REPAIR_HINT}`);
  }
  const info = await inspectOpen(await loadStrict(copy), opts.maxPages);
  return { ...info, decrypted: { bytes: copy, encryption: encryptionOf(pdf) } };
}

/** The facts of a file the library reads in the clear. */
function inspectOpen(pdf: PDF, maxPages: number): PdfInfo {
  readEveryObject(pdf);
  checkPageTree(pdf);
  let pages: ReturnType<typeof pdf.getPages>;
  try {
    pages = pdf.getPages();
  } catch (err) {
    throw new PdfInputError('DAMAGED', `the PDF's page tree cannot be read: ${(err as Error).message}`);
  }
  if (pages.length === 0) {
    throw new PdfInputError('NO_PAGES', 'the PDF has no pages');
  }
  if (pages.length > maxPages) {
    throw new PdfInputError('TOO_MANY_PAGES', `the PDF has ${pages.length} pages; the limit is ${maxPages}`);
  }
  return {
    pageCount: pages.length,
    version: pdf.version,
    pages: pages.map((p) => {
      const { crop, rotation, userUnit: u } = pageGeometry(pdf, p);
      return { cropBox: { x: crop[0] * u, y: crop[1] * u, width: (crop[2] - crop[0]) * u, height: (crop[3] - crop[1]) * u }, rotation };
    }),
  };
}

const PASSWORD_NEEDED = 'the PDF is encrypted with a password that is needed to open it; send it without that password';

/**
 * Refuses a file that cannot be opened without a password, for the readers that take every other
 * file as it comes (the verifier): what they would read of it is ciphertext. Only a file that
 * mentions /Encrypt is loaded for this.
 */
export async function refuseIfPasswordNeeded(bytes: Uint8Array): Promise<void> {
  if (!Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('/Encrypt')) {
    return;
  }
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch {
    return; // not readable at all: the reader that follows says so in its own words
  }
  if (needsPassword(pdf)) {
    throw new PdfInputError('ENCRYPTED', PASSWORD_NEEDED);
  }
  // A file the library only read by scanning for objects (its cross-reference data refused) loses
  // its /Encrypt on the way and would be read as ciphertext: refused, not reported on.
  if (!pdf.isEncrypted && pdf.recoveredViaBruteForce && /\/Encrypt\s+\d+\s+\d+\s+R/.test(Buffer.from(bytes).toString('latin1'))) {
    throw new PdfInputError(
      'ENCRYPTED',
      'the PDF is encrypted, and its encryption cannot be read here (its cross-reference data is not readable as written, or it is protected by certificates); send it without the protection',
    );
  }
}

/** The library in strict mode: no brute-force recovery, no repair of broken syntax. */
export async function loadStrict(bytes: Uint8Array): Promise<PDF> {
  // The header may be preceded by junk (PDF 32000-1 §7.5.2 tolerance in readers), but not by much.
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (!head.includes('%PDF-')) {
    throw new PdfInputError('NOT_PDF', 'the file is not a PDF (no %PDF- header)');
  }
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes, { lenient: false });
  } catch (err) {
    throw new PdfInputError('DAMAGED', `the PDF is damaged and cannot be read as it is (${(err as Error).message}); ${REPAIR_HINT}`);
  }
  // Strict mode never recovers by brute force; kept so that a library change cannot let one through.
  // Such a file cannot take incremental signatures without rewriting it, which would change what the
  // signers see.
  if (pdf.recoveredViaBruteForce) {
    throw new PdfInputError('DAMAGED', `the PDF is damaged (truncated or with a broken cross-reference table); ${REPAIR_HINT}`);
  }
  return pdf;
}

/** Parses every object the cross-reference data lists (numbers below the trailer's /Size). */
function readEveryObject(pdf: PDF): void {
  const size = pdf.context.info.trailer.getNumber('Size')?.value ?? 0;
  if (!Number.isInteger(size) || size < 1 || size - 1 > MAX_OBJECTS) {
    throw new PdfInputError('DAMAGED', `the PDF's trailer gives an impossible object count (/Size ${size}); ${REPAIR_HINT}`);
  }
  for (let n = 1; n < size; n++) {
    try {
      pdf.getObject(PdfRef.of(n, 0));
    } catch (err) {
      throw new PdfInputError('DAMAGED', `object ${n} of the PDF cannot be read (${(err as Error).message}); ${REPAIR_HINT}`);
    }
  }
}

/**
 * The page tree must be a tree (§7.7.3.2): a node that is its own ancestor, or reached twice, is a
 * loop the library silently cuts but other readers refuse or follow forever (qpdf: "Loop detected
 * in /Pages structure"). Walked without recursion, so a deep tree cannot exhaust the stack.
 */
function checkPageTree(pdf: PDF): void {
  const resolve = (o: PdfObject | undefined) => (o instanceof PdfRef ? pdf.getObject(o) : (o ?? null));
  const root = pdf.getCatalog().get('Pages');
  const seen = new Set<string>();
  const stack: (PdfObject | undefined)[] = [root];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof PdfRef) {
      const key = `${item.objectNumber} ${item.generation}`;
      if (seen.has(key)) {
        throw new PdfInputError('DAMAGED', `the PDF's page tree has a loop (object ${key} is reached twice); ${REPAIR_HINT}`);
      }
      seen.add(key);
    }
    const node = resolve(item);
    if (node instanceof PdfDict && node.getName('Type')?.value !== 'Page') {
      const kids = resolve(node.get('Kids'));
      if (kids instanceof PdfArray) {
        for (const kid of kids.toArray()) {
          stack.push(kid);
        }
      }
    }
  }
}
