// A CERT signer's own certificate and key, read in the browser: the file and its password never
// leave the page. A PKCS#12 file (.p12/.pfx) is opened by node-forge, which reads the legacy
// encodings many CAs still issue (RC2-40 and 3DES under SHA-1 PBE, a SHA-1 MAC) that WebCrypto and
// OpenSSL 3's defaults refuse; a PEM file may hold the certificate and the key (encrypted PKCS#8 or
// not), or the key may come in a second file. The key goes straight into WebCrypto as a
// non-extractable CryptoKey, which signs (RSASSA-PKCS1-v1_5, SHA-256). The service checks the
// certificate against the signer and its trust list; these checks only explain problems early.
import { fromBinary, binary } from './efirma';

/** Why the files cannot sign; each has a message in the page's language (CertificateStep.tsx). */
export type CertificateProblem = 'bad_file' | 'wrong_password' | 'no_key' | 'no_certificate' | 'not_rsa' | 'expired' | 'not_yet_valid';

export class CertificateError extends Error {
  constructor(readonly problem: CertificateProblem) {
    super(problem);
  }
}

export interface OwnCertificate {
  /** Non-extractable: it can sign, never be read back. */
  key: CryptoKey;
  /** The certificate whose public key is the key's, DER. */
  certificate: Uint8Array;
  name: string;
}

const loadForge = async () => (await import('node-forge')).default;
type Forge = Awaited<ReturnType<typeof loadForge>>;
type ForgeCert = ReturnType<Forge['pki']['certificateFromAsn1']>;
type RsaKey = { n: { equals(o: unknown): boolean }; e: { equals(o: unknown): boolean } };

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
  const leaf = found.certificates.find((c) => {
    const pub = c.publicKey as Partial<RsaKey>;
    return pub.n?.equals(found.key.n) && pub.e?.equals(found.key.e);
  });
  if (!leaf) {
    throw new CertificateError(found.certificates.length === 0 ? 'no_certificate' : 'not_rsa');
  }
  if (now < leaf.validity.notBefore) {
    throw new CertificateError('not_yet_valid');
  }
  if (now > leaf.validity.notAfter) {
    throw new CertificateError('expired');
  }
  const keyAsn1 = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(found.key as never));
  const pkcs8 = fromBinary(forge.asn1.toDer(keyAsn1).getBytes());
  const key = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
  pkcs8.fill(0);
  const cn = leaf.subject.getField('CN')?.value;
  return {
    key,
    certificate: fromBinary(forge.asn1.toDer(forge.pki.certificateToAsn1(leaf)).getBytes()),
    name: typeof cn === 'string' ? cn : '',
  };
}

type Found = { certificates: ForgeCert[]; key: RsaKey };

function readPkcs12(forge: Forge, file: Uint8Array, password: string): Found {
  let asn1: ReturnType<Forge['asn1']['fromDer']>;
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
  const certificates = (p12.getBags({ bagType: oids.certBag })[oids.certBag] ?? []).flatMap((b) => (b.cert ? [b.cert] : []));
  const key = keys.find((b) => b.key)?.key as RsaKey | undefined;
  if (!key) {
    // A bag forge could not read as RSA (an EC key) leaves a bag without a key.
    throw new CertificateError(keys.length > 0 ? 'not_rsa' : 'no_key');
  }
  return { certificates, key };
}

/** PEM blocks of a kind. */
const blocks = (text: string, label: RegExp) =>
  [...text.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g)].filter((m) => label.test(m[1])).map((m) => m[0]);

function readPem(forge: Forge, file: Uint8Array, keyFile: Uint8Array | null, password: string): Found {
  const text = new TextDecoder().decode(file) + (keyFile ? `\n${new TextDecoder().decode(keyFile)}` : '');
  const certificates: ForgeCert[] = [];
  for (const pem of blocks(text, /^(X509 )?CERTIFICATE$/)) {
    try {
      certificates.push(forge.pki.certificateFromPem(pem));
    } catch {
      // forge reads RSA certificates only: another kind is not this signer's RSA leaf.
    }
  }
  const rsa = blocks(text, /^(RSA )?PRIVATE KEY$/)[0];
  // PKCS#8 encrypted, or the older RSA PEM with a Proc-Type: 4,ENCRYPTED header (RFC 1421).
  const encrypted = blocks(text, /^ENCRYPTED PRIVATE KEY$/)[0] ?? (rsa?.includes('ENCRYPTED') ? rsa : undefined);
  const plain = encrypted ? undefined : rsa;
  if (!encrypted && !plain) {
    throw new CertificateError(blocks(text, /PRIVATE KEY$/).length > 0 ? 'not_rsa' : 'no_key');
  }
  let key: RsaKey | null = null;
  try {
    key = (encrypted ? forge.pki.decryptRsaPrivateKey(encrypted, password) : forge.pki.privateKeyFromPem(plain!)) as RsaKey | null;
  } catch {
    key = null;
  }
  if (!key) {
    throw new CertificateError(encrypted ? 'wrong_password' : 'bad_file');
  }
  return { certificates, key };
}
