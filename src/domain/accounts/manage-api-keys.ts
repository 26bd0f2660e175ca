// The account panel's API keys: list (never a key itself: the sealed bytes stay in the database),
// create, rotate one key (a new key replaces it, and it stops at once) and revoke. A new key is
// shown once, in the answer that creates it. At most MAX_ACTIVE_KEYS are active: creating one more
// stops the oldest, as `sello account rotate-key` does.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { addKeyKeepingNewest, listApiKeys, MAX_ACTIVE_KEYS, replaceApiKey, revokeApiKey } from '../../store/accounts-repo.js';
import { newApiKey } from './create-account.js';

export interface ApiKeyView {
  id: string;
  active: boolean;
  created_at: string;
}

export async function listAccountKeys(
  deps: Pick<Deps, 'db'>,
  o: { accountId: string },
): Promise<{ keys: ApiKeyView[]; max_active: number }> {
  const rows = await listApiKeys(deps.db, o.accountId);
  return {
    keys: rows.map((k) => ({ id: k.id, active: k.active, created_at: k.created_at.toISOString() })),
    max_active: MAX_ACTIVE_KEYS,
  };
}

export async function createAccountKey(
  deps: Pick<Deps, 'db' | 'secrets'>,
  o: { accountId: string },
): Promise<{ id: string; api_key: string }> {
  const apiKey = newApiKey();
  const id = await addKeyKeepingNewest(deps.db, o.accountId, deps.secrets.seal(apiKey));
  return { id, api_key: apiKey };
}

export async function rotateAccountKey(
  deps: Pick<Deps, 'db' | 'secrets'>,
  o: { accountId: string; keyId: string },
): Promise<{ id: string; api_key: string; replaced: string }> {
  const apiKey = newApiKey();
  const id = validId(o.keyId) ? await replaceApiKey(deps.db, o.accountId, o.keyId, deps.secrets.seal(apiKey)) : undefined;
  if (!id) {
    throw new AppError('API_KEY_NOT_FOUND', `no active API key ${o.keyId}`);
  }
  return { id, api_key: apiKey, replaced: o.keyId };
}

export async function revokeAccountKey(
  deps: Pick<Deps, 'db'>,
  o: { accountId: string; keyId: string },
): Promise<{ id: string; active: false }> {
  if (!validId(o.keyId) || !(await revokeApiKey(deps.db, o.accountId, o.keyId))) {
    throw new AppError('API_KEY_NOT_FOUND', `no active API key ${o.keyId}`);
  }
  return { id: o.keyId, active: false };
}

const validId = (id: string) => /^\d{1,18}$/.test(id);
