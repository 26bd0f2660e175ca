// The one table of object identifiers the service reads and writes (certificates, CRLs, OCSP,
// RFC 3161 tokens, CMS and CAdES attributes, PKCS#12 bags): each OID is spelt once, here, and
// everything else names it, so a table of algorithms cannot drift from another.

export const OID = {
  // Digest algorithms (RFC 3370 §2.1, RFC 5754 §2, RFC 8702 §2).
  sha1: '1.3.14.3.2.26',
  sha224: '2.16.840.1.101.3.4.2.4',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  sha3_256: '2.16.840.1.101.3.4.2.8',
  sha3_384: '2.16.840.1.101.3.4.2.9',
  sha3_512: '2.16.840.1.101.3.4.2.10',
  shake256: '2.16.840.1.101.3.4.2.12',
  // Signature algorithms (RFC 8017 App. C, RFC 5758 §3.2, RFC 8410 §3, BSI TR-03111 §5.2.1).
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha1WithRsa: '1.2.840.113549.1.1.5',
  rsassaPss: '1.2.840.113549.1.1.10',
  /** MGF1, the mask generation function of RSASSA-PSS (RFC 8017 App. B.2.1). */
  mgf1: '1.2.840.113549.1.1.8',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  sha384WithRsa: '1.2.840.113549.1.1.12',
  sha512WithRsa: '1.2.840.113549.1.1.13',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha1: '1.2.840.10045.4.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
  ecdsaPlainSha1: '0.4.0.127.0.7.1.1.4.1.1',
  ecdsaPlainSha256: '0.4.0.127.0.7.1.1.4.1.3',
  ecdsaPlainSha384: '0.4.0.127.0.7.1.1.4.1.4',
  ecdsaPlainSha512: '0.4.0.127.0.7.1.1.4.1.5',
  ed25519: '1.3.101.112',
  ed448: '1.3.101.113',
  // Name attributes (RFC 5280 App. A; X.520; the SAT's e.firma puts its RFC in x500UniqueIdentifier).
  commonName: '2.5.4.3',
  serialNumber: '2.5.4.5',
  /** uid (RFC 4519), where some CAs put a holder's identifier. */
  uid: '0.9.2342.19200300.100.1.1',
  countryName: '2.5.4.6',
  organizationName: '2.5.4.10',
  organizationalUnitName: '2.5.4.11',
  name: '2.5.4.41',
  x500UniqueIdentifier: '2.5.4.45',
  emailAddress: '1.2.840.113549.1.9.1',
  // Certificate and CRL extensions (RFC 5280 §4.2, §5.2).
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  crlNumber: '2.5.29.20',
  crlReason: '2.5.29.21',
  crlDistributionPoints: '2.5.29.31',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  kpEmailProtection: '1.3.6.1.5.5.7.3.4',
  kpTimeStamping: '1.3.6.1.5.5.7.3.8',
  kpOcspSigning: '1.3.6.1.5.5.7.3.9',
  adOcsp: '1.3.6.1.5.5.7.48.1',
  adCaIssuers: '1.3.6.1.5.5.7.48.2',
  // OCSP (RFC 6960 §4.2.1, §4.4.1, §4.2.2.2.1).
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  ocspNonce: '1.3.6.1.5.5.7.48.1.2',
  ocspNoCheck: '1.3.6.1.5.5.7.48.1.5',
  // CMS content types (RFC 5652 §4, §5; RFC 3161 §2.4.2).
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  // CMS and ESS attributes (RFC 5652 §11, RFC 2634 §5.4, RFC 5035 §3, RFC 3161 App. A).
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  // PKCS#12 bags (RFC 7292 §4.2).
  keyBag: '1.2.840.113549.1.12.10.1.1',
  pkcs8ShroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
} as const;

export type HashName = 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512';

const HASH_BY_OID: Readonly<Record<string, HashName>> = {
  [OID.sha1]: 'SHA-1',
  [OID.sha256]: 'SHA-256',
  [OID.sha384]: 'SHA-384',
  [OID.sha512]: 'SHA-512',
};
const OID_BY_HASH: Readonly<Record<HashName, string>> = {
  'SHA-1': OID.sha1,
  'SHA-256': OID.sha256,
  'SHA-384': OID.sha384,
  'SHA-512': OID.sha512,
};

/** The SHA-1 or SHA-2 hash a digest algorithm OID names; undefined for any other. */
export const hashByOid = (oid: string): HashName | undefined => HASH_BY_OID[oid];
export const oidByHash = (hash: HashName): string => OID_BY_HASH[hash];

/** The hash of the RSA PKCS#1 v1.5 signature algorithms OCSP responders and CRL issuers use. */
export const RSA_SIGNATURE_HASH: Readonly<Record<string, HashName>> = {
  [OID.sha1WithRsa]: 'SHA-1',
  [OID.sha256WithRsa]: 'SHA-256',
  [OID.sha384WithRsa]: 'SHA-384',
  [OID.sha512WithRsa]: 'SHA-512',
};

/** The same, with ECDSA over the SHA-2 hashes. */
export const RSA_AND_ECDSA_SIGNATURE_HASH: Readonly<Record<string, HashName>> = {
  ...RSA_SIGNATURE_HASH,
  [OID.ecdsaWithSha256]: 'SHA-256',
  [OID.ecdsaWithSha384]: 'SHA-384',
  [OID.ecdsaWithSha512]: 'SHA-512',
};

/** node:crypto's name for a hash ('sha256' for 'SHA-256'). */
export const nodeHashName = (hash: HashName): string => hash.replace('-', '').toLowerCase();
