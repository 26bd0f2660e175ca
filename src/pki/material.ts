// The service's own PKI: root CA, issuing CA, time-stamping and OCSP responder certificates.
//
// Algorithms: RSA 3072 with sha256WithRSAEncryption (PKCS#1 v1.5) for the root, issuing CA and TSA.
// Every validator the service targets accepts it: Adobe Acrobat/Reader (whose ECDSA support came
// late and whose RSA-PSS support is still patchy), NSS (pdfsig, Firefox), OpenSSL, Windows
// CryptoAPI, Java. 3072 bits gives ~128-bit strength (NIST SP 800-57 Part 1 table 2), which
// these long-lived keys need beyond 2030; the cost is only paid at generation and when signing.
// The OCSP responder signs often and is short-lived and renewable: RSA 2048 is enough there.
//
// The hierarchy is root -> issuing CA (pathLen 0) -> {signer certificates, TSA, OCSP responder}.
// The TSA is issued by the issuing CA, not the root, so that its revocation status comes from the
// same CRL and OCSP responder as the signer certificates: a PAdES B-LT/LTA validator needs
// revocation data for every certificate below the trust anchor (ETSI EN 319 102-1), and one
// responder then covers all of them. The root key stays only to sign the issuing CA and its CRL.
import type * as pkijs from 'pkijs';
import {
  KeyUsage,
  authorityInfoAccess,
  buildCertificate,
  buildName,
  caBasicConstraints,
  crlDistributionPoint,
  extKeyUsageExtension,
  keyUsageExtension,
  ocspNoCheck,
} from './certificate-builder.js';
import { checkMaterial } from './material-checks.js';
import { OID, generateKeyPair, importPrivateKey, parseCertificate, randomSerialHex, subtle } from './primitives.js';

/** A certificate with its private key, as stored: DER certificate, PKCS#8 DER key (seal it!). */
export interface KeyedCertificate {
  certificateDer: Buffer;
  privateKeyPkcs8: Buffer;
}

/** Everything the PKI needs, in storable form. Keys are plaintext PKCS#8: seal before storing. */
export interface PkiMaterial {
  /** The trust anchor. Its key is absent when an operator keeps their root offline. */
  root: { certificateDer: Buffer; privateKeyPkcs8?: Buffer };
  /** Issues signer certificates, signs the CRL; its key signs OCSP only through the responder. */
  issuing: KeyedCertificate;
  /** Certificates between the issuing CA and the root, nearest first (empty for a generated PKI). */
  intermediatesDer: Buffer[];
  /** The time-stamping unit (RFC 3161 §2.3: critical EKU timeStamping only). */
  tsa: KeyedCertificate;
  /** The delegated OCSP responder (RFC 6960 §4.2.2.2: issued by the issuing CA, id-kp-OCSPSigning). */
  ocsp: KeyedCertificate;
  /** True when the operator supplied the OCSP responder certificate: the service never replaces it. */
  ocspFromOperator?: boolean;
}

/** A certificate ready to use: DER, parsed, and a non-extractable signing key. */
export interface PkiIdentity {
  certificateDer: Buffer;
  certificate: pkijs.Certificate;
  privateKey: CryptoKey;
}

/** The PKI in memory, from importPki. Keys are non-extractable CryptoKeys. */
export interface LoadedPki {
  root: { certificateDer: Buffer; certificate: pkijs.Certificate; privateKey?: CryptoKey };
  issuing: PkiIdentity;
  intermediatesDer: Buffer[];
  tsa: PkiIdentity;
  ocsp: PkiIdentity;
  /** [issuing, ...intermediates, root]: the chain above every certificate the issuing CA signs. */
  chainDer: Buffer[];
}

/** The public URLs the certificates point at; the HTTP routes serve exactly these. */
export interface PkiUrls {
  /** Root certificate, PEM (GET /pki/ca.pem). */
  rootPem: string;
  /** Issuing CA and root, PEM (GET /pki/chain.pem). */
  chainPem: string;
  /** Issuing CA certificate, DER, application/pkix-cert: the caIssuers target (RFC 5280 §4.2.2.1). */
  issuingCer: string;
  /** OCSP responder for certificates of the issuing CA (RFC 6960, POST and GET). */
  ocsp: string;
  /** CRL of the issuing CA, DER (createCrl issuer 'issuing'). */
  crl: string;
  /** CRL of the root, covering the issuing CA (createCrl issuer 'root'). */
  rootCrl: string;
  /** RFC 3161 time-stamp authority (POST). */
  tsa: string;
}

export function pkiUrls(baseUrl: string): PkiUrls {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    rootPem: `${base}/pki/ca.pem`,
    chainPem: `${base}/pki/chain.pem`,
    issuingCer: `${base}/pki/issuing.cer`,
    ocsp: `${base}/pki/ocsp`,
    crl: `${base}/pki/crl`,
    rootCrl: `${base}/pki/root-crl`,
    tsa: `${base}/tsa`,
  };
}

export interface GenerateServicePkiOptions {
  /** Organisation name in every certificate's subject (O) and in the CNs. */
  organization: string;
  /** Two-letter country code (C), optional. */
  country?: string;
  /** Public origin of the service, e.g. https://sign.example.com; the URLs in pkiUrls hang off it. */
  baseUrl: string;
  /** The clock, as a parameter (DESIGN 6). */
  now: Date;
  rootValidityYears?: number;
  issuingValidityYears?: number;
  tsaValidityYears?: number;
  ocspValidityDays?: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const addYears = (date: Date, years: number) => {
  const result = new Date(date);
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
};
// Backdated by an hour so that certificates issued right after first start (which tolerate a few
// minutes of clock skew themselves) still fall inside their issuer's validity.
const startOf = (now: Date) => new Date(now.getTime() - HOUR);

async function exportPkcs8(key: CryptoKey): Promise<Buffer> {
  return Buffer.from(await subtle.exportKey('pkcs8', key));
}

/** What a certificate issued by the issuing CA needs from it. */
export interface IssuingAuthority {
  certificate: pkijs.Certificate;
  privateKey: CryptoKey;
}

export interface ServiceCertificateOptions {
  organization: string;
  country?: string;
  baseUrl: string;
  now: Date;
  validityDays: number;
}

/** A certificate of the service itself (TSA, OCSP responder) under the issuing CA, with a fresh key. */
async function issueServiceCertificate(
  issuer: IssuingAuthority,
  options: ServiceCertificateOptions,
  role: { algorithm: 'rsa-3072' | 'rsa-2048'; commonName: string; extensions: (urls: PkiUrls) => pkijs.Extension[] },
): Promise<KeyedCertificate> {
  const keys = await generateKeyPair(role.algorithm, true);
  const certificateDer = await buildCertificate({
    serialHex: randomSerialHex(),
    subject: buildName({
      commonName: `${options.organization} ${role.commonName}`,
      organization: options.organization,
      country: options.country,
    }),
    publicKey: keys.publicKey,
    notBefore: startOf(options.now),
    notAfter: new Date(options.now.getTime() + options.validityDays * DAY),
    signer: issuer,
    extensions: role.extensions(pkiUrls(options.baseUrl)),
  });
  return { certificateDer, privateKeyPkcs8: await exportPkcs8(keys.privateKey) };
}

/** A TSA certificate under the issuing CA: EKU timeStamping, critical and alone (RFC 3161 §2.3). */
export function issueTsaCertificate(issuer: IssuingAuthority, options: ServiceCertificateOptions): Promise<KeyedCertificate> {
  return issueServiceCertificate(issuer, options, {
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
 * verifiable at their own time, and nocheck (RFC 6960 §4.2.2.2.1) means none asks about it.
 */
export async function renewOcspResponder(
  material: PkiMaterial,
  options: Omit<ServiceCertificateOptions, 'validityDays'> & { validityDays?: number },
): Promise<PkiMaterial> {
  const issuer = {
    certificate: parseCertificate(material.issuing.certificateDer),
    privateKey: await importPrivateKey(material.issuing.privateKeyPkcs8),
  };
  const ocsp = await issueOcspResponderCertificate(issuer, { ...options, validityDays: options.validityDays ?? 365 });
  return { ...material, ocsp, ocspFromOperator: false };
}

/** Generates the whole service PKI (first start). Keys leave only as PKCS#8 in the result. */
export async function generateServicePki(options: GenerateServicePkiOptions): Promise<PkiMaterial> {
  const { organization, country, now } = options;
  const urls = pkiUrls(options.baseUrl);
  const [rootKeys, issuingKeys] = await Promise.all([generateKeyPair('rsa-3072', true), generateKeyPair('rsa-3072', true)]);

  const rootDer = await buildCertificate({
    serialHex: randomSerialHex(),
    subject: buildName({ commonName: `${organization} Root CA`, organization, country }),
    publicKey: rootKeys.publicKey,
    notBefore: startOf(now),
    notAfter: addYears(now, options.rootValidityYears ?? 20),
    signer: { selfSigned: true, privateKey: rootKeys.privateKey },
    // No AKI on a self-signed root (RFC 5280 §4.2.1.1 allows omitting it), no pathLen: the root
    // may later sign a second issuing CA.
    extensions: [caBasicConstraints(), keyUsageExtension([KeyUsage.keyCertSign, KeyUsage.cRLSign])],
  });
  const root = { certificate: parseCertificate(rootDer), privateKey: rootKeys.privateKey };

  const issuingDer = await buildCertificate({
    serialHex: randomSerialHex(),
    subject: buildName({ commonName: `${organization} Signing CA`, organization, country }),
    publicKey: issuingKeys.publicKey,
    notBefore: startOf(now),
    notAfter: addYears(now, options.issuingValidityYears ?? 10),
    signer: root,
    extensions: [
      // pathLen 0: this CA issues end-entity certificates only (RFC 5280 §4.2.1.9).
      caBasicConstraints(0),
      keyUsageExtension([KeyUsage.keyCertSign, KeyUsage.cRLSign]),
      // The issuing CA's own status is in the root's CRL: a CRL signed by the issuing CA cannot
      // speak for the issuing CA itself (RFC 5280 §6.3.3 (f): the CRL issuer must be the
      // certificate's issuer unless the CRL is indirect).
      crlDistributionPoint(urls.rootCrl),
    ],
  });
  const issuing = { certificate: parseCertificate(issuingDer), privateKey: issuingKeys.privateKey };

  const serviceOptions = { organization, country, baseUrl: options.baseUrl, now };
  const [tsa, ocsp] = await Promise.all([
    issueTsaCertificate(issuing, { ...serviceOptions, validityDays: 365 * (options.tsaValidityYears ?? 5) }),
    issueOcspResponderCertificate(issuing, { ...serviceOptions, validityDays: options.ocspValidityDays ?? 365 }),
  ]);
  return {
    root: { certificateDer: rootDer, privateKeyPkcs8: await exportPkcs8(rootKeys.privateKey) },
    issuing: { certificateDer: issuingDer, privateKeyPkcs8: await exportPkcs8(issuingKeys.privateKey) },
    intermediatesDer: [],
    tsa,
    ocsp,
  };
}

/** A stored certificate and key, ready to use (the key non-extractable). */
export async function importPkiIdentity(keyed: KeyedCertificate): Promise<PkiIdentity> {
  return {
    certificateDer: keyed.certificateDer,
    certificate: parseCertificate(keyed.certificateDer),
    privateKey: await importPrivateKey(keyed.privateKeyPkcs8),
  };
}

/** Checks the material (see material-checks.ts) and imports its keys as non-extractable CryptoKeys. */
export async function importPki(material: PkiMaterial): Promise<LoadedPki> {
  checkMaterial(material);
  const identity = importPkiIdentity;
  const [issuing, tsa, ocsp] = await Promise.all([identity(material.issuing), identity(material.tsa), identity(material.ocsp)]);
  return {
    root: {
      certificateDer: material.root.certificateDer,
      certificate: parseCertificate(material.root.certificateDer),
      privateKey: material.root.privateKeyPkcs8 ? await importPrivateKey(material.root.privateKeyPkcs8) : undefined,
    },
    issuing,
    intermediatesDer: material.intermediatesDer,
    tsa,
    ocsp,
    // An operator whose root issues signer certificates directly has a one-certificate chain.
    chainDer: material.issuing.certificateDer.equals(material.root.certificateDer)
      ? [material.root.certificateDer]
      : [material.issuing.certificateDer, ...material.intermediatesDer, material.root.certificateDer],
  };
}
