// A signature whose private key stays with the signer (the SAT e.firma, whose key never leaves the
// signer's browser), in two steps around the signer's own RSASSA-PKCS1-v1_5 SHA-256 signature:
//  prepare: the revision (appearance, signature dictionary, /ByteRange) with a zero-filled /Contents
//           and the CAdES signed attributes (signing-certificate-v2 of the signer's certificate)
//           whose DER SET OF is what the signer signs (RFC 5652 §5.4);
//  finish:  the signature value is checked against the certificate, the CMS is assembled with the
//           chain, the signature time-stamp added, and the CMS written into the placeholder.
// The caller stores what prepare returns, so the two steps may run in different processes. The
// placeholder cannot grow once the signer has signed (the signed digest covers its length), so
// prepare reserves room for a time-stamp token with its chain. Pure: clock and TSA are parameters.
import { X509Certificate, createHash, verify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { cachedCertificate, encodedCertificate } from '../pki/index.js';
import { cadesSignedAttributes, checkKeyUsage } from './cades-signature.js';
import { PdfSignError } from './sign-errors.js';
import type { SignPdfOptions } from './sign-pdf.js';
import { PlaceholderTooSmall, embedCms, isPrefix, stampSignature, writeRevision, type RevisionOptions } from './signature-revision.js';

const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
const OID_SHA256_WITH_RSA = '1.2.840.113549.1.1.11';
/** Room for the CMS beyond the certificates: the signature value and a time-stamp token with its chain. */
const CONTENTS_MARGIN = 24_576;

export interface PrepareExternalOptions extends RevisionOptions {
  /** The signer's certificate (DER); its key must be RSA. */
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
}

export async function prepareExternalSignature(opts: PrepareExternalOptions): Promise<PreparedExternalSignature> {
  if (!opts.fieldName || opts.fieldName.includes('.')) {
    throw new PdfSignError('SIGNING_FAILED', 'the field name must be non-empty and contain no period');
  }
  let leaf: pkijs.Certificate;
  try {
    leaf = cachedCertificate(opts.certificateDer).pkijs;
  } catch (err) {
    throw new PdfSignError('SIGNING_FAILED', `the signer certificate cannot be parsed: ${(err as Error).message}`);
  }
  if (new X509Certificate(opts.certificateDer).publicKey.asymmetricKeyType !== 'rsa') {
    throw new PdfSignError('SIGNING_FAILED', 'the signer certificate does not carry an RSA key');
  }
  checkKeyUsage(leaf);
  const signedAt = opts.now();
  const size = opts.chainDer.reduce((sum, c) => sum + c.length, opts.certificateDer.length) + CONTENTS_MARGIN;
  const rev = await writeRevision(opts, signedAt, size);
  const attributes = new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: cadesSignedAttributes(leaf, rev.contentDigest) });
  const signedAttributes = Buffer.from(attributes.toSchema().toBER(false));
  signedAttributes[0] = 0x31; // §5.4: signed as an explicit SET OF, not the [0] IMPLICIT of the SignerInfo
  return {
    pdf: Buffer.from(rev.bytes.buffer, rev.bytes.byteOffset, rev.bytes.length),
    byteRange: rev.byteRange,
    contentsStart: rev.contentsStart,
    contentsEnd: rev.contentsEnd,
    signedAttributes,
    signedAt,
  };
}

export interface FinishExternalOptions {
  /** The revision the preparation was made on: it must still be a prefix of the result. */
  original: Uint8Array;
  prepared: Omit<PreparedExternalSignature, 'signedAt'>;
  certificateDer: Uint8Array;
  chainDer: Uint8Array[];
  /** The signer's RSASSA-PKCS1-v1_5 SHA-256 signature over prepared.signedAttributes. */
  signatureValue: Uint8Array;
  timestamp: SignPdfOptions['timestamp'];
  /** Roots the time-stamp authority must chain to. */
  timestampRootsDer: Uint8Array[];
}

/** The signed revision. Throws PdfSignError SIGNATURE_MISMATCH when the value does not verify. */
export async function finishExternalSignature(opts: FinishExternalOptions): Promise<Buffer> {
  const { prepared } = opts;
  const publicKey = new X509Certificate(opts.certificateDer).publicKey;
  let verified = false;
  try {
    verified = verify('sha256', prepared.signedAttributes, publicKey, opts.signatureValue);
  } catch {
    verified = false;
  }
  if (!verified) {
    throw new PdfSignError('SIGNATURE_MISMATCH', 'the signature value does not verify with the certificate: was it made with its key?');
  }
  const attributes = parseAttributes(prepared.signedAttributes);
  // The stored revision must be the one the signed digest is about, and still extend the original.
  const digest = attributes.find((a) => a.type === OID_MESSAGE_DIGEST)?.values[0];
  const [, len1, start2, len2] = prepared.byteRange;
  const actual = createHash('sha256')
    .update(prepared.pdf.subarray(0, len1))
    .update(prepared.pdf.subarray(start2, start2 + len2))
    .digest();
  if (!(digest instanceof asn1js.OctetString) || !actual.equals(Buffer.from(digest.valueBlock.valueHexView))) {
    throw new PdfSignError('SIGNING_FAILED', 'the prepared revision does not match its signed attributes');
  }
  if (!isPrefix(opts.original, prepared.pdf)) {
    throw new PdfSignError('NOT_INCREMENTAL', 'the earlier revision is not a prefix of the prepared one');
  }

  const leaf = cachedCertificate(opts.certificateDer).pkijs;
  const sha256 = () => new pkijs.AlgorithmIdentifier({ algorithmId: OID_SHA256, algorithmParams: new asn1js.Null() });
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: leaf.issuer, serialNumber: leaf.serialNumber }),
    digestAlgorithm: sha256(),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
    signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID_SHA256_WITH_RSA, algorithmParams: new asn1js.Null() }),
    signature: new asn1js.OctetString({ valueHex: opts.signatureValue }),
  });
  // What the CMS will carry must be, byte for byte, what was signed.
  const reencoded = Buffer.from(signerInfo.signedAttrs!.toSchema().toBER(false));
  reencoded[0] = 0x31;
  if (!reencoded.equals(prepared.signedAttributes)) {
    throw new PdfSignError('SIGNING_FAILED', 'the signed attributes do not encode back to the bytes that were signed');
  }
  const leafDer = encodedCertificate(leaf);
  const chain = opts.chainDer.map((der) => cachedCertificate(der).pkijs).filter((c) => !encodedCertificate(c).equals(leafDer));
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [sha256()],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: '1.2.840.113549.1.7.1' }), // detached
    certificates: [leaf, ...chain],
    signerInfos: [signerInfo],
  });
  await stampSignature(signedData, opts.signatureValue, {
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

function parseAttributes(der: Uint8Array): pkijs.Attribute[] {
  const parsed = asn1js.fromBER(new Uint8Array(der));
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Set)) {
    throw new PdfSignError('SIGNING_FAILED', 'the stored signed attributes are not a DER SET');
  }
  return parsed.result.valueBlock.value.map((schema) => new pkijs.Attribute({ schema }));
}
