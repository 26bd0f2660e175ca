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
import {
  KeyUsage,
  buildCertificate,
  buildName,
  caBasicConstraints,
  crlDistributionPoint,
  keyUsageExtension,
} from './certificate-builder.js';
import { checkMaterial } from './material-checks.js';
import type { KeyedCertificate, LoadedPki, PkiIdentity, PkiMaterial } from './material-types.js';
import { pkiUrls } from './pki-urls.js';
import { parseCertificate, randomSerialHex } from './primitives.js';
import { issueOcspResponderCertificate, issueTsaCertificate, startOf } from './service-certificates.js';
import { type ServiceKeyRole, type ServiceKeyStore, softwareKeyStore } from './service-key.js';

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
  /** Where the keys are made: in this process (default) or in a PKCS#11 token. */
  keyStore?: ServiceKeyStore;
}

const addYears = (date: Date, years: number) => {
  const result = new Date(date);
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
};

/**
 * Generates the whole service PKI (first start). Software keys leave only as PKCS#8 in the result;
 * token keys stay in the token and the result names their labels.
 */
export async function generateServicePki(options: GenerateServicePkiOptions): Promise<PkiMaterial> {
  const { organization, country, now } = options;
  const store = options.keyStore ?? softwareKeyStore;
  const urls = pkiUrls(options.baseUrl);
  const [rootKeys, issuingKeys] = await Promise.all([store.create('root', 'rsa-3072'), store.create('issuing', 'rsa-3072')]);

  const rootDer = await buildCertificate({
    serialHex: randomSerialHex(),
    subject: buildName({ commonName: `${organization} Root CA`, organization, country }),
    publicKey: rootKeys.spki,
    notBefore: startOf(now),
    notAfter: addYears(now, options.rootValidityYears ?? 20),
    signer: { selfSigned: true, key: rootKeys.key },
    // No AKI on a self-signed root (RFC 5280 §4.2.1.1 allows omitting it), no pathLen: the root
    // may later sign a second issuing CA.
    extensions: [caBasicConstraints(), keyUsageExtension([KeyUsage.keyCertSign, KeyUsage.cRLSign])],
  });
  const root = { certificate: parseCertificate(rootDer), key: rootKeys.key };

  const issuingDer = await buildCertificate({
    serialHex: randomSerialHex(),
    subject: buildName({ commonName: `${organization} Signing CA`, organization, country }),
    publicKey: issuingKeys.spki,
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
  const issuing = { certificate: parseCertificate(issuingDer), key: issuingKeys.key };

  const serviceOptions = { organization, country, baseUrl: options.baseUrl, now, keyStore: store };
  const [tsa, ocsp] = await Promise.all([
    issueTsaCertificate(issuing, { ...serviceOptions, validityDays: 365 * (options.tsaValidityYears ?? 5) }),
    issueOcspResponderCertificate(issuing, { ...serviceOptions, validityDays: options.ocspValidityDays ?? 365 }),
  ]);
  return {
    root: { certificateDer: rootDer, ...rootKeys.stored },
    issuing: { certificateDer: issuingDer, ...issuingKeys.stored },
    intermediatesDer: [],
    tsa,
    ocsp,
  };
}

/** A stored certificate and key, ready to use (the key non-extractable, or in the token). */
export async function importPkiIdentity(
  keyed: KeyedCertificate,
  role: ServiceKeyRole,
  store: ServiceKeyStore = softwareKeyStore,
): Promise<PkiIdentity> {
  return {
    certificateDer: keyed.certificateDer,
    certificate: parseCertificate(keyed.certificateDer),
    key: await store.open(role, keyed, keyed.certificateDer),
  };
}

/** Checks the material (see material-checks.ts) and opens its keys where they are kept. */
export async function importPki(material: PkiMaterial, store: ServiceKeyStore = softwareKeyStore): Promise<LoadedPki> {
  checkMaterial(material);
  const identity = (keyed: KeyedCertificate, role: ServiceKeyRole) => importPkiIdentity(keyed, role, store);
  const [issuing, tsa, ocsp] = await Promise.all([
    identity(material.issuing, 'issuing'),
    identity(material.tsa, 'tsa'),
    identity(material.ocsp, 'ocsp'),
  ]);
  const { root } = material;
  return {
    root: {
      certificateDer: root.certificateDer,
      certificate: parseCertificate(root.certificateDer),
      key:
        root.privateKeyPkcs8 || root.tokenLabel
          ? await store.open(
              'root',
              root.privateKeyPkcs8 ? { privateKeyPkcs8: root.privateKeyPkcs8 } : { tokenLabel: root.tokenLabel! },
              root.certificateDer,
            )
          : undefined,
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
