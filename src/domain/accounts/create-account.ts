import { randomBytes } from 'node:crypto';
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { insertAccount } from '../../store/accounts-repo.js';

export interface Credentials {
  webId: string;
  /** 32 random bytes as base64url text; the HMAC key is the UTF-8 bytes of this text. */
  apiKey: string;
}

export function newApiKey(): string {
  return randomBytes(32).toString('base64url');
}

/** Creates an account with one active API key and returns its credentials (shown once). */
export async function createAccount(deps: Pick<Deps, 'db' | 'secrets'>, opts: { name: string }): Promise<Credentials> {
  const name = opts.name.trim();
  if (!name || name.length > 200) {
    throw invalid('name', 'expected 1 to 200 characters');
  }
  // Not sequential, not guessable, and free of ':' (which separates it from the signature).
  const webId = randomBytes(12).toString('base64url');
  const apiKey = newApiKey();
  await insertAccount(deps.db, { webId, name, keyEnc: deps.secrets.seal(apiKey) });
  return { webId, apiKey };
}
