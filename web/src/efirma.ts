// The signer's SAT e.firma, read in the browser: the key file and its password never leave the page.
// WebCrypto cannot decrypt the SAT's .key (PKCS#8 under PBES2 with 3DES), so node-forge does that,
// loaded only when a SAT signer picks their files; the decrypted key goes straight into WebCrypto as
// a non-extractable CryptoKey, which signs (RSASSA-PKCS1-v1_5, SHA-256). The checks here mirror the
// service's (src/domain/signing/sat/check-sat-certificate.ts) so the signer learns what is wrong
// before anything is sent; the service's are the ones that count.

/** Why the files cannot sign; each has a message in the page's language (EfirmaStep.tsx). */
export type EfirmaProblem =
  | 'bad_cer'
  | 'bad_key'
  | 'key_is_certificate'
  | 'cer_is_key'
  | 'wrong_password'
  | 'key_mismatch'
  | 'not_rsa'
  | 'csd'
  | 'no_rfc'
  | 'rfc_mismatch'
  | 'expired'
  | 'not_yet_valid';

export class EfirmaError extends Error {
  constructor(readonly problem: EfirmaProblem) {
    super(problem);
  }
}

export interface Efirma {
  /** Non-extractable: it can sign, never be read back. */
  key: CryptoKey;
  certificate: Uint8Array;
  name: string;
  rfc: string;
  notAfter: Date;
}

const OID_RFC = '2.5.4.45';
const OID_OU = '2.5.4.11';

const binary = (bytes: Uint8Array) => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return s;
};
const fromBinary = (s: string): Uint8Array<ArrayBuffer> => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** Reads and checks the .cer and .key against the sticker's RFC; throws EfirmaError. */
export async function openEfirma(
  cer: Uint8Array,
  keyFile: Uint8Array,
  password: string,
  expectedRfc: string,
  now = new Date(),
): Promise<Efirma> {
  const forge = (await import('node-forge')).default;
  type ForgeCert = ReturnType<typeof forge.pki.certificateFromAsn1>;
  type Asn1 = ReturnType<typeof forge.asn1.fromDer>;
  const { Class, Type } = forge.asn1;
  const parse = (bytes: Uint8Array): Asn1 | null => {
    try {
      return forge.asn1.fromDer(binary(bytes));
    } catch {
      return null;
    }
  };
  /** SEQUENCE of exactly these universal types: enough to tell a certificate from a key file. */
  const shaped = (node: Asn1 | null, types: number[]) =>
    node !== null &&
    node.tagClass === Class.UNIVERSAL &&
    node.type === Type.SEQUENCE &&
    Array.isArray(node.value) &&
    node.value.length === types.length &&
    node.value.every((part, i) => typeof part !== 'string' && part.tagClass === Class.UNIVERSAL && part.type === types[i]);
  // Certificate (RFC 5280 §4.1): tbsCertificate, signatureAlgorithm, signatureValue.
  const isCertificate = (node: Asn1 | null) => shaped(node, [Type.SEQUENCE, Type.SEQUENCE, Type.BITSTRING]);
  // EncryptedPrivateKeyInfo (RFC 5208 §6): encryptionAlgorithm, encryptedData; the SAT's .key.
  const isEncryptedKey = (node: Asn1 | null) => shaped(node, [Type.SEQUENCE, Type.OCTETSTRING]);

  const cerAsn1 = parse(cer);
  let cert: ForgeCert;
  try {
    cert = forge.pki.certificateFromAsn1(cerAsn1!);
  } catch {
    // The two files lie side by side, both DER: the key picked for the certificate is said as such.
    // forge reads RSA certificates only; the SAT issues no other kind.
    throw new EfirmaError(isEncryptedKey(cerAsn1) ? 'cer_is_key' : 'bad_cer');
  }
  const attr = (oid: string) => {
    const value = cert.subject.attributes.find((a) => a.type === oid)?.value;
    if (typeof value !== 'string') {
      return '';
    }
    try {
      return forge.util.decodeUtf8(value).trim();
    } catch {
      return value.trim();
    }
  };
  // Told apart before any password is tried: forge's decryption fails alike on a certificate and
  // on a wrong password, and "wrong password" would send the signer retyping a right one.
  const keyAsn1 = parse(keyFile);
  if (isCertificate(keyAsn1)) {
    throw new EfirmaError('key_is_certificate');
  }
  if (!isEncryptedKey(keyAsn1)) {
    throw new EfirmaError('bad_key');
  }
  let info: ReturnType<typeof forge.pki.decryptPrivateKeyInfo> | null;
  try {
    info = forge.pki.decryptPrivateKeyInfo(keyAsn1!, password);
  } catch {
    // A password so wrong the padding check throws.
    info = null;
  }
  if (!info) {
    throw new EfirmaError('wrong_password');
  }
  let privateKey: ReturnType<typeof forge.pki.privateKeyFromAsn1>;
  try {
    privateKey = forge.pki.privateKeyFromAsn1(info) as typeof privateKey;
  } catch {
    throw new EfirmaError('wrong_password');
  }
  const publicKey = cert.publicKey as { n?: { equals(o: unknown): boolean }; e?: { equals(o: unknown): boolean } };
  if (!publicKey.n || !publicKey.e) {
    throw new EfirmaError('not_rsa');
  }
  if (!publicKey.n.equals(privateKey.n) || !publicKey.e.equals(privateKey.e)) {
    throw new EfirmaError('key_mismatch');
  }
  // As the SAT's own libraries tell them apart: only a seal certificate (CSD) names a branch (OU).
  if (attr(OID_OU)) {
    throw new EfirmaError('csd');
  }
  const rfc = (
    attr(OID_RFC)
      .split('/')
      .map((p) => p.trim())
      .find(Boolean) ?? ''
  ).toUpperCase();
  if (!rfc) {
    throw new EfirmaError('no_rfc');
  }
  if (rfc !== expectedRfc.toUpperCase()) {
    throw new EfirmaError('rfc_mismatch');
  }
  if (now < cert.validity.notBefore) {
    throw new EfirmaError('not_yet_valid');
  }
  if (now > cert.validity.notAfter) {
    throw new EfirmaError('expired');
  }
  const pkcs8 = fromBinary(forge.asn1.toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(privateKey))).getBytes());
  const key = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
  pkcs8.fill(0);
  return { key, certificate: cer, name: attr('2.5.4.3'), rfc, notAfter: cert.validity.notAfter };
}

/** The signature value over the bytes the service prepared. */
export async function signPrepared(key: CryptoKey, signedAttributes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('RSASSA-PKCS1-v1_5', key, signedAttributes));
}

export const toBase64 = (bytes: Uint8Array) => btoa(binary(bytes));
export const fromBase64 = (text: string) => fromBinary(atob(text));
