// Identifiers handed to clients (tickets, uuids, sticker and signer ids) and signing-link tokens.
// All are random: never sequential, never guessable (decisions.md "Identifiers").
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export function newPublicId(): string {
  return randomUUID();
}

/** A signing-link token: 32 random bytes. Only its SHA-256 is stored, so a database leak reveals no link. */
export function newSigningToken(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
