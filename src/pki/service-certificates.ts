// Certificates of the service itself under the issuing CA: the time-stamping unit and the
// delegated OCSP responder, and the renewal of the responder's short-lived certificate.
import type * as pkijs from 'pkijs';
import {
  KeyUsage,
  authorityInfoAccess,
  buildCertificate,
  buildName,
  crlDistributionPoint,
  extKeyUsageExtension,
  keyUsageExtension,
  ocspNoCheck,
} from './certificate-builder.js';
import type { KeyedCertificate, PkiMaterial } from './material-types.js';
import { type PkiUrls, pkiUrls } from './pki-urls.js';
import { parseCertificate, randomSerialHex } from './primitives.js';
import { type ServiceKey, type ServiceKeyRole, type ServiceKeyStore, softwareKeyStore } from './service-key.js';
import { OID } from './cms/oids.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Backdated by an hour so that certificates issued right after first start (which tolerate a few
// minutes of clock skew themselves) still fall inside their issuer's validity.
export const startOf = (now: Date) => new Date(now.getTime() - HOUR);

/** What a certificate issued by the issuing CA needs from it. */
export interface IssuingAuthority {
  certificate: pkijs.Certificate;
  key: ServiceKey;
}

export interface ServiceCertificateOptions {
  organization: string;
  country?: string;
  baseUrl: string;
  now: Date;
  validityDays: number;
  /** Where the certificate's key is made (default: in this process). */
  keyStore?: ServiceKeyStore;
}

/** A certificate of the service itself (TSA, OCSP responder) under the issuing CA, with a fresh key. */
async function issueServiceCertificate(
  issuer: IssuingAuthority,
  options: ServiceCertificateOptions,
  role: {
    role: ServiceKeyRole;
    algorithm: 'rsa-3072' | 'rsa-2048';
    commonName: string;
    extensions: (urls: PkiUrls) => pkijs.Extension[];
  },
): Promise<KeyedCertificate> {
  const keys = await (options.keyStore ?? softwareKeyStore).create(role.role, role.algorithm);
  const certificateDer = await buildCertificate({
    serialHex: randomSerialHex(),
    subject: buildName({
      commonName: `${options.organization} ${role.commonName}`,
      organization: options.organization,
      country: options.country,
    }),
    publicKey: keys.spki,
    notBefore: startOf(options.now),
    notAfter: new Date(options.now.getTime() + options.validityDays * DAY),
    signer: issuer,
    extensions: role.extensions(pkiUrls(options.baseUrl)),
  });
  return { certificateDer, ...keys.stored };
}

/** A TSA certificate under the issuing CA: EKU timeStamping, critical and alone (RFC 3161 §2.3). */
export function issueTsaCertificate(issuer: IssuingAuthority, options: ServiceCertificateOptions): Promise<KeyedCertificate> {
  return issueServiceCertificate(issuer, options, {
    role: 'tsa',
    algorithm: 'rsa-3072',
    commonName: 'Time-Stamping Authority',
    extensions: (urls) => [
      keyUsageExtension([KeyUsage.digitalSignature]),
      extKeyUsageExtension([OID.kpTimeStamping], true),
      authorityInfoAccess({ ocsp: urls.ocsp, caIssuers: urls.issuingCer }),
      crlDistributionPoint(urls.crl),
    ],
  });
}

/**
 * A delegated OCSP responder certificate (RFC 6960 §4.2.2.2): issued by the CA whose certificates
 * it answers for, EKU id-kp-OCSPSigning, and id-pkix-ocsp-nocheck (§4.2.2.2.1) so clients do not
 * ask the responder about itself. Short-lived, as that clause recommends for nocheck: renew it.
 */
export function issueOcspResponderCertificate(issuer: IssuingAuthority, options: ServiceCertificateOptions): Promise<KeyedCertificate> {
  return issueServiceCertificate(issuer, options, {
    role: 'ocsp',
    algorithm: 'rsa-2048',
    commonName: 'OCSP Responder',
    extensions: (urls) => [
      keyUsageExtension([KeyUsage.digitalSignature]),
      extKeyUsageExtension([OID.kpOcspSigning], false),
      ocspNoCheck(),
      authorityInfoAccess({ caIssuers: urls.issuingCer }),
    ],
  });
}

/** Days before its notAfter from which the OCSP responder certificate is replaced. */
export const OCSP_RENEWAL_DAYS = 30;

/** The notAfter of a DER certificate. */
export function certificateNotAfter(der: Uint8Array): Date {
  return parseCertificate(der).notAfter.value;
}

/**
 * True when a responder certificate ending at `notAfter` ends within OCSP_RENEWAL_DAYS of `now` (or
 * has ended): past its notAfter every response it signs is refused by validators (RFC 6960
 * §4.2.2.2 delegation holds only while the certificate is valid), so it is replaced well before.
 */
export function ocspRenewalDue(notAfter: Date, now: Date): boolean {
  return notAfter.getTime() - now.getTime() <= OCSP_RENEWAL_DAYS * DAY;
}

/**
 * The material with a new OCSP responder key and certificate under its issuing CA, valid for
 * `validityDays` (365) from `now`. The old certificate is left to expire: responses it signed stay
 * verifiable at their own time, and nocheck (RFC 6960 §4.2.2.2.1) means none asks about it. In a
 * token the responder's key is the one under its label: the new certificate is for that same key.
 */
export async function renewOcspResponder(
  material: PkiMaterial,
  options: Omit<ServiceCertificateOptions, 'validityDays'> & { validityDays?: number },
): Promise<PkiMaterial> {
  const store = options.keyStore ?? softwareKeyStore;
  const issuer = {
    certificate: parseCertificate(material.issuing.certificateDer),
    key: await store.open('issuing', material.issuing, material.issuing.certificateDer),
  };
  const ocsp = await issueOcspResponderCertificate(issuer, { ...options, validityDays: options.validityDays ?? 365 });
  return { ...material, ocsp, ocspFromOperator: false };
}
