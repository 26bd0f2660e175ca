// One signer's signature as one incremental revision (PDF 32000-1 §7.5.6): a PAdES baseline B-T
// signature (ETSI EN 319 142-1 §6.3: ETSI.CAdES.detached, signing-certificate-v2, no CMS
// signing-time, a signature time-stamp) with a visible appearance in every box the signer owns.
//
// What @libpdf/core does here: parsing, the object model, the AcroForm and the incremental save
// (signature-image.ts embeds the PNG, with native zlib). What it does not, and why (the four gaps
// of the issue):
//  1. sign() cannot place or draw the widget: signature-widgets.ts + signature-appearance.ts
//     (the first box is the field's widget, further boxes locked stamps: see layoutSignature()).
//  2. sign() rewrites the whole file when canSaveIncrementally() reports a blocker: we refuse
//     first, and check afterwards that the previous bytes are an exact prefix of the new ones.
//  3. sign() embeds time-stamp tokens unchecked: pki/'s verifyTimeStampReply checks each before embedding.
//  4. sign()'s default revocation fetch hits the network and degrades silently: B-T needs no
//     revocation data and nothing here asks the library for any (LTV: dss-revision.ts).
// Because sign() also always adds the CMS signing-time attribute (forbidden in PAdES baseline),
// the signature dictionary, /ByteRange and CMS (cades-signature.ts, with pkijs) are done here.
// Pure, as pdf/ must be: the signer, the clock and the TSA are parameters.
import { createHash } from 'node:crypto';
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfString } from '@libpdf/core';
import { addSignatureTimestamp, createCadesSignature, encodeCms } from './cades-signature.js';
import { createAppearanceStream, formatSignedAt, registerAppearanceFonts } from './signature-appearance.js';
import { embedSignaturePng, type EmbeddedImage } from './signature-image.js';
import { layoutSignature, placeBoxes, refreshWidget, writeStamp, type WidgetPlacement } from './signature-widgets.js';
import { PdfSignError } from './sign-errors.js';
import { PkiError, verifyTimeStampReply } from '../pki/index.js';
import { randomNonce } from '../pki/tsa-request.js';

export { PdfSignError, type PdfSignProblem } from './sign-errors.js';

/** A box the signer owns: 0-based page; PDF points in unrotated user space, origin at the CropBox's lower-left corner. */
export interface SignatureBox {
  page: number;
  rect: { lx: number; ly: number; tx: number; ty: number };
}

/** What each box shows. */
export interface SignatureAppearance {
  /** PNG of the drawn (or client-rendered typed) signature. */
  image?: Uint8Array;
  /** A typed signature drawn as text, when there is no image. */
  typedSignature?: string;
  signerName: string;
  signedAt: Date;
  /** How the identity was proven, e.g. "Email link: ana@example.com". */
  authorityLabel: string;
  /** Language of the legend's date line; 'es' when absent. */
  locale?: 'es' | 'en';
}

export interface SignPdfOptions {
  /** The current revision. */
  pdf: Uint8Array;
  /** e.g. "Sello-<signerId>"; a pre-placed unsigned signature field of that name is reused. */
  fieldName: string;
  /** Every box this signer owns (at least one). */
  boxes: SignatureBox[];
  appearance: SignatureAppearance;
  /** chainDer: leaf first, then the CAs. */
  signer: { certificateDer: Uint8Array; privateKey: CryptoKey; chainDer: Uint8Array[] };
  /** RFC 3161: (SHA-256 of the signature value, nonce as positive INTEGER bytes) → DER TimeStampResp. */
  timestamp: (imprint: Uint8Array, nonce: Uint8Array) => Promise<Uint8Array>;
  /** Roots the signer's and the TSA's chains must reach. */
  trustedRootsDer: Uint8Array[];
  /** For the later LTV step; a B-T signature embeds no revocation data, so it is not used here. */
  revocation?: { ocsp?: (certDer: Uint8Array, issuerDer: Uint8Array) => Promise<Uint8Array> };
  now: () => Date;
  reason?: string;
  location?: string;
  contactInfo?: string;
}

export interface SignPdfResult {
  /** The new revision: the input bytes followed by one incremental update. */
  pdf: Buffer;
  signatureFieldName: string;
  /** The claimed signing time written to /M. */
  signedAt: Date;
}

const BYTE_RANGE_PLACEHOLDER = 9_999_999_999; // ten digits: room for any offset we can patch in
const ascii = new TextEncoder(); // what is patched in is ASCII: digits, spaces, hex

class PlaceholderTooSmall extends Error {
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
const isPrefix = (prefix: Uint8Array, whole: Uint8Array) =>
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

async function signOnce(opts: SignPdfOptions, signedAt: Date, contentsSize: number): Promise<Buffer> {
  const input = opts.pdf;
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
  if (pdf.isEncrypted) {
    throw new PdfSignError('SIGNING_FAILED', 'encrypted PDFs cannot be signed');
  }

  const layout = layoutSignature(pdf, opts.fieldName, placeBoxes(pdf, opts.boxes));
  let image: EmbeddedImage | undefined;
  if (opts.appearance.image) {
    try {
      image = embedSignaturePng(pdf, opts.appearance.image);
    } catch (err) {
      throw new PdfSignError('SIGNING_FAILED', `the signature image is not a readable PNG: ${(err as Error).message}`);
    }
  }
  const fonts = registerAppearanceFonts(pdf);
  const appearanceFor = ({ rect: [x1, y1, x2, y2], rotation }: WidgetPlacement) =>
    createAppearanceStream(pdf, x2 - x1, y2 - y1, rotation, opts.appearance, { ...fonts, image });
  refreshWidget(pdf, layout.widget, appearanceFor(layout.widget));
  const description = `${opts.appearance.signerName}: ${formatSignedAt(opts.appearance.signedAt, opts.appearance.locale ?? 'es')}`;
  for (const stamp of layout.stamps) {
    writeStamp(pdf, stamp, appearanceFor(stamp), description);
  }

  // PDF 32000-1 §12.8.1 Table 252; EN 319 142-1 §6.3 (SubFilter ETSI.CAdES.detached; /M is the
  // claimed signing time, there being no CMS signing-time).
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
  const sigRef = pdf.register(sigDict);
  layout.fieldDict.set('V', sigRef);

  // Patched in place below, not copied first (10 MB more for a large file): the bytes are the
  // library's fresh output buffer. Output that could share the input's memory (nothing appended)
  // fails the length check before anything is written.
  const out = await pdf.save({ incremental: true });
  if (out.length <= input.length || out.buffer === input.buffer || !isPrefix(input, out)) {
    throw new PdfSignError(
      'NOT_INCREMENTAL',
      'the PDF library did not append to the file; refusing a rewrite that would break earlier signatures',
    );
  }

  // §12.8.1: /ByteRange covers the whole file except the /Contents value, its < > included.
  const at = locatePlaceholders(out, input.length, sigRef);
  const byteRange = [0, at.cOpen, at.cClose + 1, out.length - (at.cClose + 1)];
  const brText = `[${byteRange.join(' ')}`;
  const brWidth = at.brClose - at.brOpen;
  if (brText.length > brWidth) {
    throw new PdfSignError('SIGNING_FAILED', 'the file is too large for the /ByteRange placeholder');
  }
  out.set(ascii.encode(brText.padEnd(brWidth, ' ')), at.brOpen);
  // The two ranges are hashed where they lie: no 10 MB copy to join them.
  const contentDigest = new Uint8Array(
    createHash('sha256').update(out.subarray(0, byteRange[1])).update(out.subarray(byteRange[2])).digest(),
  );

  const { signedData, signatureValue } = await createCadesSignature({
    signer: opts.signer,
    contentDigest,
    trustedRootsDer: opts.trustedRootsDer,
    at: signedAt,
  });

  // Gap 3: the signature time-stamp is over the signature value (EN 319 122-1 §5.3), with a fresh
  // nonce (RFC 3161 §2.4.1) whose first byte keeps the INTEGER positive and minimally encoded.
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
      untrustedDer: opts.signer.chainDer,
    }));
  } catch (err) {
    if (err instanceof PkiError) {
      throw new PdfSignError('TIMESTAMP_INVALID', `time-stamp reply refused: ${err.message}`);
    }
    throw err;
  }
  addSignatureTimestamp(signedData, tokenDer);
  const cms = encodeCms(signedData);
  const hex = Buffer.from(cms).toString('hex');
  const room = at.cClose - at.cOpen - 1;
  if (hex.length > room) {
    throw new PlaceholderTooSmall(cms.length);
  }
  out.set(ascii.encode(hex.padEnd(room, '0')), at.cOpen + 1);

  if (!isPrefix(input, out)) {
    throw new PdfSignError('NOT_INCREMENTAL', 'the earlier revision is no longer a prefix of the signed file');
  }
  return Buffer.from(out.buffer, out.byteOffset, out.length);
}

/**
 * Adds this signer's signature as one incremental revision. Throws PdfSignError (and returns
 * nothing) when the file cannot take a revision, a box is invalid, the time-stamp fails its checks
 * or the signer's key, certificate or chain are not usable.
 */
export async function signPdf(opts: SignPdfOptions): Promise<SignPdfResult> {
  if (!opts.fieldName || opts.fieldName.includes('.')) {
    // §12.7.3.2: a period separates the parts of a fully qualified field name.
    throw new PdfSignError('SIGNING_FAILED', 'the field name must be non-empty and contain no period');
  }
  const signedAt = opts.now();
  // Room for the certificates, the signature and a time-stamp token with its own chain.
  const certBytes = opts.signer.chainDer.reduce((sum, c) => sum + c.length, opts.signer.certificateDer.length);
  let size = certBytes + 12_288;
  for (let attempt = 0; ; attempt++) {
    try {
      const pdf = await signOnce(opts, signedAt, size);
      return { pdf, signatureFieldName: opts.fieldName, signedAt };
    } catch (err) {
      if (err instanceof PlaceholderTooSmall && attempt === 0) {
        size = err.needed + 4_096; // a second token may be larger than the first by a few bytes
        continue;
      }
      if (err instanceof PdfSignError) {
        throw err;
      }
      throw new PdfSignError('SIGNING_FAILED', `signing failed: ${(err as Error).message}`);
    }
  }
}
