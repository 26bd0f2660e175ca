// The DER of a signature's CMS (RFC 5652 §3, §5.1) as it goes into a PDF's /Contents, written
// from what is already encoded where that is known (certificates, a time-stamp token), and the
// SignerInfo read back from those bytes, for the signer's own check of what it made.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { encodedCertificate } from '../certificate-cache.js';
import { type DerElement, derChildren } from '../der-elements.js';
import { derElement } from '../primitives.js';
import { OID } from './oids.js';
import { CmsSignError } from './sign-error.js';

/** Time-stamp tokens added to a SignedData: encodeCms writes them as the TSA encoded them. */
const timestampTokens = new WeakMap<pkijs.SignedData, Uint8Array>();

/** Adds the signature-time-stamp unsigned attribute (RFC 3161 Appendix A; EN 319 122-1 §5.3). */
export function addSignatureTimestamp(signedData: pkijs.SignedData, tokenDer: Uint8Array): void {
  // The token goes into the CMS as the bytes the TSA signed: encodeCms copies them and never
  // re-encodes them (a re-encoding could change a token the TSA's signature covers). So it only
  // has to be one SEQUENCE (a ContentInfo) of definite length, filling the bytes given.
  let whole = false;
  try {
    whole = tokenDer[0] === 0x30 && derContent(tokenDer, 0, tokenDer.length).end === tokenDer.length;
  } catch {
    whole = false;
  }
  if (!whole || signedData.signerInfos.length !== 1) {
    throw new CmsSignError('TIMESTAMP_INVALID', 'the time-stamp token is not one DER element');
  }
  timestampTokens.set(signedData, tokenDer);
}

/** The encodings of SignedData's fields, the certificates written as encodedCertificate gives them. */
function signedDataFields(signedData: pkijs.SignedData): Uint8Array[] {
  const certificates = signedData.certificates ?? [];
  const fieldsOf = () => (signedData.toSchema(true) as asn1js.Sequence).valueBlock.value.map((b) => new Uint8Array(b.toBER(false)));
  if (!certificates.every((c) => c instanceof pkijs.Certificate) || signedData.crls) {
    return fieldsOf();
  }
  // SignedData ::= SEQUENCE { version, digestAlgorithms, encapContentInfo, certificates [0]
  // IMPLICIT SET OF (in the order given, as pkijs writes them), signerInfos } (RFC 5652 §5.1).
  // Without certificates pkijs computes the same version (1 for id-data content and v1 signers).
  let parts: Uint8Array[];
  signedData.certificates = undefined;
  try {
    parts = fieldsOf();
  } finally {
    signedData.certificates = certificates;
  }
  if (certificates.length > 0) {
    parts.splice(parts.length - 1, 0, derElement(0xa0, (certificates as pkijs.Certificate[]).map(encodedCertificate)));
  }
  return parts;
}

const oidDer = (oid: string) => new Uint8Array(new asn1js.ObjectIdentifier({ value: oid }).toBER(false));
const SIGNED_DATA = oidDer(OID.signedData);
const ID_DATA = oidDer(OID.data);
/** CMSVersion 1: id-data content, signers named by issuer and serial number (RFC 5652 §5.1, §5.3). */
const VERSION_1 = Uint8Array.of(0x02, 0x01, 0x01);
/** SHA-256's AlgorithmIdentifier with NULL parameters, as pkijs writes it. */
const SHA256_WITH_NULL = derElement(0x30, [oidDer(OID.sha256), Uint8Array.of(0x05, 0x00)]);

/** The issuer Name and serialNumber of a DER certificate, as the bytes they are (RFC 5280 §4.1). */
function issuerAndSerial(certificateDer: Uint8Array): Uint8Array[] {
  const certificate = derChildren(certificateDer);
  const tbs = certificate?.[0]?.tag === 0x30 ? derChildren(certificateDer, certificate[0]) : undefined;
  const first = tbs?.[0]?.tag === 0xa0 ? 1 : 0; // version [0] EXPLICIT, absent for v1
  const serial = tbs?.[first];
  const issuer = tbs?.[first + 2];
  if (serial?.tag !== 0x02 || issuer?.tag !== 0x30) {
    throw new Error('the signer certificate is not DER');
  }
  return [certificateDer.subarray(issuer.start, issuer.end), certificateDer.subarray(serial.start, serial.end)];
}

/**
 * The ContentInfo DER of a detached SignedData with one SignerInfo, written from bytes already at
 * hand rather than through pkijs's schemas (about half a millisecond a signature): the structure is
 * fixed (RFC 5652 §5.1, §5.3; SHA-256, CMSVersion 1, issuerAndSerialNumber), and each part is what
 * pkijs writes for it (tested against pkijs's encoding of the same SignedData). `signedAttributes`
 * is the DER SET OF that was signed (tag 0x31); the SignerInfo carries it as [0] IMPLICIT.
 */
export function detachedSignedData(opts: {
  certificatesDer: readonly Uint8Array[];
  signedAttributes: Uint8Array;
  signatureAlgorithm: Uint8Array;
  signature: Uint8Array;
}): Uint8Array<ArrayBuffer> {
  const implicitAttributes = Uint8Array.from(opts.signedAttributes);
  implicitAttributes[0] = 0xa0;
  const signerInfo = derElement(0x30, [
    VERSION_1,
    derElement(0x30, issuerAndSerial(opts.certificatesDer[0])),
    SHA256_WITH_NULL,
    implicitAttributes,
    opts.signatureAlgorithm,
    derElement(0x04, [opts.signature]),
  ]);
  const signedData = derElement(0x30, [
    VERSION_1,
    derElement(0x31, [SHA256_WITH_NULL]),
    derElement(0x30, [ID_DATA]), // detached: no eContent
    derElement(0xa0, opts.certificatesDer),
    derElement(0x31, [signerInfo]),
  ]);
  return new Uint8Array(derElement(0x30, [SIGNED_DATA, derElement(0xa0, [signedData])]));
}

/** The ContentInfo DER of a SignedData, without its time-stamp token: pkijs's encoding, except for the certificates. */
export function encodeSignedData(signedData: pkijs.SignedData): Uint8Array<ArrayBuffer> {
  const contentType = new Uint8Array(new asn1js.ObjectIdentifier({ value: OID.signedData }).toBER(false));
  return new Uint8Array(derElement(0x30, [contentType, derElement(0xa0, [derElement(0x30, signedDataFields(signedData))])]));
}

/**
 * The ContentInfo DER that goes, hex-encoded, into /Contents: pkijs's encoding, except for what is
 * written as the bytes already known for it, each parsed and encoded again at every call
 * otherwise (about half a millisecond a certificate, more for a token): the certificates, as
 * encodedCertificate gives them, and the signature time-stamp token, as the TSA encoded it.
 * `encoded`, when given, is this SignedData's DER without the token, made before (createCadesSignature's
 * `cms`, the bytes its signer checked): the token is then added to those very bytes instead of a
 * second encoding of the same objects (about 0.7 ms of pkijs work a signature).
 */
export function encodeCms(signedData: pkijs.SignedData, encoded?: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const cms = encoded ?? encodeSignedData(signedData);
  const token = timestampTokens.get(signedData);
  return token ? withSignatureTimestamp(cms, token) : cms;
}

/**
 * `cms` with the signature-time-stamp attribute added to its one SignerInfo, by the DER headers:
 * SignerInfo ::= SEQUENCE { ..., signature, unsignedAttrs [1] IMPLICIT SET OF Attribute }, the one
 * attribute being SEQUENCE { id-aa-signatureTimeStampToken, SET { token } } (RFC 5652 §5.3, RFC
 * 3161 Appendix A). Every length from the SignerInfo up to the ContentInfo is written anew.
 */
function withSignatureTimestamp(cms: Uint8Array<ArrayBuffer>, token: Uint8Array): Uint8Array<ArrayBuffer> {
  const { contentType, fields, infoFields } = signedDataParts(cms);
  if (infoFields.length === 0 || infoFields[infoFields.length - 1][0] === 0xa1) {
    throw new CmsSignError('SIGNING_FAILED', 'the SignerInfo already has unsigned attributes');
  }
  const attribute = derElement(0x30, [
    new Uint8Array(new asn1js.ObjectIdentifier({ value: OID.signatureTimeStampToken }).toBER(false)),
    derElement(0x31, [token]),
  ]);
  const signerInfos = derElement(0x31, [derElement(0x30, [...infoFields, derElement(0xa1, [attribute])])]);
  return new Uint8Array(derElement(0x30, [contentType, derElement(0xa0, [derElement(0x30, [...fields.slice(0, -1), signerInfos])])]));
}

/**
 * A CMS as encodeCms writes it, by its DER headers (der-elements.ts): the contentType's bytes,
 * SignedData's fields, and its one SignerInfo with that element's fields. Throws when it is not
 * that shape.
 */
function signedDataParts(cms: Uint8Array): {
  contentType: Uint8Array;
  fields: Uint8Array[];
  signerInfo: DerElement;
  infoFields: Uint8Array[];
} {
  const bytesOf = (e: DerElement) => cms.subarray(e.start, e.end);
  const info = derChildren(cms);
  const explicit = info?.length === 2 && info[1].tag === 0xa0 ? derChildren(cms, info[1]) : undefined;
  const signedData = explicit?.length === 1 && explicit[0].tag === 0x30 ? derChildren(cms, explicit[0]) : undefined;
  const signerInfos = signedData?.at(-1)?.tag === 0x31 ? derChildren(cms, signedData.at(-1)!) : undefined;
  const signerInfo = signerInfos?.length === 1 && signerInfos[0].tag === 0x30 ? signerInfos[0] : undefined;
  const infoFields = signerInfo ? derChildren(cms, signerInfo) : undefined;
  if (!info || !signedData || !signerInfo || !infoFields) {
    throw new Error('the CMS is not a DER SignedData with one SignerInfo');
  }
  return { contentType: bytesOf(info[0]), fields: signedData.map(bytesOf), signerInfo, infoFields: infoFields.map(bytesOf) };
}

/** The content octets' bounds of the DER element at `at` (definite lengths only, as DER has). */
function derContent(bytes: Uint8Array, at: number, end: number): { start: number; end: number } {
  if (at + 2 > end) {
    throw new Error('a DER element runs past its parent');
  }
  let i = at + 1;
  const first = bytes[i++];
  let length = first;
  if (first & 0x80) {
    const octets = first & 0x7f;
    if (octets === 0 || octets > 4 || i + octets > end) {
      throw new Error('not a DER length');
    }
    length = 0;
    for (let k = 0; k < octets; k++) {
      length = length * 256 + bytes[i++];
    }
  }
  if (i + length > end) {
    throw new Error('a DER element runs past its parent');
  }
  return { start: i, end: i + length };
}

/**
 * The SignerInfo of a CMS encodeCms wrote, read back from its bytes: the DER headers are walked
 * down to it (ContentInfo → [0] → SignedData → its last field, signerInfos → the one SignerInfo)
 * and only that element is parsed, not the certificates before it.
 */
export function signerInfoOf(cms: Uint8Array<ArrayBuffer>): pkijs.SignerInfo {
  const { signerInfo } = signedDataParts(cms);
  const parsed = asn1js.fromBER(cms.subarray(signerInfo.start, signerInfo.end));
  if (parsed.offset === -1) {
    throw new Error(parsed.result.error);
  }
  return new pkijs.SignerInfo({ schema: parsed.result });
}
