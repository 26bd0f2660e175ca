// How a signer whose key stays with them signs, read from their certificate's key: RSA with
// RSASSA-PKCS1-v1_5 or RSASSA-PSS, or ECDSA on P-256, P-384 or P-521 with the hash of the curve's
// strength (RFC 5753 §7.2, RFC 5758 §3.2: ecdsa-with-SHA384 for P-384). One hash serves the content
// digest and the signed attributes, since a SignerInfo names one digestAlgorithm for both (RFC 5652
// §5.3, §5.4). The value the signer returns is checked here and written as the CMS carries it
// (ECDSA as a DER ECDSA-Sig-Value, RFC 5480 §2.2 / RFC 3279 §2.2.3, even when WebCrypto gave r || s).
import { type KeyObject, X509Certificate, constants, verify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { type HashName, OID, nodeHashName, oidByHash } from './oids.js';
import { signingFailed } from './sign-error.js';

/** The salt of the PSS signatures asked for: the hash's length (RFC 8017 §9.1, what WebCrypto callers use). */
export const PSS_SALT_LENGTH = 32;

export type ExternalSchemeName = 'RSASSA-PKCS1-v1_5' | 'RSA-PSS' | 'ECDSA';

/** What the signer's key makes, in WebCrypto's words. */
export interface ExternalScheme {
  /** The scheme the signer is asked for; an RSA key may answer with PSS instead (the CMS then says PSS). */
  name: ExternalSchemeName;
  hash: Extract<HashName, 'SHA-256' | 'SHA-384' | 'SHA-512'>;
  /** ECDSA only: the WebCrypto curve name. */
  namedCurve?: 'P-256' | 'P-384' | 'P-521';
  /** RSA-PSS only. */
  saltLength?: number;
}

const CURVES: Record<string, { namedCurve: NonNullable<ExternalScheme['namedCurve']>; hash: ExternalScheme['hash']; size: number }> = {
  prime256v1: { namedCurve: 'P-256', hash: 'SHA-256', size: 32 },
  secp384r1: { namedCurve: 'P-384', hash: 'SHA-384', size: 48 },
  secp521r1: { namedCurve: 'P-521', hash: 'SHA-512', size: 66 },
};

/** The scheme of the certificate's key, or undefined when this service cannot sign with it. */
export function schemeOfKey(key: KeyObject): ExternalScheme | undefined {
  if (key.asymmetricKeyType === 'rsa') {
    return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  }
  if (key.asymmetricKeyType === 'rsa-pss') {
    // An id-RSASSA-PSS key may only sign with PSS (RFC 4055 §1.2).
    return { name: 'RSA-PSS', hash: 'SHA-256', saltLength: PSS_SALT_LENGTH };
  }
  const curve = key.asymmetricKeyType === 'ec' ? CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''] : undefined;
  return curve && { name: 'ECDSA', hash: curve.hash, namedCurve: curve.namedCurve };
}

/** The scheme of a certificate (DER); SIGNING_FAILED naming the key when it has none. */
export function externalScheme(certificateDer: Uint8Array): ExternalScheme {
  const key = new X509Certificate(certificateDer).publicKey;
  const scheme = schemeOfKey(key);
  if (!scheme) {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    signingFailed(
      `the signer certificate's key (${key.asymmetricKeyType}${curve ? ` ${curve}` : ''}) is neither RSA nor ECDSA on P-256, P-384 or P-521`,
    );
  }
  return scheme!;
}

/** An unsigned big-endian integer as a DER INTEGER's content (no leading zeros, a 0x00 before a high bit). */
function integerContent(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) {
    i++;
  }
  const trimmed = bytes.subarray(i);
  return trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
}

/** r || s (IEEE P1363, what WebCrypto's ECDSA gives) as the DER ECDSA-Sig-Value a CMS carries. */
export function p1363ToDer(raw: Uint8Array): Buffer {
  const half = raw.length / 2;
  const seq = new asn1js.Sequence({
    value: [
      new asn1js.Integer({ valueHex: integerContent(raw.subarray(0, half)) }),
      new asn1js.Integer({ valueHex: integerContent(raw.subarray(half)) }),
    ],
  });
  return Buffer.from(seq.toBER(false));
}

/** What a checked signature value is, as the SignerInfo will say it. */
export interface CheckedSignatureValue {
  /** The value as the CMS carries it. */
  value: Buffer;
  signatureAlgorithm: pkijs.AlgorithmIdentifier;
}

const pssParams = (hash: ExternalScheme['hash'], saltLength: number) => {
  const hashAlgorithm = new pkijs.AlgorithmIdentifier({ algorithmId: oidByHash(hash), algorithmParams: new asn1js.Null() });
  return new pkijs.RSASSAPSSParams({
    hashAlgorithm,
    maskGenAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.mgf1, algorithmParams: hashAlgorithm.toSchema() }),
    saltLength,
  }).toSchema();
};

/** The DER RSASSA-PSS-params of the PSS signatures this service asks for (RFC 4055 §3.1). */
export const pssParamsDer = (hash: ExternalScheme['hash'] = 'SHA-256', saltLength = PSS_SALT_LENGTH): Buffer =>
  Buffer.from(pssParams(hash, saltLength).toBER(false));

const RSA_WITH: Record<ExternalScheme['hash'], string> = {
  'SHA-256': OID.sha256WithRsa,
  'SHA-384': OID.sha384WithRsa,
  'SHA-512': OID.sha512WithRsa,
};
const ECDSA_WITH: Record<ExternalScheme['hash'], string> = {
  'SHA-256': OID.ecdsaWithSha256,
  'SHA-384': OID.ecdsaWithSha384,
  'SHA-512': OID.ecdsaWithSha512,
};

/**
 * PSS salt lengths tried: the hash's length (asked for), 20 (RSASSA-PSS-params' default, RFC 4055
 * §3.1), none, and the largest (OpenSSL's default). The CMS names the one that verified.
 */
function pssSaltThatVerifies(data: Uint8Array, key: KeyObject, hash: ExternalScheme['hash'], value: Uint8Array): number | undefined {
  const hashBytes = Number(hash.slice(4)) / 8;
  const modulusBytes = Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
  for (const saltLength of [hashBytes, 20, 0, modulusBytes - hashBytes - 2]) {
    const ok = tryVerify(() => verify(nodeHashName(hash), data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, value));
    if (ok) {
      return saltLength;
    }
  }
  return undefined;
}

function tryVerify(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/**
 * Checks `value` over `data` with the certificate's key under its scheme, and says how the CMS
 * writes it; undefined when it does not verify. An RSA key's value may be PKCS#1 v1.5 or PSS (a
 * remote provider may offer only PSS); an ECDSA value may be DER or r || s.
 */
export function checkSignatureValue(certificateDer: Uint8Array, data: Uint8Array, value: Uint8Array): CheckedSignatureValue | undefined {
  const key = new X509Certificate(certificateDer).publicKey;
  const scheme = externalScheme(certificateDer);
  const hash = nodeHashName(scheme.hash);
  if (scheme.name === 'ECDSA') {
    // RFC 5758 §3.2: the parameters of ecdsa-with-SHA2 are absent.
    const signatureAlgorithm = new pkijs.AlgorithmIdentifier({ algorithmId: ECDSA_WITH[scheme.hash] });
    if (tryVerify(() => verify(hash, data, { key, dsaEncoding: 'der' }, value))) {
      return { value: Buffer.from(value), signatureAlgorithm };
    }
    const size = CURVES[key.asymmetricKeyDetails?.namedCurve ?? '']?.size;
    if (value.length === 2 * size && tryVerify(() => verify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, value))) {
      return { value: p1363ToDer(value), signatureAlgorithm };
    }
    return undefined;
  }
  if (scheme.name === 'RSASSA-PKCS1-v1_5' && tryVerify(() => verify(hash, data, key, value))) {
    // RFC 4055 §5: NULL parameters for sha*WithRSAEncryption.
    return {
      value: Buffer.from(value),
      signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: RSA_WITH[scheme.hash], algorithmParams: new asn1js.Null() }),
    };
  }
  const salt = pssSaltThatVerifies(data, key, scheme.hash, value);
  if (salt === undefined) {
    return undefined;
  }
  return {
    value: Buffer.from(value),
    signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.rsassaPss, algorithmParams: pssParams(scheme.hash, salt) }),
  };
}
