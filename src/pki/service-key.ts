// The keys of the service itself (root, issuing CA, TSA, OCSP responder) behind one interface, so
// that what signs a certificate, a CRL, a time stamp or an OCSP answer does not know whether the key
// is in this process (software, sealed at rest under the master key) or in a PKCS#11 token
// (pkcs11-key.ts), where it never leaves the device. Per-signature signer keys are not service
// keys: they stay CryptoKeys (signer-certificate.ts, docs/performance.md "Service keys in a token").
import * as pkijs from 'pkijs';
import { type HashName, nodeHashName } from './cms/oids.js';
import { PkiError } from './errors.js';
import {
  type DataSignature,
  type KeyKind,
  engine,
  generateKeyPair,
  hashForKey,
  importPrivateKey,
  nodeSigner,
  subtle,
  toArrayBuffer,
} from './primitives.js';
import { X509Certificate, verify } from 'node:crypto';

/** The four keys of the service's PKI. */
export type ServiceKeyRole = 'root' | 'issuing' | 'tsa' | 'ocsp';

/** A key of the service that signs; where it lives is its own business. */
export interface ServiceKey {
  /** 'software' (in this process) or 'token' (a PKCS#11 token). */
  readonly location: 'software' | 'token';
  /** For messages: "the issuing CA key (token label sello-ca)". */
  readonly description: string;
  /** The hash every signature of this key is made with. */
  readonly hash: HashName;
  /** The signatureAlgorithm OID its signatures go under (sha256WithRSAEncryption, ecdsa-with-SHA256, ...). */
  readonly signatureOid: string;
  /** Signs `data` (hashed with `hash` first): PKCS#1 v1.5, or ECDSA as the DER SEQUENCE X.509 and CMS carry. */
  sign(data: Uint8Array): Promise<Buffer>;
}

/**
 * A key a token cannot reach: the token is gone, logged out, or the key was removed. Never answered
 * by signing with something else: the caller fails (503) and /healthz says which key.
 */
export class ServiceKeyUnavailableError extends PkiError {
  constructor(
    readonly role: string,
    message: string,
  ) {
    super('key_unavailable', message);
    this.name = 'ServiceKeyUnavailableError';
  }
}

/** A signature and the AlgorithmIdentifier that names it, made by a service key. */
export async function signWith(key: ServiceKey, data: Uint8Array): Promise<DataSignature> {
  return { algorithm: new pkijs.AlgorithmIdentifier({ algorithmId: key.signatureOid }), signature: await key.sign(data) };
}

/** A key in this process, from a non-extractable CryptoKey of node's WebCrypto. */
export async function softwareServiceKey(privateKey: CryptoKey, description: string): Promise<ServiceKey> {
  const signer = nodeSigner(privateKey);
  if (signer) {
    return {
      location: 'software',
      description,
      hash: hashForKey(privateKey),
      signatureOid: signer.algorithm.algorithmId,
      sign: async (data) => signer.sign(data),
    };
  }
  // A key node cannot sign with at once (another provider's): through WebCrypto.
  const { signatureAlgorithm, parameters } = await engine.getSignatureParameters(privateKey, hashForKey(privateKey));
  return {
    location: 'software',
    description,
    hash: hashForKey(privateKey),
    signatureOid: signatureAlgorithm.algorithmId,
    sign: async (data) =>
      Buffer.from(await engine.signWithPrivateKey(toArrayBuffer(data), privateKey, { algorithm: parameters.algorithm as Algorithm })),
  };
}

/** How a stored certificate's key is held: sealed PKCS#8 in the database, or a label in the token. */
export type StoredKey = { privateKeyPkcs8: Buffer; tokenLabel?: undefined } | { tokenLabel: string; privateKeyPkcs8?: undefined };

/** A key just made (or, in a token, found under the role's label) for a certificate to be issued. */
export interface NewServiceKey {
  /** subjectPublicKeyInfo DER, for the certificate. */
  spki: Buffer;
  key: ServiceKey;
  stored: StoredKey;
}

/** One service key's state, for /healthz. */
export interface ServiceKeyHealth {
  role: ServiceKeyRole;
  /** Its label in the token. */
  label: string;
  available: boolean;
  /** Why not, when not available. */
  problem?: string;
}

/** Where the service's keys are made and found: the process (software) or a PKCS#11 token. */
export interface ServiceKeyStore {
  /** Each key's state now (a token's keys only: keys in the process are always there). */
  health?(roles: readonly ServiceKeyRole[]): Promise<ServiceKeyHealth[]>;
  readonly location: 'software' | 'token';
  /** A key for `role`: new in software; in a token, the one under the role's label, generated if absent. */
  create(role: ServiceKeyRole, kind: KeyKind): Promise<NewServiceKey>;
  /** The key a stored certificate refers to; throws PkiError('bad_material') if it is not there or not that certificate's. */
  open(role: ServiceKeyRole, stored: StoredKey, certificateDer: Buffer): Promise<ServiceKey>;
}

const ROLE_NAMES: Record<ServiceKeyRole, string> = {
  root: 'root CA',
  issuing: 'issuing CA',
  tsa: 'TSA',
  ocsp: 'OCSP responder',
};
export const roleName = (role: ServiceKeyRole) => ROLE_NAMES[role];

/** Keys in this process: generated by WebCrypto, stored as PKCS#8 sealed under the master key. */
export const softwareKeyStore: ServiceKeyStore = {
  location: 'software',
  async create(role, kind) {
    const pair = await generateKeyPair(kind, true);
    const privateKeyPkcs8 = Buffer.from(await subtle.exportKey('pkcs8', pair.privateKey));
    const spki = Buffer.from(await subtle.exportKey('spki', pair.publicKey));
    // Re-imported non-extractable: the key in use cannot be exported again from this object.
    const key = await softwareServiceKey(await importPrivateKey(privateKeyPkcs8), `the ${roleName(role)} key`);
    return { spki, key, stored: { privateKeyPkcs8 } };
  },
  async open(role, stored) {
    if (!stored.privateKeyPkcs8) {
      throw new PkiError(
        'bad_material',
        `the stored ${roleName(role)} key is in a PKCS#11 token (label ${stored.tokenLabel}): set SELLO_PKCS11_MODULE and the token settings`,
      );
    }
    return softwareServiceKey(await importPrivateKey(stored.privateKeyPkcs8), `the ${roleName(role)} key`);
  },
};

/** True when `key` makes signatures the certificate's public key verifies: checked once at start. */
export async function keyMatchesCertificate(key: ServiceKey, certificateDer: Buffer): Promise<boolean> {
  const probe = Buffer.from('sello service key check');
  const signature = await key.sign(probe);
  const publicKey = new X509Certificate(certificateDer).publicKey;
  const options = publicKey.asymmetricKeyType === 'ec' ? { key: publicKey, dsaEncoding: 'der' as const } : publicKey;
  try {
    return verify(nodeHashName(key.hash), probe, options, signature);
  } catch {
    return false;
  }
}

/** A software key from PKCS#8 (operator material read from files, before it is stored). */
export async function serviceKeyFromPkcs8(pkcs8: Buffer, role: ServiceKeyRole): Promise<ServiceKey> {
  return softwareServiceKey(await importPrivateKey(pkcs8), `the ${roleName(role)} key`);
}
