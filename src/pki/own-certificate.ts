// What a signer's own certificate (authority CERT) says about its holder, read the way RFC 5280
// writes it: the name (CN), the addresses (subject emailAddress and subjectAltName rfc822Name,
// §4.2.1.6), the subject's serialNumber (2.5.4.5, where CAs put a national identifier) and uid
// (0.9.2342.19200300.100.1.1, RFC 4519), the key usage bits (§4.2.1.3), the issuer and the key's kind.
import * as asn1js from 'asn1js';
import type * as pkijs from 'pkijs';
import { cachedCertificate } from './certificate-cache.js';
import { PkiError } from './errors.js';
import { normalizeSerialHex } from './primitives.js';
import { OID } from './cms/oids.js';

const UID = OID.uid;

const KEY_TYPES: Record<string, OwnCertificate['keyType']> = {
  [OID.rsaEncryption]: 'RSA',
  [OID.rsassaPss]: 'RSA-PSS',
  [OID.ecPublicKey]: 'EC',
};

/** A CERT signer's certificate, as the checks and the page need it. */
export interface OwnCertificate {
  name: string;
  /** Lower-cased: the subject's emailAddress attributes and the SAN's rfc822Names. */
  emails: string[];
  serialNumberAttribute: string;
  uid: string;
  /** Canonical lowercase hex. */
  serialHex: string;
  /** "C=.., O=.., CN=.." */
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** keyUsage allows digitalSignature (bit 0) or nonRepudiation (bit 1); true when the extension is absent (§4.2.1.3). */
  signs: boolean;
  keyType: 'RSA' | 'RSA-PSS' | 'EC' | 'other';
}

function attributes(name: pkijs.RelativeDistinguishedNames, oid: string): string[] {
  return name.typesAndValues
    .filter((tv) => tv.type === oid)
    .map((tv) => (tv.value.valueBlock as { value?: unknown }).value)
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.trim());
}

function extension(cert: pkijs.Certificate, oid: string): asn1js.BaseBlock | undefined {
  const e = cert.extensions?.find((x) => x.extnID === oid);
  return e ? asn1js.fromBER(e.extnValue.valueBlock.valueHexView).result : undefined;
}

/** rfc822Name [1] IA5String entries of subjectAltName. */
function sanEmails(cert: pkijs.Certificate): string[] {
  const san = extension(cert, OID.subjectAltName);
  if (!(san instanceof asn1js.Sequence)) {
    return [];
  }
  return (san.valueBlock.value as asn1js.BaseBlock[])
    .filter((n) => n.idBlock.tagClass === 3 && n.idBlock.tagNumber === 1 && n instanceof asn1js.Primitive)
    .map((n) => Buffer.from((n as asn1js.Primitive).valueBlock.valueHexView).toString('latin1'));
}

/** Whether keyUsage lets the key sign documents (digitalSignature or nonRepudiation). */
function allowsSigning(cert: pkijs.Certificate): boolean {
  const ku = extension(cert, OID.keyUsage);
  if (!ku) {
    return true;
  }
  if (!(ku instanceof asn1js.BitString)) {
    return false;
  }
  const bytes = ku.valueBlock.valueHexView;
  // Bit 0 is the first byte's most significant bit.
  return bytes.length > 0 && (bytes[0] & 0xc0) !== 0;
}

/** Reads a signer's certificate (DER). Throws PkiError bad_der when it does not parse. */
export function readOwnCertificate(der: Uint8Array): OwnCertificate {
  let cert: ReturnType<typeof cachedCertificate>;
  try {
    cert = cachedCertificate(der);
  } catch (err) {
    throw new PkiError('bad_der', `the certificate does not parse: ${(err as Error).message}`);
  }
  const p = cert.pkijs;
  const emails = [...attributes(p.subject, OID.emailAddress), ...sanEmails(p)].map((e) => e.toLowerCase());
  const algorithm = p.subjectPublicKeyInfo.algorithm.algorithmId;
  return {
    name: attributes(p.subject, OID.commonName)[0] ?? emails[0] ?? '',
    emails: [...new Set(emails)],
    serialNumberAttribute: attributes(p.subject, OID.serialNumber)[0] ?? '',
    uid: attributes(p.subject, UID)[0] ?? '',
    serialHex: normalizeSerialHex(Buffer.from(p.serialNumber.valueBlock.valueHexView).toString('hex') || '00'),
    subject: cert.subject,
    issuer: cert.x509.issuer.split('\n').join(', '),
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    signs: allowsSigning(p),
    keyType: KEY_TYPES[algorithm] ?? 'other',
  };
}
