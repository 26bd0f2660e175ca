// The parts of a PAdES signature revision that do not depend on who holds the key, shared by the
// service's own signatures (sign-pdf.ts, one step) and by signatures whose key stays with the signer
// (external-signature.ts, two steps): the incremental update with the appearance and a signature
// dictionary whose /Contents is a zero-filled placeholder, the signature time-stamp, and the CMS
// written into the placeholder. The comments on gaps 2 and 3 refer to sign-pdf.ts's header.
import { createHash } from 'node:crypto';
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfString } from '@libpdf/core';
import type * as pkijs from 'pkijs';
import { createAppearanceStream, formatSignedAt, prepareAppearanceFonts, registerAppearanceFonts } from './signature-appearance.js';
import { embedSignaturePng, type EmbeddedImage } from './signature-image.js';
import { layoutSignature, placeBoxes, refreshWidget, writeStamp, type SignatureLayout, type WidgetPlacement } from './signature-widgets.js';
import { PdfSignError, cmsStep } from './sign-errors.js';
import type { SignPdfOptions } from './sign-pdf.js';
import { addSignatureTimestamp, encodeCms } from '../pki/cms/index.js';
import { PkiError, verifyTimeStampReply } from '../pki/index.js';
import { randomNonce } from '../pki/tsa-request.js';
import { isEncryptedFile } from './encrypted-pdf.js';
import { SignerFieldError, type SignerFieldFill, fillLines, fillSignerFields } from './signer-fields.js';

/** What the revision needs: everything of SignPdfOptions but the key and the time stamp. */
export type RevisionOptions = Pick<
  SignPdfOptions,
  'pdf' | 'fieldName' | 'boxes' | 'appearance' | 'reason' | 'location' | 'contactInfo' | 'fieldFills'
>;

/** The new revision before its CMS: /ByteRange written, /Contents zeros between [contentsStart, contentsEnd]. */
export interface PreparedRevision {
  /** The input bytes followed by the incremental update. */
  bytes: Uint8Array;
  byteRange: number[];
  /** Offsets of the < and > around the /Contents hex string. */
  contentsStart: number;
  contentsEnd: number;
  /** SHA-256 of the bytes /ByteRange covers: what the CMS messageDigest attribute carries. */
  contentDigest: Uint8Array;
}

const BYTE_RANGE_PLACEHOLDER = 9_999_999_999; // ten digits: room for any offset we can patch in
const ascii = new TextEncoder(); // what is patched in is ASCII: digits, spaces, hex

export class PlaceholderTooSmall extends Error {
  constructor(readonly needed: number) {
    super(`the CMS needs ${needed} bytes`);
  }
}

/** §7.9.4 date, in UTC. */
function pdfDate(d: Date): string {
  const p = (v: number) => String(v).padStart(2, '0');
  return `D:${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

/** Views, not Buffer.from(bytes): that would copy both (10 MB each for a large file) to compare them. */
const view = (bytes: Uint8Array, length = bytes.length) => Buffer.from(bytes.buffer, bytes.byteOffset, length);
export const isPrefix = (prefix: Uint8Array, whole: Uint8Array) =>
  whole.length >= prefix.length && view(prefix).equals(view(whole, prefix.length));

/** Position of an ASCII `needle` in hay[from, to), or -1. */
function indexOf(hay: Uint8Array, needle: string, from: number, to = hay.length): number {
  return Buffer.from(hay.buffer, hay.byteOffset, to).indexOf(needle, from, 'latin1');
}

/** §12.8.2.2: a certification signature with /P 1 forbids any change, signatures included. */
function certificationForbidsChanges(pdf: PDF): boolean {
  const resolve = (r: PdfRef) => pdf.getObject(r);
  const sig = pdf.getCatalog().getDict('Perms', resolve)?.getDict('DocMDP', resolve);
  for (const ref of sig?.getArray('Reference', resolve)?.toArray() ?? []) {
    const r = ref instanceof PdfRef ? pdf.getObject(ref) : ref;
    if (r instanceof PdfDict && r.getName('TransformMethod', resolve)?.value === 'DocMDP') {
      return (r.getDict('TransformParams', resolve)?.getNumber('P', resolve)?.value ?? 2) === 1;
    }
  }
  return false;
}

/** Where, in the appended update, the signature dictionary's /ByteRange and /Contents values are. */
function locatePlaceholders(bytes: Uint8Array, from: number, sigRef: PdfRef) {
  const header = `${sigRef.objectNumber} ${sigRef.generation} obj`;
  let objStart = indexOf(bytes, header, from);
  // "12 0 obj" must not match inside "112 0 obj": the header starts a line.
  while (objStart > 0 && bytes[objStart - 1] !== 0x0a && bytes[objStart - 1] !== 0x0d) {
    objStart = indexOf(bytes, header, objStart + 1);
  }
  const objEnd = objStart < 0 ? -1 : indexOf(bytes, 'endobj', objStart);
  const brKey = objEnd < 0 ? -1 : indexOf(bytes, '/ByteRange', objStart, objEnd);
  const brOpen = brKey < 0 ? -1 : indexOf(bytes, '[', brKey, objEnd);
  const brClose = brOpen < 0 ? -1 : indexOf(bytes, ']', brOpen, objEnd);
  const cKey = objEnd < 0 ? -1 : indexOf(bytes, '/Contents', objStart, objEnd);
  const cOpen = cKey < 0 ? -1 : indexOf(bytes, '<', cKey, objEnd);
  const cClose = cOpen < 0 ? -1 : indexOf(bytes, '>', cOpen, objEnd);
  if ([brClose, cClose].some((i) => i < 0)) {
    throw new PdfSignError('SIGNING_FAILED', 'the signature dictionary was not written where expected');
  }
  return { brOpen, brClose, cOpen, cClose };
}

/** The stored document, parsed, once it is known to take an incremental revision. */
async function loadSignable(input: Uint8Array): Promise<PDF> {
  let pdf: PDF;
  try {
    // Signing parses on the caller's thread, outside the PDF jail (jail/pdf-jail.ts): its signer
    // keys are non-extractable CryptoKeys and its time-stamp and revocation sources are callbacks,
    // none of which can cross to a worker. That is safe because the file is a stored document:
    // when it came in, the jail read every object of it strictly (pdf/inspect-pdf.ts) and bounded
    // what its compressed streams inflate to, and every revision since is this function's own output.
    pdf = await PDF.load(input);
  } catch (err) {
    throw new PdfSignError('SIGNING_FAILED', `the PDF cannot be read: ${(err as Error).message}`);
  }
  // Gap 2: with a blocker, save({ incremental: true }) silently writes a whole new file, and every
  // earlier signature's /ByteRange then points at the wrong bytes.
  const blocker = pdf.canSaveIncrementally();
  if (blocker) {
    throw new PdfSignError('NOT_INCREMENTAL', `the PDF cannot take an incremental revision (${blocker})`);
  }
  if (certificationForbidsChanges(pdf)) {
    throw new PdfSignError('NOT_INCREMENTAL', 'a certification signature on the PDF forbids any change (DocMDP P=1)');
  }
  // The writer would encrypt /Contents, which §7.6.1 says must stay in clear.
  if (isEncryptedFile(pdf)) {
    throw new PdfSignError('SIGNING_FAILED', 'encrypted PDFs cannot be signed');
  }
  return pdf;
}

/** The signature field and its widget, with the appearance drawn in every box the signer owns. */
function drawAppearances(pdf: PDF, opts: RevisionOptions): SignatureLayout {
  const layout = layoutSignature(pdf, opts.fieldName, placeBoxes(pdf, opts.boxes));
  let image: EmbeddedImage | undefined;
  if (opts.appearance.image) {
    try {
      image = embedSignaturePng(pdf, opts.appearance.image);
    } catch (err) {
      throw new PdfSignError('SIGNING_FAILED', `the signature image is not a readable PNG: ${(err as Error).message}`);
    }
  }
  const fonts = registerAppearanceFonts(pdf, opts.appearance);
  // Drawn at the box's size in points; a reader maps it onto /Rect (§12.5.5), in the page's units.
  const appearanceFor = ({ rect: [x1, y1, x2, y2], rotation, userUnit: u }: WidgetPlacement) =>
    createAppearanceStream(pdf, (x2 - x1) * u, (y2 - y1) * u, rotation, opts.appearance, { ...fonts, image });
  refreshWidget(pdf, layout.widget, appearanceFor(layout.widget));
  const description = `${opts.appearance.signerName}: ${formatSignedAt(opts.appearance.signedAt, opts.appearance.locale ?? 'es')}`;
  for (const stamp of layout.stamps) {
    writeStamp(pdf, stamp, appearanceFor(stamp), description);
  }
  return layout;
}

/**
 * The signer's field values, in this revision: before the signature dictionary and its /ByteRange,
 * so the signature covers them (decisions.md, "Fields signers fill").
 */
async function fillFields(pdf: PDF, fills: SignerFieldFill[]): Promise<void> {
  if (fills.length === 0) {
    return;
  }
  const texts = fillLines(fills);
  // Loaded only when a value is drawn: HarfBuzz and the faces cost nothing to a signature without.
  const lines =
    texts.length > 0
      ? (await import('./text-pdf-fonts.js')).embedLines(
          pdf,
          texts.map((text) => ({ text, weight: 'regular' })),
        )
      : undefined;
  try {
    fillSignerFields(pdf, fills, lines);
  } catch (err) {
    if (err instanceof SignerFieldError) {
      throw new PdfSignError('SIGNING_FAILED', `a field cannot be filled: ${err.message}`);
    }
    throw err;
  }
}

/**
 * The signature dictionary, /ByteRange and /Contents placeholders included: PDF 32000-1 §12.8.1
 * Table 252; EN 319 142-1 §6.3 (SubFilter ETSI.CAdES.detached; /M is the claimed signing time,
 * there being no CMS signing-time).
 */
function signatureDictionary(opts: RevisionOptions, signedAt: Date, contentsSize: number): PdfDict {
  const sigDict = PdfDict.of({
    Type: PdfName.of('Sig'),
    Filter: PdfName.of('Adobe.PPKLite'),
    SubFilter: PdfName.of('ETSI.CAdES.detached'),
    ByteRange: new PdfArray([0, BYTE_RANGE_PLACEHOLDER, BYTE_RANGE_PLACEHOLDER, BYTE_RANGE_PLACEHOLDER].map((v) => PdfNumber.of(v))),
    Contents: PdfString.fromBytes(new Uint8Array(contentsSize)),
    M: PdfString.fromString(pdfDate(signedAt)),
  });
  for (const [key, value] of [
    ['Reason', opts.reason],
    ['Location', opts.location],
    ['ContactInfo', opts.contactInfo],
  ] as const) {
    if (value) {
      sigDict.set(key, PdfString.fromString(value));
    }
  }
  return sigDict;
}

/** The incremental save, refused unless it appends to `input`. */
async function saveIncrement(pdf: PDF, input: Uint8Array): Promise<Uint8Array> {
  // Patched in place later, not copied first (10 MB more for a large file): the bytes are the
  // library's fresh output buffer. Output that could share the input's memory (nothing appended)
  // fails the length check before anything is written.
  const out = await pdf.save({ incremental: true });
  if (out.length <= input.length || out.buffer === input.buffer || !isPrefix(input, out)) {
    throw new PdfSignError(
      'NOT_INCREMENTAL',
      'the PDF library did not append to the file; refusing a rewrite that would break earlier signatures',
    );
  }
  return out;
}

/** Writes the real /ByteRange over its placeholder; gives it and where /Contents lies. */
function patchByteRange(out: Uint8Array, from: number, sigRef: PdfRef) {
  // §12.8.1: /ByteRange covers the whole file except the /Contents value, its < > included.
  const at = locatePlaceholders(out, from, sigRef);
  const byteRange = [0, at.cOpen, at.cClose + 1, out.length - (at.cClose + 1)];
  const brText = `[${byteRange.join(' ')}`;
  const brWidth = at.brClose - at.brOpen;
  if (brText.length > brWidth) {
    throw new PdfSignError('SIGNING_FAILED', 'the file is too large for the /ByteRange placeholder');
  }
  out.set(ascii.encode(brText.padEnd(brWidth, ' ')), at.brOpen);
  return { byteRange, contentsStart: at.cOpen, contentsEnd: at.cClose };
}

export async function writeRevision(opts: RevisionOptions, signedAt: Date, contentsSize: number): Promise<PreparedRevision> {
  const pdf = await loadSignable(opts.pdf);
  await prepareAppearanceFonts(opts.appearance);
  const layout = drawAppearances(pdf, opts);
  await fillFields(pdf, opts.fieldFills ?? []);
  const sigRef = pdf.register(signatureDictionary(opts, signedAt, contentsSize));
  layout.fieldDict.set('V', sigRef);
  const out = await saveIncrement(pdf, opts.pdf);
  const { byteRange, contentsStart, contentsEnd } = patchByteRange(out, opts.pdf.length, sigRef);
  // The two ranges are hashed where they lie: no 10 MB copy to join them.
  const contentDigest = new Uint8Array(
    createHash('sha256').update(out.subarray(0, byteRange[1])).update(out.subarray(byteRange[2])).digest(),
  );
  return { bytes: out, byteRange, contentsStart, contentsEnd, contentDigest };
}

/**
 * Gap 3: asks for the signature time-stamp over the signature value (EN 319 122-1 §5.3), with a
 * fresh nonce (RFC 3161 §2.4.1) whose first byte keeps the INTEGER positive and minimally encoded,
 * checks the reply and adds the token to the SignerInfo.
 */
export async function stampSignature(
  signedData: pkijs.SignedData,
  signatureValue: Uint8Array,
  opts: Pick<SignPdfOptions, 'timestamp' | 'trustedRootsDer'> & { untrustedDer: Uint8Array[] },
): Promise<void> {
  const nonce = randomNonce();
  const imprint = new Uint8Array(createHash('sha256').update(signatureValue).digest());
  let reply: Uint8Array;
  try {
    reply = await opts.timestamp(imprint, nonce);
  } catch (err) {
    throw new PdfSignError('SIGNING_FAILED', `the time-stamp authority did not answer: ${(err as Error).message}`);
  }
  // Only a token about *this* signature (imprint, nonce), from a TSA we trust, valid at its own
  // time, is worth embedding (RFC 3161 §2.4.2, §2.3; RFC 5035/5816).
  let tokenDer: Uint8Array;
  try {
    ({ tokenDer } = await verifyTimeStampReply(reply, {
      expectedImprint: imprint,
      expectedNonce: nonce,
      trustedRootsDer: opts.trustedRootsDer,
      untrustedDer: opts.untrustedDer,
    }));
  } catch (err) {
    if (err instanceof PkiError) {
      throw new PdfSignError('TIMESTAMP_INVALID', `time-stamp reply refused: ${err.message}`);
    }
    throw err;
  }
  await cmsStep(() => addSignatureTimestamp(signedData, tokenDer));
}

/**
 * Writes the CMS into the revision's /Contents placeholder (in place) and checks that the input is
 * still an exact prefix. `encoded`: the SignedData's DER its signer checked, when there is one (encodeCms). Throws PlaceholderTooSmall when the CMS does not fit.
 */
export function embedCms(
  input: Uint8Array,
  rev: PreparedRevision,
  signedData: pkijs.SignedData,
  encoded?: Uint8Array<ArrayBuffer>,
): Buffer {
  const out = rev.bytes;
  const cms = encodeCms(signedData, encoded);
  const hex = Buffer.from(cms).toString('hex');
  const room = rev.contentsEnd - rev.contentsStart - 1;
  if (hex.length > room) {
    throw new PlaceholderTooSmall(cms.length);
  }
  out.set(ascii.encode(hex.padEnd(room, '0')), rev.contentsStart + 1);
  if (!isPrefix(input, out)) {
    throw new PdfSignError('NOT_INCREMENTAL', 'the earlier revision is no longer a prefix of the signed file');
  }
  return Buffer.from(out.buffer, out.byteOffset, out.length);
}
