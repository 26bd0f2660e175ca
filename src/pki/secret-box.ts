// Encryption of secrets at rest (API keys, webhook secrets, later CA keys) under the master key.
// AES-256-GCM: confidentiality and integrity, so a tampered row fails to open instead of yielding a
// wrong key. Layout: version (1 byte) | IV (12) | tag (16) | ciphertext.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;

export interface SecretBox {
  seal(plaintext: string): Buffer;
  open(sealed: Buffer): string;
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== 32) {
    throw new Error('the master key must be 32 bytes');
  }
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    },
    open(sealed) {
      if (sealed.length < 29 || sealed[0] !== VERSION) {
        throw new Error('sealed secret: unknown format');
      }
      const decipher = createDecipheriv('aes-256-gcm', masterKey, sealed.subarray(1, 13));
      decipher.setAuthTag(sealed.subarray(13, 29));
      return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString('utf8');
    },
  };
}
