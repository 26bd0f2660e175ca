// The CMS SignedData of a PAdES baseline signature (ETSI EN 319 142-1 §6.3, over CAdES per
// EN 319 122-1), built with pkijs rather than @libpdf/core because the library's CAdES builder is
// not exported and the only way to reach it, sign(), always adds the CMS signing-time attribute
// (it defaults the time to `new Date()`), which EN 319 142-1 §6.3 (Table 1) says shall not be
// present in PAdES baseline signatures: the claimed signing time is the /M of the signature
// dictionary (PDF 32000-1 §12.8.1), the proven one the signature time-stamp.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { certificateDer, chainProblem, own, parseCertificate } from './cert-chain.js';
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

/** RFC 5280 §4.2.1.3: a key certified without digitalSignature/nonRepudiation must not sign. */
function checkKeyUsage(cert: pkijs.Certificate): void {
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
 * the signer chains to a trusted root at `at`. `content` lets the result be verified before use.
 */
export async function createCadesSignature(opts: {
  signer: CmsSigner;
  contentDigest: Uint8Array;
  content: Uint8Array;
  trustedRootsDer: Uint8Array[];
  at: Date;
}): Promise<{ signedData: pkijs.SignedData; signatureValue: Uint8Array }> {
  let leaf: pkijs.Certificate;
  let chain: pkijs.Certificate[];
  try {
    leaf = parseCertificate(opts.signer.certificateDer);
    chain = opts.signer.chainDer.map(parseCertificate);
  } catch (err) {
    return failed(`a signer certificate cannot be parsed: ${(err as Error).message}`);
  }
  checkKey(opts.signer.privateKey);
  checkKeyUsage(leaf);
  const problem = await chainProblem(leaf, chain, opts.trustedRootsDer.map(parseCertificate), opts.at);
  if (problem) {
    failed(`the signer certificate does not chain to a trusted root: ${problem}`);
  }
  const leafDer = certificateDer(leaf);
  const others = chain.filter((c) => !certificateDer(c).equals(leafDer));

  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: leaf.issuer, serialNumber: leaf.serialNumber }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({
      type: 0,
      attributes: [
        new pkijs.Attribute({ type: OID_CONTENT_TYPE, values: [new asn1js.ObjectIdentifier({ value: OID_DATA })] }),
        new pkijs.Attribute({ type: OID_MESSAGE_DIGEST, values: [new asn1js.OctetString({ valueHex: opts.contentDigest })] }),
        signingCertificateV2(leaf),
      ],
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
    // Verified from its own DER, as a validator will see it (pkijs verifies the encoded attributes).
    const info = pkijs.ContentInfo.fromBER(encodeCms(signedData));
    const reparsed = new pkijs.SignedData({ schema: info.content });
    verified = (await reparsed.verify({ signer: 0, data: own(opts.content).buffer, checkChain: false })) as boolean;
  } catch (err) {
    failed(`the new signature does not verify: ${(err as Error).message}`);
  }
  if (!verified) {
    failed('the new signature does not verify with the certificate: is the key the certificate\'s?');
  }
  return { signedData, signatureValue: new Uint8Array(signerInfo.signature.valueBlock.valueHexView) };
}

/** Adds the signature-time-stamp unsigned attribute (RFC 3161 Appendix A; EN 319 122-1 §5.3). */
export function addSignatureTimestamp(signedData: pkijs.SignedData, tokenDer: Uint8Array): void {
  const parsed = asn1js.fromBER(tokenDer);
  // The token is re-encoded inside the SignerInfo; only DER survives that byte for byte, so a
  // BER token (which the TSA's signature might not survive) is refused rather than altered.
  const again = parsed.offset === tokenDer.length ? new Uint8Array(parsed.result.toBER(false)) : new Uint8Array(0);
  if (again.length !== tokenDer.length || !again.every((v, i) => v === tokenDer[i])) {
    throw new PdfSignError('TIMESTAMP_INVALID', 'the time-stamp token is not one DER element');
  }
  signedData.signerInfos[0].unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 1,
    attributes: [new pkijs.Attribute({ type: OID_SIGNATURE_TIME_STAMP, values: [parsed.result] })],
  });
}

/** The ContentInfo DER that goes, hex-encoded, into /Contents. */
export function encodeCms(signedData: pkijs.SignedData): Uint8Array<ArrayBuffer> {
  const info = new pkijs.ContentInfo({ contentType: OID_SIGNED_DATA, content: signedData.toSchema(true) });
  return new Uint8Array(info.toSchema().toBER(false));
}
