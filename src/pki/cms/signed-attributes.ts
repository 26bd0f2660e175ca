// The signed attributes of the service's CMS signatures, made and read in one place: content type
// and message digest (RFC 5652 §11.1-11.2), and the ESS signing-certificate(-v2) attribute (RFC 2634
// §5.4, RFC 5035 §3) that binds the signer's certificate into what is signed, so that a signature
// cannot be presented with another certificate for the same key (a substitution, RFC 5035 §1).
//
// Signing time: a PAdES baseline signature carries no CMS signing-time attribute (EN 319 142-1 §6.3,
// Table 1): the claimed time is the signature dictionary's /M (PDF 32000-1 §12.8.1), the proven one
// the signature time-stamp. So cadesSignedAttributes never adds one; a time-stamp token's time is
// its TSTInfo genTime (RFC 3161 §2.4.2), never an attribute either.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { encodedCertificate } from '../certificate-cache.js';
import { OID, hashByOid, nodeHashName } from './oids.js';

export const contentTypeAttribute = (contentType: string) =>
  new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: contentType })] });

export const messageDigestAttribute = (digest: Uint8Array) =>
  new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: digest })] });

/**
 * ESS signing-certificate-v2 naming `cert`, whose DER is `certificateDer` (RFC 5035 §3; EN 319 122-1 §5.2.2.3, RFC 5816 §2.2.1).
 * hashAlgorithm is omitted because SHA-256 is its DEFAULT (DER forbids encoding defaults).
 */
export function signingCertificateV2Attribute(cert: pkijs.Certificate, certificateDer: Uint8Array): pkijs.Attribute {
  const certHash = createHash('sha256').update(certificateDer).digest();
  const issuerSerial = new asn1js.Sequence({
    value: [
      // GeneralNames { directoryName [4] Name }: explicit, Name being a CHOICE (RFC 5280 App. A.2).
      new asn1js.Sequence({ value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [cert.issuer.toSchema()] })] }),
      new asn1js.Integer({ valueHex: cert.serialNumber.valueBlock.valueHexView }),
    ],
  });
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash }), issuerSerial] });
  return new pkijs.Attribute({
    type: OID.signingCertificateV2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
}

/**
 * The signed attributes of a PAdES baseline signature, in this order: content-type (id-data, the
 * content being the detached PDF bytes), message-digest, signing-certificate-v2. No signing-time.
 */
export function cadesSignedAttributes(leaf: pkijs.Certificate, contentDigest: Uint8Array): pkijs.Attribute[] {
  return [
    contentTypeAttribute(OID.data),
    messageDigestAttribute(contentDigest),
    signingCertificateV2Attribute(leaf, encodedCertificate(leaf)),
  ];
}

/** The signed attributes of a time-stamp token (RFC 3161 §2.4.2, RFC 5816 §2.2.1). */
export function timeStampTokenAttributes(tsa: pkijs.Certificate, tsaDer: Uint8Array, tstInfoDigest: Uint8Array): pkijs.Attribute[] {
  return [contentTypeAttribute(OID.tstInfo), messageDigestAttribute(tstInfoDigest), signingCertificateV2Attribute(tsa, tsaDer)];
}

/** The one value of the attribute `type`, or null when it is absent, repeated or multi-valued (RFC 5652 §5.3). */
export function singleAttributeValue(attributes: readonly pkijs.Attribute[], type: string): asn1js.BaseBlock | null {
  const found = attributes.filter((a) => a.type === type);
  return found.length === 1 && found[0].values.length === 1 ? (found[0].values[0] as asn1js.BaseBlock) : null;
}

/** Whether the one message-digest attribute is `expected` (RFC 5652 §11.2). */
export function messageDigestIs(attributes: readonly pkijs.Attribute[], expected: Uint8Array): boolean {
  const value = singleAttributeValue(attributes, OID.messageDigest);
  return value instanceof asn1js.OctetString && Buffer.from(value.valueBlock.valueHexView).equals(Buffer.from(expected));
}

/** Why an ESSCertID(v2) does not name a certificate. */
export type EssCertIdProblem = 'malformed' | 'unknown-hash' | 'other-certificate';

/** The first ESSCertID(v2) of a signing-certificate(-v2) value must hash to `certificateDer`; null when it does. */
export function essCertIdProblem(value: asn1js.BaseBlock, v2: boolean, certificateDer: Uint8Array): EssCertIdProblem | null {
  const certs = value instanceof asn1js.Sequence ? value.valueBlock.value[0] : undefined;
  const first = certs instanceof asn1js.Sequence ? certs.valueBlock.value[0] : undefined;
  if (!(first instanceof asn1js.Sequence)) {
    return 'malformed';
  }
  let items = first.valueBlock.value;
  let hash = hashByOid(v2 ? OID.sha256 : OID.sha1); // RFC 5035: hashAlgorithm DEFAULT id-sha256
  if (v2 && items[0] instanceof asn1js.Sequence) {
    const oid = items[0].valueBlock.value[0];
    hash = oid instanceof asn1js.ObjectIdentifier ? hashByOid(oid.valueBlock.toString()) : undefined;
    items = items.slice(1);
  }
  const certHash = items[0];
  if (!hash || !(certHash instanceof asn1js.OctetString)) {
    return 'unknown-hash';
  }
  const actual = createHash(nodeHashName(hash)).update(certificateDer).digest();
  return actual.equals(Buffer.from(certHash.valueBlock.valueHexView)) ? null : 'other-certificate';
}

type Problem = { rule: 'signing-certificate-mismatch'; message: string };
const problem = (message: string): Problem => ({ rule: 'signing-certificate-mismatch', message });
const PROBLEM_TEXT: Record<EssCertIdProblem, string> = {
  malformed: 'the signing-certificate attribute is malformed',
  'unknown-hash': 'the signing-certificate attribute names an unknown hash',
  'other-certificate': 'the signing-certificate attribute names another certificate than the one that signed',
};

/**
 * The signing-certificate(-v2) attributes of a PDF signature must name `certificateDer`; null when
 * they do. CAdES requires one (`required`, EN 319 122-1 §5.2.2.3); for the older adbe.pkcs7.detached
 * it is checked when present. Each kind appears at most once with one value (RFC 5652 §11). Some
 * signers write both, the SHA-1 one for older readers: each must then name the same certificate.
 */
export function signingCertificateProblem(attrs: pkijs.Attribute[], certificateDer: Uint8Array, required: boolean): Problem | null {
  const v2 = attrs.filter((a) => a.type === OID.signingCertificateV2);
  const v1 = attrs.filter((a) => a.type === OID.signingCertificate);
  if (v2.length + v1.length === 0) {
    return required ? problem('the signing-certificate-v2 attribute that a CAdES signature requires is missing') : null;
  }
  if (v2.length > 1 || v1.length > 1 || [...v2, ...v1].some((a) => a.values.length !== 1)) {
    return problem('the signing-certificate attribute is repeated');
  }
  for (const [attr, isV2] of [
    [v2[0], true],
    [v1[0], false],
  ] as const) {
    const found = attr ? essCertIdProblem(attr.values[0] as asn1js.BaseBlock, isV2, certificateDer) : null;
    if (found) {
      return problem(PROBLEM_TEXT[found]);
    }
  }
  return null;
}
