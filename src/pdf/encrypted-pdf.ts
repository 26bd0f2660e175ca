// Encrypted PDFs (PDF 32000-1 §7.6), read as PDF readers read them. Pure: bytes in, bytes out.
//
// A file protected by an owner password only has an empty user password: every reader opens it
// without asking, and the owner password guards nothing but advisory permission flags (print,
// modify, copy). Banks and government portals export such files routinely. The library opens them
// the same way (it tries the empty password), and decrypts every string and stream as it parses.
// A file whose user password is not empty cannot be opened without it.
//
// Two things the library gets wrong or refuses, handled here:
// - It decrypts every string, the /Contents of a signature dictionary included, which §7.6.1
//   exempts from encryption: the signature's CMS is written in the clear, in the gap its /ByteRange
//   leaves, in an encrypted file as in any other. Decrypted, RC4 turns it into noise (AES usually
//   fails to decrypt it and keeps it). loadAsReaders puts the written value back.
// - It saves a decrypted copy only with owner access or the modify permission. Owner-only
//   protection is no secret (qpdf --decrypt removes it without the owner password, as anyone
//   can), so decryptedCopy asks for the removal the library would grant the owner.
import { randomBytes } from 'node:crypto';
import { PDF, PdfDict, PdfNull, PdfRef, PdfString, type PdfObject } from '@libpdf/core';

/**
 * Whether the file is encrypted. The library counts an /Encrypt key in the trailer whatever its
 * value, but §7.3.7 makes an entry whose value is null the same as no entry: a trailer with
 * `/Encrypt null`, which some writers leave, declares no encryption, and its strings are in clear.
 */
export function isEncryptedFile(pdf: PDF): boolean {
  if (!pdf.isEncrypted) {
    return false;
  }
  const entry = pdf.context.info.trailer.get('Encrypt');
  return entry !== undefined && !(entry instanceof PdfNull);
}

/** The file needs a password to be opened at all (a user password, or a security handler the library does not know). */
export function needsPassword(pdf: PDF): boolean {
  return isEncryptedFile(pdf) && !pdf.isAuthenticated;
}

/** What protected the file, for the record: the algorithm, e.g. "AES-128". */
export function encryptionOf(pdf: PDF): string {
  return pdf.getSecurity().algorithm ?? 'unknown';
}

/**
 * The PDF as a reader opens it: decrypted with the empty user password when it is encrypted with
 * an owner password only, every signature's /Contents as written in the file. `opts` are the
 * library's load options; a file that needs a password loads unauthenticated, as the library
 * leaves it (needsPassword tells).
 */
export async function loadAsReaders(bytes: Uint8Array, opts: { lenient?: boolean } = {}): Promise<PDF> {
  const pdf = await PDF.load(bytes, opts);
  if (pdf.isEncrypted && pdf.isAuthenticated) {
    await restoreSignatureContents(pdf, bytes, opts);
  }
  return pdf;
}

/** Replaces each signature dictionary's decrypted /Contents by the string the file holds. */
async function restoreSignatureContents(pdf: PDF, bytes: Uint8Array, opts: { lenient?: boolean }): Promise<void> {
  const fields = pdf.getForm()?.getSignatureFields() ?? [];
  if (fields.length === 0) {
    return;
  }
  // The same file opened with a password it does not have: nothing is decrypted, so every object
  // reads as written. The password is random, so no file can be made to match it.
  const raw = await PDF.load(bytes, { ...opts, credentials: randomBytes(24).toString('base64') });
  const rawObject = (n: number) => {
    const o = raw.getObject(PdfRef.of(n, 0));
    return o instanceof PdfDict ? o : null;
  };
  for (const field of fields) {
    const fieldDict = field.getDict();
    const v = fieldDict.get('V');
    // The signature dictionary, and where the file holds it: its own object, or inside the field's.
    let decrypted: PdfObject | undefined;
    let written: PdfDict | null | undefined;
    if (v instanceof PdfRef) {
      decrypted = pdf.getObject(v) ?? undefined;
      written = rawObject(v.objectNumber);
    } else if (v instanceof PdfDict) {
      decrypted = v;
      const rawField = field.getRef() ? rawObject(field.getRef()!.objectNumber) : null;
      const rawV = rawField?.get('V');
      written = rawV instanceof PdfDict ? rawV : null;
    }
    const contents = written?.get('Contents');
    if (decrypted instanceof PdfDict && contents instanceof PdfString) {
      decrypted.set('Contents', contents);
    }
  }
}

/**
 * A decrypted copy of a file encrypted with an owner password only (`pdf` opened without a
 * password): the whole file written again without /Encrypt, every object as the reader sees it.
 * A full rewrite: signatures of the original do not survive it (callers refuse signed files).
 */
export async function decryptedCopy(pdf: PDF): Promise<Uint8Array> {
  if (needsPassword(pdf)) {
    throw new Error('decryptedCopy: the file needs a password');
  }
  // removeProtection() refuses without the modify permission; its whole effect is this flag, which
  // save() honours with a full, unencrypted write.
  const state = pdf as unknown as { _pendingSecurity?: { action: string } };
  if (!state._pendingSecurity) {
    throw new Error('decryptedCopy: this version of the PDF library has no pending security state');
  }
  state._pendingSecurity = { action: 'remove' };
  return pdf.save();
}
