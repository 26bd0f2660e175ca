// The CMS of a signature whose private key stays with the signer (the SAT e.firma, whose key never
// leaves the signer's browser; an own certificate; a remote provider's credential), in two steps
// around the signer's own signature (RSA PKCS#1 v1.5 or PSS, ECDSA: external-scheme.ts): first the
// CAdES signed attributes, whose DER SET OF is what the signer signs (RFC 5652 §5.4); then, with the
// signature value, the SignedData that carries them, checked to be exactly what was signed and to
// verify with the certificate.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { cachedCertificate, encodedCertificate } from '../certificate-cache.js';
import { checkKeyUsage } from './cades-signature.js';
import { type CheckedSignatureValue, checkSignatureValue, externalScheme } from './external-scheme.js';
import { OID, oidByHash } from './oids.js';
import { cadesSignedAttributes, messageDigestIs } from './signed-attributes.js';
import { CmsSignError, signingFailed } from './sign-error.js';

/** The signer's certificate, parsed, once checked to carry a key this service signs with (RSA, ECDSA) allowed to sign. Throws CmsSignError. */
export function checkExternalSigner(certificateDer: Uint8Array): pkijs.Certificate {
  let leaf: pkijs.Certificate;
  try {
    leaf = cachedCertificate(certificateDer).pkijs;
  } catch (err) {
    return signingFailed(`the signer certificate cannot be parsed: ${(err as Error).message}`);
  }
  externalScheme(certificateDer);
  checkKeyUsage(leaf);
  return leaf;
}

/** DER of the CAdES signed attributes as a SET OF: the bytes the signer signs. */
export function externalSignedAttributes(leaf: pkijs.Certificate, contentDigest: Uint8Array): Buffer {
  const attributes = new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: cadesSignedAttributes(leaf, contentDigest) });
  const der = Buffer.from(attributes.toSchema().toBER(false));
  der[0] = 0x31; // §5.4: signed as an explicit SET OF, not the [0] IMPLICIT of the SignerInfo
  return der;
}

function parseAttributes(der: Uint8Array): pkijs.Attribute[] {
  const parsed = asn1js.fromBER(new Uint8Array(der));
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Set)) {
    signingFailed('the stored signed attributes are not a DER SET');
  }
  return (parsed.result as asn1js.Set).valueBlock.value.map((schema) => new pkijs.Attribute({ schema }));
}

// RFC 5754 §2 allows absent or NULL parameters; these signatures have always carried NULL.
const digestAlgorithm = (certificateDer: Uint8Array) =>
  new pkijs.AlgorithmIdentifier({ algorithmId: oidByHash(externalScheme(certificateDer).hash), algorithmParams: new asn1js.Null() });

/** The SignerInfo carrying `attributes` and the signer's value; its attributes must encode back to `signedAttributes`. */
function externalSignerInfo(
  leaf: pkijs.Certificate,
  certificateDer: Uint8Array,
  attributes: pkijs.Attribute[],
  signedAttributes: Buffer,
  checked: CheckedSignatureValue,
) {
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: leaf.issuer, serialNumber: leaf.serialNumber }),
    digestAlgorithm: digestAlgorithm(certificateDer),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
    signatureAlgorithm: checked.signatureAlgorithm,
    signature: new asn1js.OctetString({ valueHex: checked.value }),
  });
  // What the CMS will carry must be, byte for byte, what was signed.
  const reencoded = Buffer.from(signerInfo.signedAttrs!.toSchema().toBER(false));
  reencoded[0] = 0x31;
  if (!reencoded.equals(signedAttributes)) {
    signingFailed('the signed attributes do not encode back to the bytes that were signed');
  }
  return signerInfo;
}

export interface ExternalSignedDataOptions {
  /** What externalSignedAttributes gave, as stored between the two steps. */
  signedAttributes: Buffer;
  /** The signer's signature over signedAttributes, under the scheme of their key (external-scheme.ts). */
  signatureValue: Uint8Array;
  /** The digest of the content as it stands now: the message-digest attribute must be it. */
  contentDigest: Uint8Array;
  certificateDer: Uint8Array;
  /** The CA certificates the CMS carries (the leaf, if given, is not repeated). */
  chainDer: Uint8Array[];
}

/**
 * The detached SignedData of an external signature. Throws CmsSignError: SIGNATURE_MISMATCH when the
 * value does not verify with the certificate, SIGNING_FAILED when the attributes are not about this
 * content or do not encode back to what was signed.
 */
export function externalSignedData(opts: ExternalSignedDataOptions): pkijs.SignedData {
  const checked = checkSignatureValue(opts.certificateDer, opts.signedAttributes, opts.signatureValue);
  if (!checked) {
    throw new CmsSignError('SIGNATURE_MISMATCH', 'the signature value does not verify with the certificate: was it made with its key?');
  }
  const attributes = parseAttributes(opts.signedAttributes);
  if (!messageDigestIs(attributes, opts.contentDigest)) {
    signingFailed('the prepared revision does not match its signed attributes');
  }
  const leaf = cachedCertificate(opts.certificateDer).pkijs;
  const signerInfo = externalSignerInfo(leaf, opts.certificateDer, attributes, opts.signedAttributes, checked);
  const leafDer = encodedCertificate(leaf);
  const chain = opts.chainDer.map((der) => cachedCertificate(der).pkijs).filter((c) => !encodedCertificate(c).equals(leafDer));
  return new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [digestAlgorithm(opts.certificateDer)],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }), // detached
    certificates: [leaf, ...chain],
    signerInfos: [signerInfo],
  });
}
