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

export const binary = (bytes: Uint8Array) => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return s;
};
export const fromBinary = (s: string): Uint8Array<ArrayBuffer> => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** node-forge, loaded only when a SAT signer picks their files. */
const loadForge = async () => (await import('node-forge')).default;
type Forge = Awaited<ReturnType<typeof loadForge>>;
type Asn1 = ReturnType<Forge['asn1']['fromDer']>;
type ForgeCert = ReturnType<Forge['pki']['certificateFromAsn1']>;
type ForgeKey = ReturnType<Forge['pki']['privateKeyFromAsn1']>;

/** Reads and checks the .cer and .key against the sticker's RFC; throws EfirmaError. */
export async function openEfirma(
  cer: Uint8Array,
  keyFile: Uint8Array,
  password: string,
  expectedRfc: string,
  now = new Date(),
): Promise<Efirma> {
  const forge = await loadForge();
  const shapes = fileShapes(forge);
  const cert = readCertificate(forge, cer, shapes);
  const privateKey = openKey(forge, keyFile, password, shapes);
  checkPair(cert, privateKey);
  const { name, rfc } = checkHolder(forge, cert, expectedRfc, now);
  const pkcs8 = fromBinary(forge.asn1.toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(privateKey))).getBytes());
  const key = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
  pkcs8.fill(0);
  return { key, certificate: cer, name, rfc, notAfter: cert.validity.notAfter };
}

/** DER parsing that never throws, and the two shapes that tell a certificate from a key file. */
function fileShapes(forge: Forge) {
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
  return {
    parse,
    // Certificate (RFC 5280 §4.1): tbsCertificate, signatureAlgorithm, signatureValue.
    isCertificate: (node: Asn1 | null) => shaped(node, [Type.SEQUENCE, Type.SEQUENCE, Type.BITSTRING]),
    // EncryptedPrivateKeyInfo (RFC 5208 §6): encryptionAlgorithm, encryptedData; the SAT's .key.
    isEncryptedKey: (node: Asn1 | null) => shaped(node, [Type.SEQUENCE, Type.OCTETSTRING]),
  };
}

type Shapes = ReturnType<typeof fileShapes>;

function readCertificate(forge: Forge, cer: Uint8Array, shapes: Shapes): ForgeCert {
  const cerAsn1 = shapes.parse(cer);
  try {
    return forge.pki.certificateFromAsn1(cerAsn1!);
  } catch {
    // The two files lie side by side, both DER: the key picked for the certificate is said as such.
    // forge reads RSA certificates only; the SAT issues no other kind.
    throw new EfirmaError(shapes.isEncryptedKey(cerAsn1) ? 'cer_is_key' : 'bad_cer');
  }
}

function openKey(forge: Forge, keyFile: Uint8Array, password: string, shapes: Shapes): ForgeKey {
  // Told apart before any password is tried: forge's decryption fails alike on a certificate and
  // on a wrong password, and "wrong password" would send the signer retyping a right one.
  const keyAsn1 = shapes.parse(keyFile);
  if (shapes.isCertificate(keyAsn1)) {
    throw new EfirmaError('key_is_certificate');
  }
  if (!shapes.isEncryptedKey(keyAsn1)) {
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
  try {
    return forge.pki.privateKeyFromAsn1(info) as ForgeKey;
  } catch {
    throw new EfirmaError('wrong_password');
  }
}

/** The key is the certificate's own (RSA, the same modulus and exponent). */
function checkPair(cert: ForgeCert, privateKey: ForgeKey): void {
  const publicKey = cert.publicKey as { n?: { equals(o: unknown): boolean }; e?: { equals(o: unknown): boolean } };
  if (!publicKey.n || !publicKey.e) {
    throw new EfirmaError('not_rsa');
  }
  if (!publicKey.n.equals(privateKey.n) || !publicKey.e.equals(privateKey.e)) {
    throw new EfirmaError('key_mismatch');
  }
}

/** An e.firma (not a seal certificate) for the RFC asked, valid now; its holder's name and RFC. */
function checkHolder(forge: Forge, cert: ForgeCert, expectedRfc: string, now: Date): { name: string; rfc: string } {
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
  return { name: attr('2.5.4.3'), rfc };
}

/** The signature value over the bytes the service prepared. */
export async function signPrepared(key: CryptoKey, signedAttributes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('RSASSA-PKCS1-v1_5', key, signedAttributes));
}

export const toBase64 = (bytes: Uint8Array) => btoa(binary(bytes));
export const fromBase64 = (text: string) => fromBinary(atob(text));
