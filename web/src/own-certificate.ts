// A CERT signer's own certificate and key, read in the browser: the file and its password never
// leave the page. A PKCS#12 file (.p12/.pfx) is opened by node-forge, which reads the legacy
// encodings many CAs still issue (RC2-40 and 3DES under SHA-1 PBE, a SHA-1 MAC) that WebCrypto and
// OpenSSL 3's defaults refuse; a PEM file may hold the certificate and the key (encrypted PKCS#8 or
// not, PKCS#1 RSA, SEC1 EC), or the key may come in a second file. forge reads RSA keys only: any
// other key comes out of it as the PKCS#8 structure, which WebCrypto imports. The key goes straight
// into WebCrypto as a non-extractable CryptoKey: RSA (signing with PKCS#1 v1.5), RSASSA-PSS, or
// ECDSA on P-256, P-384 or P-521, as the service's prepare answer asks (signWithOwnKey). The
// service checks the certificate against the signer and its trust list; these checks only explain
// problems early.
import type { CertPrepared } from './api';
import { binary, fromBinary } from './efirma';

/** Why the files cannot sign; each has a message in the page's language (CertificateStep.tsx). */
export type CertificateProblem =
  | 'bad_file'
  | 'wrong_password'
  | 'no_key'
  | 'no_certificate'
  | 'unsupported_key'
  | 'expired'
  | 'not_yet_valid';

export class CertificateError extends Error {
  constructor(readonly problem: CertificateProblem) {
    super(problem);
  }
}

type KeyKind = { name: 'RSASSA-PKCS1-v1_5' | 'RSA-PSS'; hash: 'SHA-256' } | { name: 'ECDSA'; namedCurve: 'P-256' | 'P-384' | 'P-521' };

export interface OwnCertificate {
  /** Non-extractable: it can sign, never be read back. */
  key: CryptoKey;
  /** The certificate whose public key is the key's, DER. */
  certificate: Uint8Array;
  name: string;
}

/** What prepare asks the signer to make. */
export type SignatureRequest = Pick<CertPrepared, 'signature_algorithm' | 'hash' | 'salt_length'>;

const loadForge = async () => (await import('node-forge')).default;
type Forge = Awaited<ReturnType<typeof loadForge>>;
type Asn1 = ReturnType<Forge['asn1']['fromDer']>;

// Object identifiers read here (RFC 8017 App. C, RFC 5480 §2.1.1, §2.1.1.1).
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const RSASSA_PSS = '1.2.840.113549.1.1.10';
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const CURVES: Record<string, 'P-256' | 'P-384' | 'P-521'> = {
  '1.2.840.10045.3.1.7': 'P-256',
  '1.3.132.0.34': 'P-384',
  '1.3.132.0.35': 'P-521',
};

const isPem = (bytes: Uint8Array) => new TextDecoder().decode(bytes.subarray(0, 4096)).includes('-----BEGIN ');

/** Reads the certificate and key from a PKCS#12 or PEM file (and an optional separate PEM key). */
export async function openOwnCertificate(
  file: Uint8Array,
  keyFile: Uint8Array | null,
  password: string,
  now = new Date(),
): Promise<OwnCertificate> {
  const forge = await loadForge();
  const found = isPem(file) ? readPem(forge, file, keyFile, password) : readPkcs12(forge, file, password);
  if (found.certificates.length === 0) {
    throw new CertificateError('no_certificate');
  }
  const { kind, pkcs8 } = keyKindOf(forge, found.key);
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey('pkcs8', pkcs8, kind, false, ['sign']);
  } catch {
    throw new CertificateError('unsupported_key');
  } finally {
    pkcs8.fill(0);
  }
  const leaf = await leafOf(forge, found.certificates, key, kind);
  if (!leaf) {
    throw new CertificateError('no_certificate');
  }
  const [notBefore, notAfter] = leaf.validity;
  if (now < notBefore) {
    throw new CertificateError('not_yet_valid');
  }
  if (now > notAfter) {
    throw new CertificateError('expired');
  }
  return { key, certificate: leaf.der, name: leaf.name };
}

/** The signature value prepare asked for; ECDSA as WebCrypto gives it (r || s), which the service takes. */
export async function signWithOwnKey(key: CryptoKey, request: SignatureRequest, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const algorithm =
    request.signature_algorithm === 'ECDSA'
      ? { name: 'ECDSA', hash: request.hash }
      : request.signature_algorithm === 'RSA-PSS'
        ? { name: 'RSA-PSS', saltLength: request.salt_length ?? 32 }
        : { name: 'RSASSA-PKCS1-v1_5' };
  return new Uint8Array(await crypto.subtle.sign(algorithm, key, data));
}

const oidOf = (forge: Forge, node: Asn1 | undefined) =>
  node && node.type === forge.asn1.Type.OID ? forge.asn1.derToOid(node.value as string) : undefined;

const algorithmIdentifier = (forge: Forge, oid: string) => {
  const { asn1 } = forge;
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(oid).getBytes()),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, ''),
  ]);
};

/**
 * The WebCrypto algorithm of a PKCS#8 PrivateKeyInfo, and its DER as WebCrypto imports it: an
 * id-RSASSA-PSS key is the same RSAPrivateKey under another identifier (RFC 4055 §1.2), which
 * WebCrypto only reads under rsaEncryption.
 */
function keyKindOf(forge: Forge, info: Asn1): { kind: KeyKind; pkcs8: Uint8Array<ArrayBuffer> } {
  const parts = info.value as Asn1[];
  const algorithm = (parts[1]?.value ?? []) as Asn1[];
  const oid = oidOf(forge, algorithm[0]);
  const der = (node: Asn1) => fromBinary(forge.asn1.toDer(node).getBytes());
  if (oid === RSA_ENCRYPTION) {
    return { kind: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, pkcs8: der(info) };
  }
  if (oid === RSASSA_PSS) {
    const rewritten = forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SEQUENCE, true, [
      parts[0],
      algorithmIdentifier(forge, RSA_ENCRYPTION),
      ...parts.slice(2),
    ]);
    return { kind: { name: 'RSA-PSS', hash: 'SHA-256' }, pkcs8: der(rewritten) };
  }
  const curve = oid === EC_PUBLIC_KEY ? CURVES[oidOf(forge, algorithm[1]) ?? ''] : undefined;
  if (!curve) {
    throw new CertificateError('unsupported_key');
  }
  return { kind: { name: 'ECDSA', namedCurve: curve }, pkcs8: der(info) };
}

interface Certificate {
  der: Uint8Array;
  spki: Asn1;
  validity: [Date, Date];
  name: string;
}

/** The parts of a certificate read here, from its ASN.1 (forge's own reader takes RSA keys only). */
function certificateOf(forge: Forge, asn1: Asn1): Certificate | null {
  try {
    const { asn1: a } = forge;
    const fields = ((asn1.value as Asn1[])[0].value ?? []) as Asn1[];
    const i = fields[0].tagClass === a.Class.CONTEXT_SPECIFIC ? 1 : 0;
    const time = (node: Asn1) =>
      node.type === a.Type.UTCTIME ? a.utcTimeToDate(node.value as string) : a.generalizedTimeToDate(node.value as string);
    const [from, to] = fields[i + 3].value as Asn1[];
    // forge's reader of a Name, which its typings leave out.
    const rdn = (forge.pki as unknown as { RDNAttributesAsArray(n: Asn1): { type: string; value: unknown }[] }).RDNAttributesAsArray;
    const cn = rdn(fields[i + 4]).find((x) => x.type === forge.pki.oids.commonName);
    return {
      der: fromBinary(a.toDer(asn1).getBytes()),
      spki: fields[i + 5],
      validity: [time(from), time(to)],
      name: typeof cn?.value === 'string' ? cn.value : '',
    };
  } catch {
    return null;
  }
}

/** The certificate whose public key verifies what the key signs (the key is not extractable, so it is asked). */
async function leafOf(forge: Forge, certificates: Asn1[], key: CryptoKey, kind: KeyKind): Promise<Certificate | undefined> {
  const probe = crypto.getRandomValues(new Uint8Array(32));
  const algorithm =
    kind.name === 'ECDSA' ? { name: 'ECDSA', hash: 'SHA-256' } : kind.name === 'RSA-PSS' ? { name: 'RSA-PSS', saltLength: 32 } : kind;
  const signed = await crypto.subtle.sign(algorithm, key, probe);
  for (const asn1 of certificates) {
    const cert = certificateOf(forge, asn1);
    if (!cert) {
      continue;
    }
    const spki = cert.spki.value as Asn1[];
    const importable =
      kind.name === 'RSA-PSS' && oidOf(forge, (spki[0].value as Asn1[])[0]) === RSASSA_PSS
        ? forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SEQUENCE, true, [
            algorithmIdentifier(forge, RSA_ENCRYPTION),
            spki[1],
          ])
        : cert.spki;
    try {
      const publicKey = await crypto.subtle.importKey('spki', fromBinary(forge.asn1.toDer(importable).getBytes()), kind, false, ['verify']);
      if (await crypto.subtle.verify(algorithm, publicKey, signed, probe)) {
        return cert;
      }
    } catch {
      // Another kind of key: not this key's certificate.
    }
  }
  return undefined;
}

/** The certificates and the key's PrivateKeyInfo found in a file. */
type Found = { certificates: Asn1[]; key: Asn1 };

function readPkcs12(forge: Forge, file: Uint8Array, password: string): Found {
  let asn1: Asn1;
  try {
    asn1 = forge.asn1.fromDer(binary(file));
  } catch {
    throw new CertificateError('bad_file');
  }
  let p12: ReturnType<Forge['pkcs12']['pkcs12FromAsn1']>;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, password);
  } catch (err) {
    // forge says the MAC does not verify, or a decryption fails: both mean the password.
    throw new CertificateError(/mac|password|decrypt/i.test((err as Error).message) ? 'wrong_password' : 'bad_file');
  }
  const { oids } = forge.pki;
  const keys = [
    ...(p12.getBags({ bagType: oids.pkcs8ShroudedKeyBag })[oids.pkcs8ShroudedKeyBag] ?? []),
    ...(p12.getBags({ bagType: oids.keyBag })[oids.keyBag] ?? []),
  ];
  // forge parses RSA keys and certificates; any other it leaves as ASN.1 in the bag.
  const certificates = (p12.getBags({ bagType: oids.certBag })[oids.certBag] ?? []).flatMap((b) => {
    const node = b.cert ? forge.pki.certificateToAsn1(b.cert) : (b as { asn1?: Asn1 }).asn1;
    return node ? [node] : [];
  });
  const bag = keys.find((b) => b.key || (b as { asn1?: Asn1 }).asn1);
  if (!bag) {
    throw new CertificateError('no_key');
  }
  const key = bag.key ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key as never)) : (bag as { asn1: Asn1 }).asn1;
  return { certificates, key };
}

/** PEM blocks of a kind. */
const blocks = (text: string, label: RegExp) =>
  [...text.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g)].filter((m) => label.test(m[1])).map((m) => m[0]);

const pemBody = (forge: Forge, pem: string) => forge.asn1.fromDer(forge.pem.decode(pem)[0].body);

function readPem(forge: Forge, file: Uint8Array, keyFile: Uint8Array | null, password: string): Found {
  const text = new TextDecoder().decode(file) + (keyFile ? `\n${new TextDecoder().decode(keyFile)}` : '');
  const certificates: Asn1[] = [];
  for (const pem of blocks(text, /^(X509 )?CERTIFICATE$/)) {
    try {
      certificates.push(pemBody(forge, pem));
    } catch {
      // Not DER: not a certificate of this signer.
    }
  }
  const encrypted = blocks(text, /^ENCRYPTED PRIVATE KEY$/)[0];
  if (encrypted) {
    let info: Asn1 | null = null;
    try {
      info = forge.pki.decryptPrivateKeyInfo(pemBody(forge, encrypted), password);
    } catch {
      info = null;
    }
    if (!info) {
      throw new CertificateError('wrong_password');
    }
    return { certificates, key: info };
  }
  const plain = blocks(text, /^PRIVATE KEY$/)[0];
  if (plain) {
    return { certificates, key: readBlock(() => pemBody(forge, plain)) };
  }
  const rsa = blocks(text, /^RSA PRIVATE KEY$/)[0];
  if (rsa) {
    // The older RSA PEM, maybe with a Proc-Type: 4,ENCRYPTED header (RFC 1421).
    let key: ReturnType<Forge['pki']['privateKeyFromPem']> | null = null;
    try {
      key = rsa.includes('ENCRYPTED') ? forge.pki.decryptRsaPrivateKey(rsa, password) : forge.pki.privateKeyFromPem(rsa);
    } catch {
      key = null;
    }
    if (!key) {
      throw new CertificateError(rsa.includes('ENCRYPTED') ? 'wrong_password' : 'bad_file');
    }
    return { certificates, key: forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key)) };
  }
  const ec = blocks(text, /^EC PRIVATE KEY$/)[0];
  if (ec) {
    if (ec.includes('ENCRYPTED')) {
      throw new CertificateError('unsupported_key');
    }
    return { certificates, key: readBlock(() => sec1ToPkcs8(forge, pemBody(forge, ec))) };
  }
  throw new CertificateError(blocks(text, /PRIVATE KEY$/).length > 0 ? 'unsupported_key' : 'no_key');
}

function readBlock(read: () => Asn1): Asn1 {
  try {
    return read();
  } catch (err) {
    throw err instanceof CertificateError ? err : new CertificateError('bad_file');
  }
}

/** A SEC1 ECPrivateKey (RFC 5915) as the PKCS#8 PrivateKeyInfo WebCrypto imports, its curve from its parameters. */
function sec1ToPkcs8(forge: Forge, sec1: Asn1): Asn1 {
  const { asn1: a } = forge;
  const params = (sec1.value as Asn1[]).find((n) => n.tagClass === a.Class.CONTEXT_SPECIFIC && n.type === 0);
  const curve = params && (params.value as Asn1[])[0];
  if (!curve) {
    throw new CertificateError('unsupported_key');
  }
  return a.create(a.Class.UNIVERSAL, a.Type.SEQUENCE, true, [
    a.create(a.Class.UNIVERSAL, a.Type.INTEGER, false, '\u0000'),
    a.create(a.Class.UNIVERSAL, a.Type.SEQUENCE, true, [
      a.create(a.Class.UNIVERSAL, a.Type.OID, false, a.oidToDer(EC_PUBLIC_KEY).getBytes()),
      curve,
    ]),
    a.create(a.Class.UNIVERSAL, a.Type.OCTETSTRING, false, a.toDer(sec1).getBytes()),
  ]);
}
