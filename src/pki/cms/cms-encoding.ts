// The DER of a signature's CMS (RFC 5652 §3, §5.1) as it goes into a PDF's /Contents, written
// from what is already encoded where that is known (certificates, a time-stamp token), and the
// SignerInfo read back from those bytes, for the signer's own check of what it made.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { encodedCertificate } from '../certificate-cache.js';
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

/**
 * The ContentInfo DER that goes, hex-encoded, into /Contents: pkijs's encoding, except for what is
 * written as the bytes already known for it, each parsed and encoded again at every call
 * otherwise (about half a millisecond a certificate, more for a token): the certificates, as
 * encodedCertificate gives them, and the signature time-stamp token, as the TSA encoded it.
 */
export function encodeCms(signedData: pkijs.SignedData): Uint8Array<ArrayBuffer> {
  const parts = signedDataFields(signedData);
  const token = timestampTokens.get(signedData);
  if (token) {
    // SignerInfo ::= SEQUENCE { ..., signature, unsignedAttrs [1] IMPLICIT SET OF Attribute }, the
    // one attribute being SEQUENCE { id-aa-signatureTimeStampToken, SET { token } }.
    const info = signedData.signerInfos[0].toSchema() as asn1js.Sequence;
    const fields = info.valueBlock.value.map((b) => new Uint8Array(b.toBER(false)));
    const attribute = derElement(0x30, [
      new Uint8Array(new asn1js.ObjectIdentifier({ value: OID.signatureTimeStampToken }).toBER(false)),
      derElement(0x31, [token]),
    ]);
    parts[parts.length - 1] = derElement(0x31, [derElement(0x30, [...fields, derElement(0xa1, [attribute])])]);
  }
  const contentType = new Uint8Array(new asn1js.ObjectIdentifier({ value: OID.signedData }).toBER(false));
  return new Uint8Array(derElement(0x30, [contentType, derElement(0xa0, [derElement(0x30, parts)])]));
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
  const info = derContent(cms, 0, cms.length);
  if (cms[0] !== 0x30 || info.end !== cms.length) {
    throw new Error('the CMS is not one DER SEQUENCE');
  }
  const oid = derContent(cms, info.start, info.end);
  const explicit = derContent(cms, oid.end, info.end);
  const signedData = derContent(cms, explicit.start, explicit.end);
  let field = signedData.start;
  let last = -1;
  while (field < signedData.end) {
    last = field;
    field = derContent(cms, field, signedData.end).end;
  }
  if (last < 0 || cms[last] !== 0x31) {
    throw new Error('the SignedData does not end with its signerInfos');
  }
  const signerInfos = derContent(cms, last, signedData.end);
  const element = derContent(cms, signerInfos.start, signerInfos.end);
  const parsed = asn1js.fromBER(cms.subarray(signerInfos.start, element.end));
  if (parsed.offset === -1) {
    throw new Error(parsed.result.error);
  }
  return new pkijs.SignerInfo({ schema: parsed.result });
}
