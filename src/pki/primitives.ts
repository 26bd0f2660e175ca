// Shared building blocks: the crypto engine, key import, serial numbers, times, digests (the OIDs
// are cms/oids.ts's).
// One explicit pkijs engine over node's WebCrypto, passed to every pkijs call, so pki/ does not
// depend on whatever global engine another library (or a test) installs with pkijs.setEngine.
import { KeyObject, createHash, createPrivateKey, sign as nodeSign, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { type HashName, OID, nodeHashName } from './cms/oids.js';
import { PkiError } from './errors.js';

export const subtle = webcrypto.subtle as SubtleCrypto;
export const engine = new pkijs.CryptoEngine({ name: 'sello-node', crypto: webcrypto as unknown as Crypto });

const DIGEST_LENGTH: Record<HashName, number> = { 'SHA-1': 20, 'SHA-256': 32, 'SHA-384': 48, 'SHA-512': 64 };

export const digestLength = (hash: HashName): number => DIGEST_LENGTH[hash];

export function digest(hash: HashName, data: Uint8Array): Buffer {
  return createHash(nodeHashName(hash)).update(data).digest();
}

/** A fresh ArrayBuffer holding exactly these bytes (pkijs and asn1js want ArrayBuffers). */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Key kinds the service generates. */
export type KeyKind = 'rsa-2048' | 'rsa-3072' | 'ecdsa-p256';

export async function generateKeyPair(kind: KeyKind, extractable: boolean): Promise<CryptoKeyPair> {
  const algorithm =
    kind === 'ecdsa-p256'
      ? { name: 'ECDSA', namedCurve: 'P-256' }
      : {
          name: 'RSASSA-PKCS1-v1_5',
          modulusLength: kind === 'rsa-2048' ? 2048 : 3072,
          publicExponent: new Uint8Array([1, 0, 1]),
          hash: 'SHA-256',
        };
  return (await subtle.generateKey(algorithm, extractable, ['sign', 'verify'])) as CryptoKeyPair;
}

const CURVES: Record<string, { webName: string; hash: HashName }> = {
  prime256v1: { webName: 'P-256', hash: 'SHA-256' },
  secp384r1: { webName: 'P-384', hash: 'SHA-384' },
  secp521r1: { webName: 'P-521', hash: 'SHA-512' },
};

/**
 * Imports a PKCS#8 private key as a non-extractable signing key. RSA keys are bound to SHA-256
 * (WebCrypto ties the hash to an RSASSA key); EC keys sign with the hash matching their curve.
 */
export async function importPrivateKey(pkcs8: Uint8Array): Promise<CryptoKey> {
  let type: string | undefined;
  let curve: string | undefined;
  try {
    const key = createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' });
    type = key.asymmetricKeyType;
    curve = key.asymmetricKeyDetails?.namedCurve;
  } catch {
    throw new PkiError('bad_der', 'the private key is not a PKCS#8 structure');
  }
  let algorithm: RsaHashedImportParams | EcKeyImportParams;
  if (type === 'rsa') {
    algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  } else if (type === 'ec' && curve !== undefined && CURVES[curve]) {
    algorithm = { name: 'ECDSA', namedCurve: CURVES[curve].webName };
  } else {
    throw new PkiError('unsupported_key', `keys of type ${type ?? '?'} ${curve ?? ''} are not supported`);
  }
  return subtle.importKey('pkcs8', toArrayBuffer(pkcs8), algorithm, false, ['sign']);
}

/** The hash a key signs with: SHA-256 for RSA (bound at import), the curve's own for ECDSA. */
export function hashForKey(key: CryptoKey): HashName {
  if (key.algorithm.name === 'ECDSA') {
    const curve = (key.algorithm as EcKeyAlgorithm).namedCurve;
    return Object.values(CURVES).find((c) => c.webName === curve)?.hash ?? 'SHA-256';
  }
  return ((key.algorithm as RsaHashedKeyAlgorithm).hash?.name as HashName | undefined) ?? 'SHA-256';
}

/**
 * A random certificate serial: 16 bytes from the CSPRNG, first byte in 0x40..0x7f so the INTEGER
 * is positive with no padding byte and always 16 bytes long (RFC 5280 §4.1.2.2: positive, at most
 * 20 octets; CA/Browser Forum BR §7.1: at least 64 bits of CSPRNG output — here 126).
 */
export function randomSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x3f) | 0x40;
  return bytes.toString('hex');
}

/** Canonical serial form used across pki/: lowercase hex of the magnitude, even length, no sign byte. */
export function normalizeSerialHex(hex: string): string {
  const clean = hex.replace(/[\s:]/g, '').toLowerCase();
  if (!/^[0-9a-f]+$/.test(clean)) {
    throw new PkiError('bad_argument', `serial number "${hex}" is not hexadecimal`);
  }
  const stripped = clean.replace(/^0+/, '');
  const even = stripped.length % 2 === 1 ? `0${stripped}` : stripped;
  return even === '' ? '00' : even;
}

/** DER INTEGER for a serial given as hex (RFC 5280 §4.1.2.2: a positive integer). */
export function serialToInteger(hex: string): asn1js.Integer {
  const magnitude = Buffer.from(normalizeSerialHex(hex), 'hex');
  if (magnitude.length > 20) {
    throw new PkiError('bad_argument', 'a serial number is at most 20 octets (RFC 5280 §4.1.2.2)');
  }
  const bytes = magnitude[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), magnitude]) : magnitude;
  return new asn1js.Integer({ valueHex: toArrayBuffer(bytes) });
}

/** The canonical hex of a DER INTEGER's magnitude (inverse of serialToInteger). */
export function integerToSerialHex(value: asn1js.Integer): string {
  return normalizeSerialHex(Buffer.from(value.valueBlock.valueHexView).toString('hex'));
}

/** Drops milliseconds: DER times in certificates carry none (RFC 5280 §4.1.2.5.2). */
export function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5, §5.1.2.4). */
export function toTime(date: Date): pkijs.Time {
  const value = wholeSeconds(date);
  return new pkijs.Time({ type: value.getUTCFullYear() < 2050 ? 0 : 1, value });
}

/** Parses a DER certificate; a parse failure is a PkiError('bad_der'). */
export function parseCertificate(der: Uint8Array): pkijs.Certificate {
  try {
    return pkijs.Certificate.fromBER(toArrayBuffer(der));
  } catch {
    throw new PkiError('bad_der', 'not a DER X.509 certificate');
  }
}

/** Key identifier, RFC 5280 §4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING value. */
export function keyIdentifier(spki: pkijs.PublicKeyInfo): Buffer {
  return digest('SHA-1', spki.subjectPublicKey.valueBlock.valueHexView);
}

/** A certificate's DER, from a parsed pkijs certificate. */
export function certificateDer(certificate: pkijs.Certificate): Buffer {
  return Buffer.from(certificate.toSchema().toBER(false));
}

const SIGNATURE_OIDS: Record<'RSASSA-PKCS1-v1_5' | 'ECDSA', Record<HashName, string>> = {
  'RSASSA-PKCS1-v1_5': {
    'SHA-1': OID.sha1WithRsa,
    'SHA-256': OID.sha256WithRsa,
    'SHA-384': OID.sha384WithRsa,
    'SHA-512': OID.sha512WithRsa,
  },
  ECDSA: { 'SHA-1': OID.ecdsaWithSha1, 'SHA-256': OID.ecdsaWithSha256, 'SHA-384': OID.ecdsaWithSha384, 'SHA-512': OID.ecdsaWithSha512 },
};

/** A signature and the AlgorithmIdentifier that names it. */
export interface DataSignature {
  algorithm: pkijs.AlgorithmIdentifier;
  signature: Buffer;
}

/** Signs at once with node:crypto, under the AlgorithmIdentifier it names. */
export interface NodeSigner {
  algorithm: pkijs.AlgorithmIdentifier;
  sign: (data: Uint8Array) => Buffer;
}

/**
 * Signatures made at once by node:crypto with the key behind a WebCrypto key of node's own, for
 * the two kinds the service signs with (RSASSA-PKCS1-v1_5, ECDSA); undefined for anything else
 * (RSA-PSS, a key of another provider), which then goes through WebCrypto. WebCrypto's sign is a
 * job on the libuv thread pool: on a busy machine the waits for that thread and for the loop to
 * take the answer back cost more than the RSA operation itself. The bytes are the same: PKCS#1
 * v1.5 is deterministic, and ECDSA comes out as the DER SEQUENCE pkijs converts WebCrypto's r || s
 * into; the AlgorithmIdentifier is pkijs's (no parameters).
 */
export function nodeSigner(key: CryptoKey): NodeSigner | undefined {
  const name = key.algorithm.name;
  if ((name !== 'RSASSA-PKCS1-v1_5' && name !== 'ECDSA') || !key.usages.includes('sign')) {
    return undefined;
  }
  let keyObject: KeyObject;
  try {
    keyObject = KeyObject.from(key);
  } catch {
    return undefined; // not one of node's CryptoKeys
  }
  const hash = hashForKey(key);
  const options = name === 'ECDSA' ? { key: keyObject, dsaEncoding: 'der' as const } : keyObject;
  return {
    algorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SIGNATURE_OIDS[name][hash] }),
    sign: (data) => nodeSign(nodeHashName(hash), data, options),
  };
}

/**
 * Signs `data` with a key from importPrivateKey/generateKeyPair: sha256WithRSAEncryption or
 * ecdsa-with-SHA*, ECDSA signatures converted to the DER SEQUENCE X.509 and CMS carry.
 */
export async function signData(key: CryptoKey, data: Uint8Array): Promise<DataSignature> {
  const signer = nodeSigner(key);
  if (signer) {
    return { algorithm: signer.algorithm, signature: signer.sign(data) };
  }
  const { signatureAlgorithm, parameters } = await engine.getSignatureParameters(key, hashForKey(key));
  const signature = await engine.signWithPrivateKey(toArrayBuffer(data), key, { algorithm: parameters.algorithm as Algorithm });
  return { algorithm: signatureAlgorithm, signature: Buffer.from(signature) };
}

/** Context-specific tag wrappers, the bread and butter of hand-written DER. */
export const explicit = (tagNumber: number, value: asn1js.BaseBlock) =>
  new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber }, value: [value] });
export const implicitPrimitive = (tagNumber: number, bytes: Uint8Array = new Uint8Array(0)) =>
  new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber }, valueHex: toArrayBuffer(bytes) });

/** GeneralizedTime without fractional seconds ("YYYYMMDDHHMMSSZ", RFC 5280 §4.1.2.5.2, RFC 6960). */
export const generalizedTime = (date: Date) => new asn1js.GeneralizedTime({ valueDate: wholeSeconds(date) });

/**
 * One DER element (X.690 §8.1, definite length) from its identifier octet and the encodings of its
 * content's parts, joined as they are: for structures that embed existing DER (certificates, a
 * token) without parsing and re-encoding it.
 */
export function derElement(tag: number, parts: readonly Uint8Array[]): Buffer {
  const length = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const lengthOctets: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) {
    lengthOctets.unshift(rest & 0xff);
  }
  const header = length < 0x80 ? [tag, length] : [tag, 0x80 | lengthOctets.length, ...lengthOctets];
  return Buffer.concat([Buffer.from(header), ...parts]);
}

/** A DER SET OF: elements sorted by their encodings (X.690 §11.6), as CMS signed attributes need. */
export function derSetOf(items: readonly asn1js.BaseBlock[], tag?: { tagClass: number; tagNumber: number }): asn1js.BaseBlock {
  const sorted = items
    .map((item) => ({ item, der: Buffer.from(item.toBER(false)) }))
    .sort((a, b) => Buffer.compare(a.der, b.der))
    .map(({ item }) => item);
  return tag ? new asn1js.Constructed({ idBlock: tag, value: sorted }) : new asn1js.Set({ value: sorted });
}

/** Throws unless `der` is exactly one ASN.1 structure: no trailing bytes smuggled after it. */
export function assertSingleStructure(der: Uint8Array): void {
  const parsed = asn1js.fromBER(toArrayBuffer(der));
  if (parsed.offset !== der.byteLength) {
    throw new PkiError('bad_der', 'not a single DER structure');
  }
}
