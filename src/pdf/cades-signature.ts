// The CMS SignedData of a PAdES baseline signature (ETSI EN 319 142-1 §6.3, over CAdES per
// EN 319 122-1), built with pkijs rather than @libpdf/core because the library's CAdES builder is
// not exported and the only way to reach it, sign(), always adds the CMS signing-time attribute
// (it defaults the time to `new Date()`), which EN 319 142-1 §6.3 (Table 1) says shall not be
// present in PAdES baseline signatures: the claimed signing time is the /M of the signature
// dictionary (PDF 32000-1 §12.8.1), the proven one the signature time-stamp.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { cachedCertificate, derElement, encodedCertificate as certificateDer, validateChain } from '../pki/index.js';
import { PdfSignError } from './sign-errors.js';

const OID_DATA = '1.2.840.113549.1.7.1';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
const OID_SIGNATURE_TIME_STAMP = '1.2.840.113549.1.9.16.2.14';

export interface CmsSigner {
  certificateDer: Uint8Array;
  privateKey: CryptoKey;
  /** Leaf first, then the CAs. */
  chainDer: Uint8Array[];
}

const failed = (message: string): never => {
  throw new PdfSignError('SIGNING_FAILED', message);
};

/**
 * ESS signing-certificate-v2 (RFC 5035 §3, required by EN 319 122-1 §5.2.2.3): binds the signer's
 * certificate into the signed attributes so it cannot be swapped for another with the same key.
 * hashAlgorithm is omitted because SHA-256 is its DEFAULT (DER forbids encoding defaults).
 */
function signingCertificateV2(cert: pkijs.Certificate): pkijs.Attribute {
  const certHash = createHash('sha256').update(certificateDer(cert)).digest();
  const issuerSerial = new asn1js.Sequence({
    value: [
      // GeneralNames { directoryName [4] Name }: explicit, Name being a CHOICE (RFC 5280 App. A.2).
      new asn1js.Sequence({ value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [cert.issuer.toSchema()] })] }),
      new asn1js.Integer({ valueHex: cert.serialNumber.valueBlock.valueHexView }),
    ],
  });
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash }), issuerSerial] });
  return new pkijs.Attribute({
    type: OID_SIGNING_CERTIFICATE_V2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
}

/** The signed attributes of a PAdES baseline signature: content-type, message-digest, signing-certificate-v2. */
export function cadesSignedAttributes(leaf: pkijs.Certificate, contentDigest: Uint8Array): pkijs.Attribute[] {
  return [
    new pkijs.Attribute({ type: OID_CONTENT_TYPE, values: [new asn1js.ObjectIdentifier({ value: OID_DATA })] }),
    new pkijs.Attribute({ type: OID_MESSAGE_DIGEST, values: [new asn1js.OctetString({ valueHex: contentDigest })] }),
    signingCertificateV2(leaf),
  ];
}

/** RFC 5280 §4.2.1.3: a key certified without digitalSignature/nonRepudiation must not sign. */
export function checkKeyUsage(cert: pkijs.Certificate): void {
  const ext = cert.extensions?.find((e) => e.extnID === '2.5.29.15');
  if (!ext) {
    return;
  }
  const bits = (ext.parsedValue as asn1js.BitString).valueBlock.valueHexView;
  const first = bits[0] ?? 0;
  if ((first & 0x80) === 0 && (first & 0x40) === 0) {
    failed('the signer certificate allows neither digitalSignature nor nonRepudiation');
  }
}

/** The key must be one WebCrypto and pkijs can sign SHA-256 CMS with. */
function checkKey(key: CryptoKey): void {
  const alg = key.algorithm as { name: string; hash?: { name: string } };
  if (!['RSASSA-PKCS1-v1_5', 'RSA-PSS', 'ECDSA'].includes(alg.name)) {
    failed(`unsupported key algorithm ${alg.name}`);
  }
  // An RSA CryptoKey is bound to one hash; it must be the SHA-256 named in the SignerInfo.
  if (alg.hash && alg.hash.name !== 'SHA-256') {
    failed(`the RSA key is bound to ${alg.hash.name}; SHA-256 is required`);
  }
  if (!key.usages.includes('sign')) {
    failed('the private key is not usable for signing');
  }
}

/**
 * Signs `contentDigest` (SHA-256 of the /ByteRange bytes) as a detached CAdES signature with
 * content-type, message-digest and signing-certificate-v2 signed attributes, after checking that
 * the signer chains to a trusted root at `at`; then verifies the result from its own DER.
 */
export async function createCadesSignature(opts: {
  signer: CmsSigner;
  contentDigest: Uint8Array;
  trustedRootsDer: Uint8Array[];
  at: Date;
}): Promise<{ signedData: pkijs.SignedData; signatureValue: Uint8Array }> {
  let leaf: pkijs.Certificate;
  let chain: pkijs.Certificate[];
  try {
    leaf = cachedCertificate(opts.signer.certificateDer).pkijs;
    chain = opts.signer.chainDer.map((der) => cachedCertificate(der).pkijs);
  } catch (err) {
    return failed(`a signer certificate cannot be parsed: ${(err as Error).message}`);
  }
  checkKey(opts.signer.privateKey);
  checkKeyUsage(leaf);
  const path = validateChain(opts.signer.certificateDer, {
    trustedRootsDer: opts.trustedRootsDer,
    untrustedDer: opts.signer.chainDer,
    at: [opts.at],
  });
  if (!path.ok) {
    const { problem } = path;
    // A certificate not yet valid at the signing time means the clock is behind the one that made
    // the PKI (a backup restored on a machine whose clock is wrong): say so, not "untrusted chain".
    if (problem.kind === 'not_yet_valid') {
      throw new PdfSignError(
        'CLOCK_BEHIND',
        `the clock says ${problem.at.toISOString()}, earlier than the start of validity of ${problem.subject} ` +
          `(${problem.notBefore.toISOString()}): set the machine's clock right`,
      );
    }
    failed(`the signer certificate does not chain to a trusted root: ${problem.message}`);
  }
  const leafDer = certificateDer(leaf);
  const others = chain.filter((c) => !certificateDer(c).equals(leafDer));

  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: leaf.issuer, serialNumber: leaf.serialNumber }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({
      type: 0,
      attributes: cadesSignedAttributes(leaf, opts.contentDigest),
    }),
  });
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID_DATA }), // detached: no eContent
    certificates: [leaf, ...others],
    signerInfos: [signerInfo],
  });
  try {
    // Signs the DER SET OF the signed attributes (RFC 5652 §5.4); converts ECDSA to DER.
    await signedData.sign(opts.signer.privateKey, 0, 'SHA-256');
  } catch (err) {
    failed(`the signing key refused to sign: ${(err as Error).message}`);
  }
  // A key that does not match the certificate would give a signature no one can verify.
  let verified = false;
  try {
    // Verified from its own DER, as a validator will see it: the message digest it carries must be
    // the content's, and the signature over the encoded signed attributes must verify with the
    // certificate's key. This is what SignedData.verify() does, except that it hashes the content
    // again (10 MB for a large file, after two copies of it) where the digest is already known.
    const reparsed = signerInfoOf(encodeCms(signedData));
    const digestAttr = reparsed.signedAttrs?.attributes.find((a) => a.type === OID_MESSAGE_DIGEST)?.values[0];
    if (
      !(digestAttr instanceof asn1js.OctetString) ||
      !Buffer.from(digestAttr.valueBlock.valueHexView).equals(Buffer.from(opts.contentDigest))
    ) {
      failed("the new signature does not carry the content's digest");
    }
    verified = await pkijs
      .getCrypto(true)
      .verifyWithPublicKey(
        reparsed.signedAttrs!.encodedValue,
        reparsed.signature,
        leaf.subjectPublicKeyInfo,
        reparsed.signatureAlgorithm,
        'SHA-256',
      );
  } catch (err) {
    if (err instanceof PdfSignError) {
      throw err;
    }
    failed(`the new signature does not verify: ${(err as Error).message}`);
  }
  if (!verified) {
    failed("the new signature does not verify with the certificate: is the key the certificate's?");
  }
  return { signedData, signatureValue: new Uint8Array(signerInfo.signature.valueBlock.valueHexView) };
}

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
    throw new PdfSignError('TIMESTAMP_INVALID', 'the time-stamp token is not one DER element');
  }
  timestampTokens.set(signedData, tokenDer);
}

/**
 * The ContentInfo DER that goes, hex-encoded, into /Contents: pkijs's encoding, except for what is
 * written as the bytes already known for it, each parsed and encoded again at every call
 * otherwise (about half a millisecond a certificate, more for a token): the certificates, as
 * certificateDer gives them, and the signature time-stamp token, as the TSA encoded it.
 */
export function encodeCms(signedData: pkijs.SignedData): Uint8Array<ArrayBuffer> {
  const certificates = signedData.certificates ?? [];
  const plain = certificates.every((c) => c instanceof pkijs.Certificate) && !signedData.crls;
  // SignedData ::= SEQUENCE { version, digestAlgorithms, encapContentInfo, certificates [0]
  // IMPLICIT SET OF (in the order given, as pkijs writes them), signerInfos } (RFC 5652 §5.1).
  // Without certificates pkijs computes the same version (1 for id-data content and v1 signers).
  let parts: Uint8Array[];
  if (plain) {
    signedData.certificates = undefined;
    try {
      parts = (signedData.toSchema(true) as asn1js.Sequence).valueBlock.value.map((b) => new Uint8Array(b.toBER(false)));
    } finally {
      signedData.certificates = certificates;
    }
    if (certificates.length > 0) {
      parts.splice(parts.length - 1, 0, derElement(0xa0, (certificates as pkijs.Certificate[]).map(certificateDer)));
    }
  } else {
    parts = (signedData.toSchema(true) as asn1js.Sequence).valueBlock.value.map((b) => new Uint8Array(b.toBER(false)));
  }
  const token = timestampTokens.get(signedData);
  if (token) {
    // SignerInfo ::= SEQUENCE { ..., signature, unsignedAttrs [1] IMPLICIT SET OF Attribute }, the
    // one attribute being SEQUENCE { id-aa-signatureTimeStampToken, SET { token } }.
    const info = signedData.signerInfos[0].toSchema() as asn1js.Sequence;
    const fields = info.valueBlock.value.map((b) => new Uint8Array(b.toBER(false)));
    const attribute = derElement(0x30, [
      new Uint8Array(new asn1js.ObjectIdentifier({ value: OID_SIGNATURE_TIME_STAMP }).toBER(false)),
      derElement(0x31, [token]),
    ]);
    parts[parts.length - 1] = derElement(0x31, [derElement(0x30, [...fields, derElement(0xa1, [attribute])])]);
  }
  const contentType = new Uint8Array(new asn1js.ObjectIdentifier({ value: OID_SIGNED_DATA }).toBER(false));
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
 * The SignerInfo of a CMS this module encoded, read back from its bytes: the DER headers are
 * walked down to it (ContentInfo → [0] → SignedData → its last field, signerInfos → the one
 * SignerInfo) and only that element is parsed, not the certificates before it.
 */
function signerInfoOf(cms: Uint8Array<ArrayBuffer>): pkijs.SignerInfo {
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
