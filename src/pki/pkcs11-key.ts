// The service's keys in a PKCS#11 token: found by label, generated there when absent (first start),
// and signing through the token, so no service key exists in the process. The digest is computed
// here and only the digest goes to the token (CKM_RSA_PKCS over a DigestInfo, CKM_ECDSA over the
// hash): the same signature as CKM_SHA256_RSA_PKCS, fewer bytes over a network HSM's link, and
// every token has these two mechanisms.
import { type HashName, OID } from './cms/oids.js';
import { PkiError } from './errors.js';
import type { Pkcs11Token, TokenKeyInfo } from './pkcs11-token.js';
import { digest } from './primitives.js';
import {
  type ServiceKey,
  type ServiceKeyHealth,
  type ServiceKeyRole,
  type ServiceKeyStore,
  ServiceKeyUnavailableError,
  keyMatchesCertificate,
  roleName,
} from './service-key.js';

/** The label of each service key in the token. */
export type TokenKeyLabels = Record<ServiceKeyRole, string>;

/** The key of a role is not in the token under its label; `role` names the setting to look at. */
export class TokenKeyMissingError extends PkiError {
  constructor(
    readonly role: ServiceKeyRole,
    readonly label: string,
    message: string,
  ) {
    super('bad_material', message);
    this.name = 'TokenKeyMissingError';
  }
}

// DigestInfo prefix of SHA-256 (RFC 8017 §9.2 note 1): what CKM_RSA_PKCS signs is prefix || hash.
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/** ECDSA's r || s as the DER SEQUENCE { r INTEGER, s INTEGER } X.509 and CMS carry (RFC 3279 §2.2.3). */
export function ecdsaRawToDer(raw: Buffer): Buffer {
  const integer = (bytes: Buffer) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) {
      start += 1;
    }
    const magnitude = bytes.subarray(start);
    const body = magnitude[0] & 0x80 ? Buffer.concat([Buffer.from([0]), magnitude]) : magnitude;
    return Buffer.concat([Buffer.from([0x02, body.length]), body]);
  };
  const half = raw.length / 2;
  const content = Buffer.concat([integer(raw.subarray(0, half)), integer(raw.subarray(half))]);
  const length = content.length < 0x80 ? Buffer.from([content.length]) : Buffer.from([0x81, content.length]);
  return Buffer.concat([Buffer.from([0x30]), length, content]);
}

const EC_HASHES: Record<string, { hash: HashName; oid: string }> = {
  prime256v1: { hash: 'SHA-256', oid: OID.ecdsaWithSha256 },
  secp384r1: { hash: 'SHA-384', oid: OID.ecdsaWithSha384 },
};

/** A service key signing through the token. Any failure is ServiceKeyUnavailableError: never a fallback. */
export function tokenServiceKey(token: Pkcs11Token, role: ServiceKeyRole, label: string, info: TokenKeyInfo): ServiceKey {
  const description = `the ${roleName(role)} key (label "${label}" in ${token.name})`;
  const ec = info.type === 'ec' ? EC_HASHES[info.curve!] : undefined;
  const hash: HashName = ec?.hash ?? 'SHA-256';
  return {
    location: 'token',
    description,
    hash,
    signatureOid: ec?.oid ?? OID.sha256WithRsa,
    async sign(data) {
      const hashed = digest(hash, data);
      try {
        if (ec) {
          return ecdsaRawToDer(await token.sign(label, 'ecdsa', hashed));
        }
        return await token.sign(label, 'rsa-pkcs', Buffer.concat([SHA256_DIGEST_INFO, hashed]));
      } catch (error) {
        throw new ServiceKeyUnavailableError(role, `${description} cannot sign: ${(error as Error).message}`);
      }
    },
  };
}

/** Service keys in a PKCS#11 token, under the configured labels. */
export class Pkcs11KeyStore implements ServiceKeyStore {
  readonly location = 'token' as const;

  constructor(
    readonly token: Pkcs11Token,
    readonly labels: TokenKeyLabels,
  ) {}

  /**
   * The key under the role's label, generated in the token when there is none: the service
   * certifies whatever key the operator put there (RSA, or EC P-256/P-384), or one it made itself.
   */
  async create(role: ServiceKeyRole, kind: 'rsa-2048' | 'rsa-3072' | 'ecdsa-p256') {
    const label = this.labels[role];
    let info = await this.token.keyInfo(label);
    if (!info) {
      await this.token.generate(label, kind);
      info = await this.token.keyInfo(label);
      if (!info) {
        throw new PkiError('bad_material', `${this.token.name} did not keep the ${roleName(role)} key generated under "${label}"`);
      }
    }
    return { spki: info.spki, key: tokenServiceKey(this.token, role, label, info), stored: { tokenLabel: label } };
  }

  /** The key under the role's label, checked against the stored certificate by signing with it once. */
  async open(role: ServiceKeyRole, stored: { privateKeyPkcs8?: Buffer; tokenLabel?: string }, certificateDer: Buffer) {
    if (stored.privateKeyPkcs8) {
      throw new PkiError(
        'bad_material',
        `the stored ${roleName(role)} key is in software (sealed in the database), not in ${this.token.name}: ` +
          'a PKI created without a token keeps its keys there (see docs/operations.md, "Service keys in a PKCS#11 token")',
      );
    }
    const label = this.labels[role];
    const info = await this.token.keyInfo(label);
    if (!info) {
      throw new TokenKeyMissingError(role, label, `${this.token.name} has no private key labelled "${label}" (the ${roleName(role)} key)`);
    }
    const key = tokenServiceKey(this.token, role, label, info);
    if (!(await keyMatchesCertificate(key, certificateDer))) {
      throw new TokenKeyMissingError(
        role,
        label,
        `the key labelled "${label}" in ${this.token.name} is not the one the stored ${roleName(role)} certificate is for`,
      );
    }
    return key;
  }

  /** Each key's state now: found under its label (logged in, token present) or why not. */
  async health(roles: readonly ServiceKeyRole[]): Promise<ServiceKeyHealth[]> {
    const results: ServiceKeyHealth[] = [];
    for (const role of roles) {
      const label = this.labels[role];
      try {
        await this.token.probe(label);
        results.push({ role, label, available: true });
      } catch (error) {
        results.push({ role, label, available: false, problem: (error as Error).message });
      }
    }
    return results;
  }
}
