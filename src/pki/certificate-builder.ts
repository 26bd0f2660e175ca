// X.509 v3 certificate assembly (RFC 5280) with pkijs and asn1js. Extension values are encoded by
// hand with asn1js so that each one is exactly the DER the RFC clause asks for (pkijs helpers
// encode some defaults and multi-valued RDNs differently than other tools expect).
import { KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { cachedCertificate } from './certificate-cache.js';
import { derElement, engine, keyIdentifier, serialToInteger, toArrayBuffer, toTime } from './primitives.js';
import { type ServiceKey, softwareServiceKey } from './service-key.js';
import { OID } from './cms/oids.js';

/** Subject or issuer name parts, most general first in the encoding (C, O, CN). */
export interface NameParts {
  commonName: string;
  organization?: string;
  country?: string;
}

/** RFC 5280 Appendix A.1 upper bounds: ub-common-name and ub-organization-name are 64. */
const UB_NAME = 64;

const clip = (value: string): string => Array.from(value.normalize('NFC')).slice(0, UB_NAME).join('');

/**
 * A distinguished name with one attribute per RDN (never a multi-valued RDN). Strings are
 * UTF8String (RFC 5280 §4.1.2.6); countryName is PrintableString as X.520 requires.
 */
export function buildName(parts: NameParts): pkijs.RelativeDistinguishedNames {
  const rdn = (type: string, value: asn1js.BaseBlock) =>
    new asn1js.Set({ value: [new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: type }), value] })] });
  const rdns: asn1js.Set[] = [];
  if (parts.country) {
    rdns.push(rdn(OID.countryName, new asn1js.PrintableString({ value: parts.country.toUpperCase().slice(0, 2) })));
  }
  if (parts.organization) {
    rdns.push(rdn(OID.organizationName, new asn1js.Utf8String({ value: clip(parts.organization) })));
  }
  rdns.push(rdn(OID.commonName, new asn1js.Utf8String({ value: clip(parts.commonName) })));
  // Parsed back from DER so pkijs keeps these exact bytes (valueBeforeDecode) when re-encoding.
  return pkijs.RelativeDistinguishedNames.fromBER(new asn1js.Sequence({ value: rdns }).toBER(false));
}

const extension = (extnID: string, critical: boolean, value: asn1js.BaseBlock) =>
  new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });

/** KeyUsage bit numbers (RFC 5280 §4.2.1.3). */
export const KeyUsage = {
  digitalSignature: 0,
  nonRepudiation: 1,
  keyEncipherment: 2,
  keyCertSign: 5,
  cRLSign: 6,
} as const;

/** A DER NamedBitList BIT STRING: trailing zero bits removed (X.690 §11.2.2). */
export function namedBits(bits: readonly number[]): asn1js.BitString {
  if (bits.length === 0) {
    return new asn1js.BitString({ valueHex: new ArrayBuffer(0), unusedBits: 0 });
  }
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const bit of bits) {
    bytes[Math.floor(bit / 8)] |= 0x80 >> (bit % 8);
  }
  return new asn1js.BitString({ valueHex: bytes.buffer, unusedBits: 7 - (highest % 8) });
}

/** keyUsage, critical (RFC 5280 §4.2.1.3: SHOULD be critical). */
export const keyUsageExtension = (bits: readonly number[]) => extension(OID.keyUsage, true, namedBits(bits));

/** basicConstraints for a CA, critical (RFC 5280 §4.2.1.9: MUST be critical in CA certificates). */
export function caBasicConstraints(pathLen?: number): pkijs.Extension {
  const value: asn1js.BaseBlock[] = [new asn1js.Boolean({ value: true })];
  if (pathLen !== undefined) {
    value.push(new asn1js.Integer({ value: pathLen }));
  }
  return extension(OID.basicConstraints, true, new asn1js.Sequence({ value }));
}

export const extKeyUsageExtension = (purposes: readonly string[], critical: boolean) =>
  extension(OID.extKeyUsage, critical, new asn1js.Sequence({ value: purposes.map((oid) => new asn1js.ObjectIdentifier({ value: oid })) }));

const uri = (value: string) =>
  new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 6 }, valueHex: toArrayBuffer(Buffer.from(value, 'ascii')) });
const rfc822 = (value: string) =>
  new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 1 }, valueHex: toArrayBuffer(Buffer.from(value, 'ascii')) });

/** Authority Information Access (RFC 5280 §4.2.2.1): OCSP responder and CA certificate URLs. */
export function authorityInfoAccess(urls: { ocsp?: string; caIssuers?: string }): pkijs.Extension {
  const descriptions: asn1js.Sequence[] = [];
  const add = (method: string, url: string) =>
    descriptions.push(new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: method }), uri(url)] }));
  if (urls.ocsp) {
    add(OID.adOcsp, urls.ocsp);
  }
  if (urls.caIssuers) {
    add(OID.adCaIssuers, urls.caIssuers);
  }
  return extension(OID.authorityInfoAccess, false, new asn1js.Sequence({ value: descriptions }));
}

/** CRL distribution point with a full-name URI (RFC 5280 §4.2.1.13). */
export function crlDistributionPoint(url: string): pkijs.Extension {
  // DistributionPoint { distributionPoint [0] { fullName [0] GeneralNames } }
  const fullName = new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [uri(url)] });
  const dpName = new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [fullName] });
  return extension(OID.crlDistributionPoints, false, new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [dpName] })] }));
}

/** subjectAltName with rfc822Name and URI entries (RFC 5280 §4.2.1.6). */
export function subjectAltName(names: { emails?: string[]; uris?: string[] }): pkijs.Extension {
  const value = [...(names.emails ?? []).map(rfc822), ...(names.uris ?? []).map(uri)];
  return extension(OID.subjectAltName, false, new asn1js.Sequence({ value }));
}

/** id-pkix-ocsp-nocheck (RFC 6960 §4.2.2.2.1): the value is NULL. */
export const ocspNoCheck = () => extension(OID.ocspNoCheck, false, new asn1js.Null());

/** A service key, or a CryptoKey of this process (wrapped as a software service key). */
export type SigningKey = ServiceKey | CryptoKey;

/** What signs a new certificate: an issuing certificate with its key, or the subject itself. */
export type CertificateSigner = { certificate: pkijs.Certificate; key: SigningKey } | { selfSigned: true; key: SigningKey };

export interface CertificateTemplate {
  serialHex: string;
  subject: pkijs.RelativeDistinguishedNames;
  /** The subject's public key: a CryptoKey, or its subjectPublicKeyInfo DER (a key in a token). */
  publicKey: CryptoKey | Uint8Array;
  notBefore: Date;
  notAfter: Date;
  signer: CertificateSigner;
  /** Extensions beyond SKI and AKI, which are added here for every certificate. */
  extensions: pkijs.Extension[];
}

/** The key identifier the issuer advertises: its SKI extension, or computed from its key. */
export function subjectKeyIdOf(certificate: pkijs.Certificate): Buffer {
  const ski = certificate.extensions?.find((e) => e.extnID === OID.subjectKeyIdentifier);
  if (ski) {
    const parsed = asn1js.fromBER(ski.extnValue.valueBlock.valueHexView);
    if (parsed.offset !== -1 && parsed.result instanceof asn1js.OctetString) {
      return Buffer.from(parsed.result.valueBlock.valueHexView);
    }
  }
  return keyIdentifier(certificate.subjectPublicKeyInfo);
}

/** Builds and signs a certificate; returns its DER. */
export async function buildCertificate(template: CertificateTemplate): Promise<Buffer> {
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = serialToInteger(template.serialHex);
  certificate.subject = template.subject;
  certificate.issuer = 'selfSigned' in template.signer ? template.subject : template.signer.certificate.subject;
  certificate.notBefore = toTime(template.notBefore);
  certificate.notAfter = toTime(template.notAfter);
  await importPublicKey(certificate.subjectPublicKeyInfo, template.publicKey);
  const ski = keyIdentifier(certificate.subjectPublicKeyInfo);
  const extensions = [extension(OID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: toArrayBuffer(ski) }))];
  if (!('selfSigned' in template.signer)) {
    // RFC 5280 §4.2.1.1: MUST be present in all but self-signed CA certificates; keyIdentifier form.
    const akid = subjectKeyIdOf(template.signer.certificate);
    const keyId = new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: toArrayBuffer(akid) });
    extensions.push(extension(OID.authorityKeyIdentifier, false, new asn1js.Sequence({ value: [keyId] })));
  }
  certificate.extensions = [...extensions, ...template.extensions];
  const der = await signTbs(certificate, template.signer.key);
  // A certificate that does not parse back is a bug here, not at the verifier. Parsed through the
  // cache: a signer certificate is read again by the CMS that follows (its issuer, serial and key).
  cachedCertificate(der);
  return der;
}

/** The subjectPublicKeyInfo of a key: node's SPKI export at once where it is one of node's keys. */
async function importPublicKey(info: pkijs.PublicKeyInfo, publicKey: CryptoKey | Uint8Array): Promise<void> {
  let spki: Uint8Array;
  if (publicKey instanceof Uint8Array) {
    info.fromSchema(asn1js.fromBER(toArrayBuffer(publicKey)).result);
    return;
  }
  try {
    spki = KeyObject.from(publicKey).export({ type: 'spki', format: 'der' });
  } catch {
    await info.importKey(publicKey, engine); // a key of another provider: through WebCrypto
    return;
  }
  info.fromSchema(asn1js.fromBER(toArrayBuffer(spki)).result);
}

/** The service key behind a SigningKey. */
export async function serviceKeyOf(key: SigningKey): Promise<ServiceKey> {
  return 'signatureOid' in key ? key : softwareServiceKey(key, 'a key of this process');
}

/**
 * Signs the TBSCertificate as Certificate.sign() does (the same AlgorithmIdentifier in both places,
 * RFC 5280 §4.1.1.2), with the service key wherever it lives, and gives the certificate's DER:
 * SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }, joined from the bytes just
 * signed rather than parsed back and encoded again by pkijs.
 */
async function signTbs(certificate: pkijs.Certificate, signingKey: SigningKey): Promise<Buffer> {
  const key = await serviceKeyOf(signingKey);
  const algorithm = () => new pkijs.AlgorithmIdentifier({ algorithmId: key.signatureOid });
  certificate.signature = algorithm();
  certificate.signatureAlgorithm = algorithm();
  certificate.tbsView = new Uint8Array(certificate.encodeTBS().toBER(false));
  certificate.signatureValue = new asn1js.BitString({ valueHex: toArrayBuffer(await key.sign(certificate.tbsView)) });
  const der = (block: asn1js.BaseBlock) => new Uint8Array(block.toBER(false));
  return derElement(0x30, [certificate.tbsView, der(certificate.signatureAlgorithm.toSchema()), der(certificate.signatureValue)]);
}
