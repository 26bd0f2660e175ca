// What a relying party checks in one CMS SignerInfo (RFC 5652 §5.3-5.6), for PDF signatures and
// time-stamp tokens alike: the signed attributes as DER, whatever encoding they came in, and the
// signature value under an algorithm this service knows. A signature under an algorithm it does not
// know was not checked, so it is never reported as valid: the caller says which OID it was.
import { type KeyObject, constants, createHash, verify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { MAX_BER_ELEMENTS, berElementLength, berToDer } from '../ber.js';
import { PkiError } from '../errors.js';
import { toArrayBuffer } from '../primitives.js';
import { type HashName, OID } from './oids.js';

/**
 * Elements a CMS may hold: the bound of pki/ber.ts, which reads it first. asn1js stops at 10,000 by
 * default, which a signature carrying the CRLs of its chain passes: such a CMS is a signature all the same.
 */
const MAX_CMS_NODES = MAX_BER_ELEMENTS;

/** A ContentInfo's content, when it is SignedData; throws otherwise. */
function signedDataIn(bytes: Uint8Array): pkijs.SignedData {
  const parsed = asn1js.fromBER(toArrayBuffer(bytes), { maxNodes: MAX_CMS_NODES });
  if (parsed.offset < 0) {
    throw new PkiError('bad_der', `the CMS does not parse: ${parsed.result.error}`);
  }
  const info = new pkijs.ContentInfo({ schema: parsed.result });
  if (info.contentType !== OID.signedData) {
    throw new PkiError('bad_der', 'the CMS is not SignedData');
  }
  return new pkijs.SignedData({ schema: info.content });
}

/**
 * The SignedData of the ContentInfo at the start of `cms` and that element's length (what follows
 * it, a PDF /Contents' zero padding, is not read). pkijs's schemas take BER lengths but not a
 * constructed string where they expect a primitive one (a signature value in pieces): such a CMS is
 * read from its DER, which holds the same values. Throws PkiError('bad_der') when it is no SignedData.
 */
export function signedDataOf(cms: Uint8Array): { signedData: pkijs.SignedData; length: number } {
  const length = berElementLength(cms);
  if (length === 0) {
    throw new PkiError('bad_der', 'the CMS is not one complete BER element');
  }
  const element = cms.subarray(0, length);
  try {
    return { signedData: signedDataIn(element), length };
  } catch {
    try {
      return { signedData: signedDataIn(berToDer(element)), length };
    } catch {
      throw new PkiError('bad_der', 'the CMS is not SignedData');
    }
  }
}

export interface SignedAttributes {
  /** RFC 5652 §5.4: the DER encoding of the SET OF attributes (tag 0x31), the bytes the signature covers. */
  der: Buffer;
  /** The attributes as read from `der`, so what is checked is what was signed. */
  attributes: pkijs.Attribute[];
}

/**
 * The SignerInfo's signed attributes as DER, or null when it has none. A BER writer may have used
 * indefinite lengths or split the messageDigest OCTET STRING into pieces: the signer signed the
 * DER of the same values (§5.4), so that is what is rebuilt and read. Throws PkiError('bad_der')
 * when they are not well-formed BER.
 */
export function signedAttributes(info: pkijs.SignerInfo): SignedAttributes | null {
  if (!info.signedAttrs || info.signedAttrs.encodedValue.byteLength === 0) {
    return null;
  }
  const der = berToDer(new Uint8Array(info.signedAttrs.encodedValue));
  // §5.4: "a separate encoding of the signedAttrs field is performed ... with an EXPLICIT SET OF tag".
  der[0] = 0x31;
  const parsed = asn1js.fromBER(toArrayBuffer(der), { maxNodes: MAX_CMS_NODES });
  if (parsed.offset < 0 || !(parsed.result instanceof asn1js.Set)) {
    throw new PkiError('bad_der', `the signed attributes do not parse: ${parsed.result.error || 'not a SET OF'}`);
  }
  const items = parsed.result.valueBlock.value as asn1js.Sequence[];
  return { der, attributes: items.map((schema) => new pkijs.Attribute({ schema })) };
}

/** A digest algorithm of a SignerInfo: its name and how node computes it. */
export interface DigestAlgorithm {
  name: string;
  node: string;
  /** For an extendable-output function, the octets it yields. */
  outputLength?: number;
}

/** The digest algorithms checked (RFC 5754, RFC 8702). */
export const DIGEST_ALGORITHMS: Readonly<Record<string, DigestAlgorithm>> = {
  [OID.sha1]: { name: 'SHA-1', node: 'sha1' },
  [OID.sha224]: { name: 'SHA-224', node: 'sha224' },
  [OID.sha256]: { name: 'SHA-256', node: 'sha256' },
  [OID.sha384]: { name: 'SHA-384', node: 'sha384' },
  [OID.sha512]: { name: 'SHA-512', node: 'sha512' },
  [OID.sha3_256]: { name: 'SHA3-256', node: 'sha3-256' },
  [OID.sha3_384]: { name: 'SHA3-384', node: 'sha3-384' },
  [OID.sha3_512]: { name: 'SHA3-512', node: 'sha3-512' },
  // RFC 8702 §2: id-shake256 in CMS yields 512 bits, the digest Ed448 signatures use (RFC 8419 §2.3).
  [OID.shake256]: { name: 'SHAKE256', node: 'shake256', outputLength: 64 },
};

/** `data` digested with `alg`. */
export function digestWith(alg: DigestAlgorithm, data: Uint8Array): Buffer {
  return createHash(alg.node, alg.outputLength ? { outputLength: alg.outputLength } : undefined)
    .update(data)
    .digest();
}

type KeyType = 'rsa' | 'ec' | 'ed25519' | 'ed448';

interface SignatureAlgorithm {
  name: string;
  key: KeyType;
  /** The hash the OID names; none when the digestAlgorithm's hash is used (rsaEncryption, id-ecPublicKey). */
  hash?: HashName;
  pss?: true;
  /** ECDSA with the signature as r || s (BSI TR-03111 §5.2.1), not a DER SEQUENCE. */
  plain?: true;
}

/** The signature algorithms checked: RSA PKCS#1 v1.5 and PSS, ECDSA (DER or plain r || s), EdDSA. */
export const SIGNATURE_ALGORITHMS: Readonly<Record<string, SignatureAlgorithm>> = {
  // RFC 3370 §3.2: rsaEncryption in a SignerInfo means PKCS#1 v1.5 with the digestAlgorithm's hash.
  [OID.rsaEncryption]: { name: 'rsaEncryption', key: 'rsa' },
  [OID.sha1WithRsa]: { name: 'sha1WithRSAEncryption', key: 'rsa', hash: 'SHA-1' },
  [OID.sha256WithRsa]: { name: 'sha256WithRSAEncryption', key: 'rsa', hash: 'SHA-256' },
  [OID.sha384WithRsa]: { name: 'sha384WithRSAEncryption', key: 'rsa', hash: 'SHA-384' },
  [OID.sha512WithRsa]: { name: 'sha512WithRSAEncryption', key: 'rsa', hash: 'SHA-512' },
  [OID.rsassaPss]: { name: 'rsassaPss', key: 'rsa', pss: true },
  // id-ecPublicKey, which some signers write where ecdsa-with-<hash> belongs.
  [OID.ecPublicKey]: { name: 'ecPublicKey', key: 'ec' },
  [OID.ecdsaWithSha1]: { name: 'ecdsa-with-SHA1', key: 'ec', hash: 'SHA-1' },
  [OID.ecdsaWithSha256]: { name: 'ecdsa-with-SHA256', key: 'ec', hash: 'SHA-256' },
  [OID.ecdsaWithSha384]: { name: 'ecdsa-with-SHA384', key: 'ec', hash: 'SHA-384' },
  [OID.ecdsaWithSha512]: { name: 'ecdsa-with-SHA512', key: 'ec', hash: 'SHA-512' },
  // BSI TR-03111 §5.2.1 ecdsa-plain-signatures, as German qualified signature cards write them.
  [OID.ecdsaPlainSha1]: { name: 'ecdsa-plain-SHA1', key: 'ec', hash: 'SHA-1', plain: true },
  [OID.ecdsaPlainSha256]: { name: 'ecdsa-plain-SHA256', key: 'ec', hash: 'SHA-256', plain: true },
  [OID.ecdsaPlainSha384]: { name: 'ecdsa-plain-SHA384', key: 'ec', hash: 'SHA-384', plain: true },
  [OID.ecdsaPlainSha512]: { name: 'ecdsa-plain-SHA512', key: 'ec', hash: 'SHA-512', plain: true },
  [OID.ed25519]: { name: 'Ed25519', key: 'ed25519' },
  [OID.ed448]: { name: 'Ed448', key: 'ed448' },
};

/** The signature value's octets, joined when a BER writer split the OCTET STRING into pieces. */
export function signatureValue(info: pkijs.SignerInfo): Uint8Array {
  return new Uint8Array(info.signature.getValue());
}

/** The outcome of a signature check: verified; not verified (and why, when more can be said); or not checkable here. */
export type SignatureOutcome = { ok: true } | { ok: false; reason?: string; unsupported?: string };

/**
 * Checks the SignerInfo's signature value over `data` (the DER signed attributes, or the content
 * when there are none) with the signer's public key. `hash` is the digestAlgorithm's. An unknown
 * signature algorithm, or one naming another hash than the digest algorithm, is not checked: the
 * outcome says so, naming the OID. One for another kind of key than the signer's does not verify.
 */
export function verifySignerSignature(info: pkijs.SignerInfo, hash: string, data: Uint8Array, key: KeyObject): SignatureOutcome {
  const oid = info.signatureAlgorithm.algorithmId;
  const alg = SIGNATURE_ALGORITHMS[oid];
  if (!alg) {
    return { ok: false, unsupported: `unsupported signature algorithm ${oid}` };
  }
  if (alg.hash && alg.hash !== hash) {
    return { ok: false, unsupported: `the signature algorithm ${alg.name} (${oid}) names ${alg.hash}, the digest algorithm ${hash}` };
  }
  const keyType = key.asymmetricKeyType === 'rsa-pss' ? 'rsa' : key.asymmetricKeyType;
  if (keyType !== alg.key) {
    // A known algorithm, but the presented certificate's key cannot have made it: it does not verify.
    return {
      ok: false,
      reason: `the signature algorithm ${alg.name} (${oid}) is not one for the signer certificate's ${keyType ?? 'unknown'} key`,
    };
  }
  const signature = signatureValue(info);
  if (alg.key === 'ed25519' || alg.key === 'ed448') {
    // RFC 8419 §3: pure EdDSA over the data itself; the digest algorithm only made messageDigest.
    return { ok: verify(null, data, key, signature) };
  }
  const nodeHash = Object.values(DIGEST_ALGORITHMS).find((d) => d.name === hash && !d.outputLength)?.node;
  if (!nodeHash) {
    return { ok: false, unsupported: `the signature algorithm ${alg.name} (${oid}) is not checked with the digest algorithm ${hash}` };
  }
  if (alg.pss) {
    return {
      ok: verify(nodeHash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature),
    };
  }
  if (alg.plain) {
    return { ok: verify(nodeHash, data, { key, dsaEncoding: 'ieee-p1363' }, signature) };
  }
  return { ok: verify(nodeHash, data, key, signature) };
}

/**
 * Whether `cert` is the one a SignerIdentifier names (RFC 5652 §5.3): by issuer and serial number,
 * or by subjectKeyIdentifier ([0]).
 */
export function identifiesCertificate(sid: unknown, cert: pkijs.Certificate): boolean {
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return cert.issuer.isEqual(sid.issuer) && cert.serialNumber.isEqual(sid.serialNumber);
  }
  if (!(sid instanceof asn1js.Primitive)) {
    return false;
  }
  const ski = cert.extensions?.find((e) => e.extnID === OID.subjectKeyIdentifier);
  const value = ski ? asn1js.fromBER(ski.extnValue.valueBlock.valueHexView).result : undefined;
  return value instanceof asn1js.OctetString && Buffer.from(value.valueBlock.valueHexView).equals(Buffer.from(sid.valueBlock.valueHexView));
}
