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
// the signature dictionary and /ByteRange are done here, the CMS in pki/cms (cades-signature.ts, with
// pkijs), the revision itself in signature-revision.ts, which two-step signatures
// (external-signature.ts) share.
// Pure, as pdf/ must be: the signer, the clock and the TSA are parameters.
import { createCadesSignature } from '../pki/cms/index.js';
import { PdfSignError, cmsStep } from './sign-errors.js';
import type { SignerFieldFill } from './signer-fields.js';
import { PlaceholderTooSmall, embedCms, stampSignature, writeRevision } from './signature-revision.js';

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
  /** Lines above the signer's name (an endorsement's type, text and endorsee); the first in bold. */
  heading?: string[];
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
  /** The values of this signer's fields (signer-fields.ts), written in the revision this signature covers. */
  fieldFills?: SignerFieldFill[];
}

export interface SignPdfResult {
  /** The new revision: the input bytes followed by one incremental update. */
  pdf: Buffer;
  signatureFieldName: string;
  /** The claimed signing time written to /M. */
  signedAt: Date;
}

async function signOnce(opts: SignPdfOptions, signedAt: Date, contentsSize: number): Promise<Buffer> {
  const rev = await writeRevision(opts, signedAt, contentsSize);
  const { signedData, signatureValue, cms } = await cmsStep(() =>
    createCadesSignature({ signer: opts.signer, contentDigest: rev.contentDigest, trustedRootsDer: opts.trustedRootsDer, at: signedAt }),
  );
  await stampSignature(signedData, signatureValue, { ...opts, untrustedDer: opts.signer.chainDer });
  return embedCms(opts.pdf, rev, signedData, cms); // the bytes checked, with the token added
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
