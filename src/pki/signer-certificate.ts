// One certificate per signature, with a key generated for it and never stored.
//
// Lifetime: years, not minutes (SIGNER_CERT_DAYS by default, never past the issuing CA). The key
// signs once and is dropped, so a long life exposes nothing; a short one made every signature show
// "Certificate has Expired" half an hour later in validators that judge the certificate at the
// current time and ignore the signature's time stamp (pdfsig, `openssl cms -verify` without
// -attime, several PDF readers), which is how most people check a signed PDF.
//
// Key: RSA 2048, RSASSA-PKCS1-v1_5 with SHA-256 by default: the one every validator of the test kit
// accepts. ECDSA P-256 was measured (docs/performance.md, "Signer keys"): pdfsig (NSS), PDFBox 2 with
// BouncyCastle and mutool accept it, iText 5.5.13 refuses it; other readers (Acrobat among them)
// were not measured, so it is not the default. RSA-PSS is not offered.
// 2048 bits is plenty for a key used once within minutes and then dropped; generation costs tens to
// a few hundred milliseconds, which is why the service takes it from a pool generated ahead of time
// (key-pool.ts; still one key per signature). 'ecdsa-p256' costs a thousandth of that and is an
// account's choice, for accounts whose every consumer is known to accept it.
//
// Identity: CN = the signer's name; the contact goes in subjectAltName, as RFC 5280 §4.1.2.6
// requires for new certificates (emailAddress in the DN is deprecated). A phone number is a
// URI "tel:+<E.164>" (RFC 3966): a standard GeneralName that OpenSSL, NSS and Acrobat display as
// text, where an otherName would need an OID nobody recognises and shows up as "<unsupported>".
//
// Usages: keyUsage digitalSignature + nonRepudiation (critical), extendedKeyUsage emailProtection:
// NSS (pdfsig) checks signer certificates for the email-signer usage, and Acrobat accepts
// emailProtection among its document-signing EKUs.
import { domainToASCII } from 'node:url';
import {
  KeyUsage,
  authorityInfoAccess,
  buildCertificate,
  buildName,
  crlDistributionPoint,
  extKeyUsageExtension,
  keyUsageExtension,
  subjectAltName,
} from './certificate-builder.js';
import { PkiError } from './errors.js';
import type { SignerKeySource } from './key-pool.js';
import type { LoadedPki } from './material-types.js';
import { generateKeyPair, normalizeSerialHex } from './primitives.js';
import { OID } from './cms/oids.js';
import { DEFAULT_SIGNER_KEY, SIGNER_CERT_DAYS, type SignerKeyAlgorithm } from './signer-defaults.js';

export { SIGNER_CERT_DAYS } from './signer-defaults.js';

export interface IssueSignerCertificateOptions {
  /** The signer's name, as the subject CN (clipped to 64 characters, RFC 5280 ub-common-name). */
  name: string;
  /** rfc822Name in subjectAltName. At least one of email, phone and uri is required. */
  email?: string;
  /** E.164 number ("+33 6 12 34 56 78" is accepted and normalised), as a tel: URI in subjectAltName. */
  phone?: string;
  /** An http(s) URI in subjectAltName: the service itself, for the seals it puts on its own documents. */
  uri?: string;
  /** Hex serial, at least 64 bits of CSPRNG output: use randomSerialHex() and record it for OCSP/CRL. */
  serialNumber: string;
  now: Date;
  /** Lifetime after `now` in days, 1 to 3650 (default SIGNER_CERT_DAYS); cut at the issuing CA's notAfter. */
  validityDays?: number;
  ocspUrl: string;
  crlUrl: string;
  caIssuersUrl?: string;
  /** Default DEFAULT_SIGNER_KEY (see the file comment). */
  keyAlgorithm?: SignerKeyAlgorithm;
  /**
   * Where the one-time key pair comes from (a KeyPairPool); by default it is generated here. The
   * pair must be of `keyAlgorithm` with a non-extractable private key; it is taken only once the
   * other options are checked.
   */
  keys?: SignerKeySource;
}

/** The certificate and its one-time key; the fields line up with @libpdf/core's CryptoKeySigner. */
export interface SignerCertificate {
  certificateDer: Buffer;
  /** Non-extractable: WebCrypto lets the private half of a generated pair stay inside. */
  privateKey: CryptoKey;
  /** [issuing CA, ...intermediates, root], the order CryptoKeySigner's certificateChain expects. */
  chainDer: Buffer[];
  serialHex: string;
  notBefore: Date;
  notAfter: Date;
  keyType: 'RSA' | 'EC';
  signatureAlgorithm: 'RSASSA-PKCS1-v1_5' | 'ECDSA';
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * notBefore is set this far before `now`: the service may run as several processes whose clocks
 * differ slightly, and the signing time or time-stamp another process writes must not precede
 * the certificate. Minutes, not hours: backdating is otherwise a way to misstate issuance.
 */
const CLOCK_SKEW_MINUTES = 5;

function telUri(phone: string): string {
  const compact = phone.replace(/[\s().-]/g, '');
  // E.164: a country code and at most 15 digits in all (ITU-T E.164 §6).
  if (!/^\+[1-9]\d{6,14}$/.test(compact)) {
    throw new PkiError('bad_argument', 'the phone number must be in international form, +<country code><number>');
  }
  return `tel:${compact}`;
}

function mailbox(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  // rfc822Name is an IA5String: the domain goes to its A-label form; a non-ASCII local part would
  // need SmtpUTF8Mailbox (RFC 9598), which few validators read, so it is refused.
  const domain = at > 0 ? domainToASCII(email.slice(at + 1)) : '';
  if (at <= 0 || domain === '' || !/^[\x21-\x7e]+$/.test(local)) {
    throw new PkiError('bad_argument', 'the e-mail address is not a valid ASCII mailbox');
  }
  return `${local}@${domain}`;
}

/**
 * A pair from a key source must be what generateKeyPair would have made here: the algorithm and
 * size the certificate announces, and a private key that can sign and cannot be exported.
 */
function checkedKeyPair(pair: CryptoKeyPair, keyAlgorithm: SignerKeyAlgorithm): CryptoKeyPair {
  const alg = pair.privateKey.algorithm as Partial<RsaHashedKeyAlgorithm & EcKeyAlgorithm> & KeyAlgorithm;
  const hash = (alg.hash as KeyAlgorithm | undefined)?.name;
  const expected =
    keyAlgorithm === 'rsa-2048'
      ? alg.name === 'RSASSA-PKCS1-v1_5' && alg.modulusLength === 2048 && hash === 'SHA-256'
      : alg.name === 'ECDSA' && alg.namedCurve === 'P-256';
  if (
    !expected ||
    pair.publicKey.algorithm.name !== alg.name ||
    pair.privateKey.type !== 'private' ||
    pair.privateKey.extractable ||
    !pair.privateKey.usages.includes('sign')
  ) {
    throw new PkiError('bad_argument', `the key source gave a key pair that is not a non-extractable ${keyAlgorithm} signing pair`);
  }
  return pair;
}

/** Issues a signer certificate from the issuing CA for one signature. */
export async function issueSignerCertificate(pki: LoadedPki, options: IssueSignerCertificateOptions): Promise<SignerCertificate> {
  const name = options.name.trim();
  if (name === '') {
    throw new PkiError('bad_argument', 'the signer needs a name');
  }
  if (!options.email && !options.phone && !options.uri) {
    throw new PkiError('bad_argument', 'the signer needs an e-mail address or a phone number');
  }
  if (options.uri !== undefined && !/^https?:\/\/[\x21-\x7e]+$/.test(options.uri)) {
    throw new PkiError('bad_argument', 'the URI must be an ASCII http(s) URL');
  }
  const serialHex = normalizeSerialHex(options.serialNumber);
  if (serialHex.length < 16) {
    throw new PkiError('bad_argument', 'the serial number must carry at least 64 random bits');
  }
  const validityDays = options.validityDays ?? SIGNER_CERT_DAYS;
  if (!(Number.isInteger(validityDays) && validityDays >= 1 && validityDays <= 3650)) {
    throw new PkiError('bad_argument', 'validityDays must be a whole number between 1 and 3650');
  }
  const emails = options.email ? [mailbox(options.email)] : [];
  const uris = [...(options.phone ? [telUri(options.phone)] : []), ...(options.uri ? [options.uri] : [])];
  const keyAlgorithm = options.keyAlgorithm ?? DEFAULT_SIGNER_KEY;
  // extractable = false: the private key can sign and nothing else, and is dropped with the object.
  const keys = options.keys
    ? checkedKeyPair(await options.keys.take(keyAlgorithm), keyAlgorithm)
    : await generateKeyPair(keyAlgorithm, false);
  const notBefore = new Date(options.now.getTime() - CLOCK_SKEW_MINUTES * MINUTE);
  // RFC 5280 lets a certificate outlive its issuer, but path validation then fails at the
  // issuer's end anyway and some validators refuse such a child outright: stop where the CA stops.
  const issuerEnd = pki.issuing.certificate.notAfter.value;
  const notAfter = new Date(Math.min(options.now.getTime() + validityDays * DAY, issuerEnd.getTime()));
  if (notAfter.getTime() <= options.now.getTime()) {
    throw new PkiError('bad_argument', 'the issuing CA has expired: it cannot issue signer certificates');
  }
  const certificateDer = await buildCertificate({
    serialHex,
    subject: buildName({ commonName: name }),
    publicKey: keys.publicKey,
    notBefore,
    notAfter,
    signer: pki.issuing,
    extensions: [
      keyUsageExtension([KeyUsage.digitalSignature, KeyUsage.nonRepudiation]),
      extKeyUsageExtension([OID.kpEmailProtection], false),
      subjectAltName({ emails, uris }),
      authorityInfoAccess({ ocsp: options.ocspUrl, caIssuers: options.caIssuersUrl }),
      crlDistributionPoint(options.crlUrl),
    ],
  });
  return {
    certificateDer,
    privateKey: keys.privateKey,
    chainDer: pki.chainDer,
    serialHex,
    notBefore: new Date(Math.floor(notBefore.getTime() / 1000) * 1000),
    notAfter: new Date(Math.floor(notAfter.getTime() / 1000) * 1000),
    keyType: keyAlgorithm === 'rsa-2048' ? 'RSA' : 'EC',
    signatureAlgorithm: keyAlgorithm === 'rsa-2048' ? 'RSASSA-PKCS1-v1_5' : 'ECDSA',
  };
}
