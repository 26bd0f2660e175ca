// A signature whose private key stays with the signer (the SAT e.firma, whose key never leaves the
// signer's browser; an own certificate; a remote provider's credential), in two steps around the
// signer's own signature, RSA or ECDSA, whose hash the key decides (pki/cms/external-scheme.ts):
//  prepare: the revision (appearance, signature dictionary, /ByteRange) with a zero-filled /Contents
//           and the CAdES signed attributes (signing-certificate-v2 of the signer's certificate)
//           whose DER SET OF is what the signer signs (RFC 5652 §5.4);
//  finish:  the signature value is checked against the certificate, the CMS is assembled with the
//           chain, the signature time-stamp added, and the CMS written into the placeholder.
// The CMS of both steps is pki/cms's (external-signed-data.ts); the revision is written here. The
// caller stores what prepare returns, so the two steps may run in different processes. The
// placeholder cannot grow once the signer has signed (the signed digest covers its length), so
// prepare reserves room for a time-stamp token with its chain. Pure: clock and TSA are parameters.
import { createHash } from 'node:crypto';
import {
  type ExternalScheme,
  checkExternalSigner,
  externalScheme,
  externalSignedAttributes,
  externalSignedData,
  nodeHashName,
} from '../pki/cms/index.js';
import { PdfSignError, cmsStep } from './sign-errors.js';
import type { SignPdfOptions } from './sign-pdf.js';
import { PlaceholderTooSmall, embedCms, isPrefix, stampSignature, writeRevision, type RevisionOptions } from './signature-revision.js';

/** Room for the CMS beyond the certificates: the signature value and a time-stamp token with its chain. */
const CONTENTS_MARGIN = 24_576;

export interface PrepareExternalOptions extends RevisionOptions {
  /** The signer's certificate (DER); its key must be RSA or ECDSA on P-256, P-384 or P-521. */
  certificateDer: Uint8Array;
  /** The CA certificates the CMS will carry (leaf excluded). */
  chainDer: Uint8Array[];
  now: () => Date;
}

/** What finish needs back; every field is plain data the caller stores. */
export interface PreparedExternalSignature {
  /** The revision with a zero-filled /Contents. */
  pdf: Buffer;
  byteRange: number[];
  contentsStart: number;
  contentsEnd: number;
  /** DER of the signed attributes as a SET OF: the bytes the signer signs. */
  signedAttributes: Buffer;
  /** The claimed signing time written to /M. */
  signedAt: Date;
  /** How the signer signs signedAttributes. */
  scheme: ExternalScheme;
}

/** The digest of the bytes /ByteRange covers, with the scheme's hash. */
function coveredDigest(pdf: Uint8Array, byteRange: number[], scheme: ExternalScheme): Buffer {
  const [, len1, start2, len2] = byteRange;
  return createHash(nodeHashName(scheme.hash))
    .update(pdf.subarray(0, len1))
    .update(pdf.subarray(start2, start2 + len2))
    .digest();
}

export async function prepareExternalSignature(opts: PrepareExternalOptions): Promise<PreparedExternalSignature> {
  if (!opts.fieldName || opts.fieldName.includes('.')) {
    throw new PdfSignError('SIGNING_FAILED', 'the field name must be non-empty and contain no period');
  }
  const leaf = await cmsStep(() => checkExternalSigner(opts.certificateDer));
  const signedAt = opts.now();
  const size = opts.chainDer.reduce((sum, c) => sum + c.length, opts.certificateDer.length) + CONTENTS_MARGIN;
  const rev = await writeRevision(opts, signedAt, size);
  const scheme = await cmsStep(() => externalScheme(opts.certificateDer));
  // writeRevision's digest is SHA-256; a P-384 or P-521 key signs with a longer hash throughout.
  const digest = scheme.hash === 'SHA-256' ? rev.contentDigest : coveredDigest(rev.bytes, rev.byteRange, scheme);
  const signedAttributes = externalSignedAttributes(leaf, digest);
  return {
    pdf: Buffer.from(rev.bytes.buffer, rev.bytes.byteOffset, rev.bytes.length),
    byteRange: rev.byteRange,
    contentsStart: rev.contentsStart,
    contentsEnd: rev.contentsEnd,
    signedAttributes,
    signedAt,
    scheme,
  };
}

export interface FinishExternalOptions {
  /** The revision the preparation was made on: it must still be a prefix of the result. */
  original: Uint8Array;
  prepared: Omit<PreparedExternalSignature, 'signedAt' | 'scheme'>;
  certificateDer: Uint8Array;
  chainDer: Uint8Array[];
  /** The signer's signature over prepared.signedAttributes, under the scheme of their key. */
  signatureValue: Uint8Array;
  timestamp: SignPdfOptions['timestamp'];
  /** Roots the time-stamp authority must chain to. */
  timestampRootsDer: Uint8Array[];
}

/** The signed revision. Throws PdfSignError SIGNATURE_MISMATCH when the value does not verify. */
export async function finishExternalSignature(opts: FinishExternalOptions): Promise<Buffer> {
  const { prepared } = opts;
  // The stored revision must be the one the signed digest is about, and still extend the original.
  const scheme = await cmsStep(() => externalScheme(opts.certificateDer));
  const actual = coveredDigest(prepared.pdf, prepared.byteRange, scheme);
  const signedData = await cmsStep(() =>
    externalSignedData({
      signedAttributes: prepared.signedAttributes,
      signatureValue: opts.signatureValue,
      contentDigest: actual,
      certificateDer: opts.certificateDer,
      chainDer: opts.chainDer,
    }),
  );
  if (!isPrefix(opts.original, prepared.pdf)) {
    throw new PdfSignError('NOT_INCREMENTAL', 'the earlier revision is not a prefix of the prepared one');
  }
  // The time stamp is over the value as the CMS carries it (an ECDSA r || s becomes DER).
  const carried = new Uint8Array(signedData.signerInfos[0].signature.valueBlock.valueHexView);
  await stampSignature(signedData, carried, {
    timestamp: opts.timestamp,
    trustedRootsDer: opts.timestampRootsDer,
    untrustedDer: [opts.certificateDer, ...opts.chainDer],
  });
  // embedCms patches in place: work on a copy, so that a failed finish leaves the stored bytes as they were.
  const rev = { ...prepared, bytes: new Uint8Array(prepared.pdf), contentDigest: actual };
  try {
    return embedCms(opts.original, rev, signedData);
  } catch (err) {
    if (err instanceof PlaceholderTooSmall) {
      throw new PdfSignError('SIGNING_FAILED', `the signature needs ${err.needed} bytes, more than the room reserved when it was prepared`);
    }
    throw err;
  }
}
