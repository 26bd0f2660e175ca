// SQL for accounts and their API keys.
import type { Db } from './db.js';
import { executePrepared } from './prepared.js';
import type { Selectable, Transaction } from 'kysely';
import type { AccountsTable, ApiKeysTable, Database } from './schema.js';

/** How many keys an account may hold active at once: the current one and the one being rotated out. */
export const MAX_ACTIVE_KEYS = 2;

export type AccountRow = Pick<Selectable<AccountsTable>, 'id' | 'web_id' | 'name' | 'webhook_url' | 'created_at'>;

export async function insertAccount(db: Db, a: { webId: string; name: string; keyEnc: Buffer }): Promise<AccountRow> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('accounts')
      .values({ web_id: a.webId, name: a.name })
      .returning(['id', 'web_id', 'name', 'webhook_url', 'created_at'])
      .executeTakeFirstOrThrow();
    await trx.insertInto('api_keys').values({ account_id: row.id, key_enc: a.keyEnc }).execute();
    return row;
  });
}

export async function findAccountByWebId(db: Db, webId: string): Promise<AccountRow | undefined> {
  return db
    .selectFrom('accounts')
    .select(['id', 'web_id', 'name', 'webhook_url', 'created_at'])
    .where('web_id', '=', webId)
    .executeTakeFirst();
}

export async function findAccountById(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').select(['id', 'web_id', 'name', 'webhook_url', 'created_at']).where('id', '=', id).executeTakeFirst();
}

/** The account id and its active keys (sealed), newest first, in one round trip: the hot path of every request. */
export async function activeKeysOf(db: Db, webId: string): Promise<{ accountId: string; keys: Buffer[] } | undefined> {
  const { rows } = await executePrepared(
    db,
    'active_keys',
    db
      .selectFrom('accounts as a')
      .leftJoin('api_keys as k', (j) => j.onRef('k.account_id', '=', 'a.id').on('k.active', '=', true))
      .select(['a.id as accountId', 'k.key_enc as keyEnc'])
      .where('a.web_id', '=', webId)
      .orderBy('k.id', 'desc')
      .compile(),
  );
  if (rows.length === 0) {
    return undefined;
  }
  return { accountId: rows[0].accountId, keys: rows.flatMap((r) => (r.keyEnc ? [r.keyEnc] : [])) };
}

/** Adds a key and deactivates all but the newest MAX_ACTIVE_KEYS, atomically; answers the new key's id. */
export async function addKeyKeepingNewest(db: Db, accountId: string, keyEnc: Buffer): Promise<string> {
  return db.transaction().execute(async (trx) => {
    // Serialize concurrent rotations of one account so the "keep newest two" rule holds.
    await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
    const inserted = await trx
      .insertInto('api_keys')
      .values({ account_id: accountId, key_enc: keyEnc })
      .returning('id')
      .executeTakeFirstOrThrow();
    const keep = await trx
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', accountId)
      .where('active', '=', true)
      .orderBy('id', 'desc')
      .limit(MAX_ACTIVE_KEYS)
      .execute();
    const keepIds = [inserted.id, ...keep.map((k) => k.id)];
    await trx
      .updateTable('api_keys')
      .set({ active: false })
      .where('account_id', '=', accountId)
      .where('active', '=', true)
      .where('id', 'not in', keepIds)
      .execute();
    return inserted.id;
  });
}

export async function setWebhook(db: Db, accountId: string, url: string, secretEnc: Buffer): Promise<void> {
  await db.updateTable('accounts').set({ webhook_url: url, webhook_secret_enc: secretEnc }).where('id', '=', accountId).execute();
}

export async function listAccounts(db: Db): Promise<(AccountRow & { active_keys: number })[]> {
  const rows = await db
    .selectFrom('accounts as a')
    .select(['a.id', 'a.web_id', 'a.name', 'a.webhook_url', 'a.created_at'])
    .select((eb) =>
      eb
        .selectFrom('api_keys as k')
        .select(eb.fn.countAll<string>().as('n'))
        .whereRef('k.account_id', '=', 'a.id')
        .where('k.active', '=', true)
        .as('active_keys'),
    )
    .orderBy('a.id')
    .execute();
  return rows.map((r) => ({ ...r, active_keys: Number(r.active_keys ?? 0) }));
}

export async function countAccounts(db: Db): Promise<number> {
  const r = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Changes an account's display name and/or logo (null removes the logo); false when there is no such account. */
export async function updateAccountProfile(db: Db, webId: string, change: { name?: string; logoPng?: Buffer | null }): Promise<boolean> {
  const set: { name?: string; logo_png?: Buffer | null } = {};
  if (change.name !== undefined) {
    set.name = change.name;
  }
  if (change.logoPng !== undefined) {
    set.logo_png = change.logoPng;
  }
  const r = await db.updateTable('accounts').set(set).where('web_id', '=', webId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The brand columns of an account (migration 0038). */
export interface AccountBrandRow {
  name: string;
  logo_png: Buffer | null;
  frame_origins: string[];
  brand_name: string | null;
  brand_colour: string | null;
  email_sender_name: string | null;
  email_reply_to: string | null;
  hide_sello: boolean;
}

const BRAND_COLUMNS = [
  'name',
  'logo_png',
  'frame_origins',
  'brand_name',
  'brand_colour',
  'email_sender_name',
  'email_reply_to',
  'hide_sello',
] as const;

/** What a signer sees of the account that asks for the signature: its name, logo and brand. */
export async function senderOf(db: Db, accountId: string): Promise<AccountBrandRow | undefined> {
  return db.selectFrom('accounts').select(BRAND_COLUMNS).where('id', '=', accountId).executeTakeFirst();
}

/** Writes the brand fields given (undefined leaves one as it is); false when there is no such account. */
export async function setAccountBrand(
  q: Db,
  account: { webId: string } | { id: string },
  c: {
    logoPng?: Buffer | null;
    frameOrigins?: string[];
    brandName?: string | null;
    brandColour?: string | null;
    emailSenderName?: string | null;
    emailReplyTo?: string | null;
    hideSello?: boolean;
  },
): Promise<boolean> {
  const r = await q
    .updateTable('accounts')
    .set({
      ...(c.logoPng !== undefined ? { logo_png: c.logoPng } : {}),
      ...(c.frameOrigins !== undefined ? { frame_origins: c.frameOrigins } : {}),
      ...(c.brandName !== undefined ? { brand_name: c.brandName } : {}),
      ...(c.brandColour !== undefined ? { brand_colour: c.brandColour } : {}),
      ...(c.emailSenderName !== undefined ? { email_sender_name: c.emailSenderName } : {}),
      ...(c.emailReplyTo !== undefined ? { email_reply_to: c.emailReplyTo } : {}),
      ...(c.hideSello !== undefined ? { hide_sello: c.hideSello } : {}),
    })
    .where('webId' in account ? 'web_id' : 'id', '=', 'webId' in account ? account.webId : account.id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The origins allowed to frame the account's signer pages. */
export async function frameOriginsOf(db: Db, accountId: string): Promise<string[]> {
  const r = await db.selectFrom('accounts').select('frame_origins').where('id', '=', accountId).executeTakeFirst();
  return r?.frame_origins ?? [];
}

/** accounts.identity_retries of the account; false when there is no such account. */
export async function setAccountIdentityRetries(q: Db, webId: string, retries: number): Promise<boolean> {
  const r = await q.updateTable('accounts').set({ identity_retries: retries }).where('web_id', '=', webId).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** accounts.identity_decision of the account; false when there is no such account. */
export async function setAccountIdentityDecision(q: Db, webId: string, decision: 'manual' | 'automatic'): Promise<boolean> {
  const r = await q.updateTable('accounts').set({ identity_decision: decision }).where('web_id', '=', webId).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** accounts.signer_key of the account (null: the operator's default); false when there is no such account. */
export async function setAccountSignerKey(q: Db, webId: string, key: 'rsa-2048' | 'ecdsa-p256' | null): Promise<boolean> {
  const r = await q.updateTable('accounts').set({ signer_key: key }).where('web_id', '=', webId).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The signer key type chosen by the account that owns a document; null when it chose none. */
export async function signerKeyOfDocument(q: Db, documentId: string): Promise<'rsa-2048' | 'ecdsa-p256' | null> {
  const r = await q
    .selectFrom('documents')
    .innerJoin('accounts', 'accounts.id', 'documents.account_id')
    .select('accounts.signer_key')
    .where('documents.id', '=', documentId)
    .executeTakeFirst();
  return r?.signer_key ?? null;
}

export type ApiKeyRow = Pick<Selectable<ApiKeysTable>, 'id' | 'active' | 'created_at'>;

/** The account's keys, newest first, never their sealed bytes. */
export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'active', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .execute();
}

/** Stops one active key of the account; false when the account has no such active key. */
export async function revokeApiKey(db: Db | Transaction<Database>, accountId: string, keyId: string): Promise<boolean> {
  const r = await db
    .updateTable('api_keys')
    .set({ active: false })
    .where('account_id', '=', accountId)
    .where('id', '=', keyId)
    .where('active', '=', true)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Rotation of one key: a new key takes the place of `keyId`, which stops now, in one transaction;
 * answers the new key's id, or undefined (nothing changed) when the account has no such active key.
 */
export async function replaceApiKey(db: Db, accountId: string, keyId: string, keyEnc: Buffer): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
    if (!(await revokeApiKey(trx, accountId, keyId))) {
      return undefined;
    }
    const inserted = await trx
      .insertInto('api_keys')
      .values({ account_id: accountId, key_enc: keyEnc })
      .returning('id')
      .executeTakeFirstOrThrow();
    return inserted.id;
  });
}

/** The account's webhook URL and its sealed secret. */
export async function webhookOf(db: Db, accountId: string): Promise<{ url: string | null; secretEnc: Buffer | null } | undefined> {
  const r = await db.selectFrom('accounts').select(['webhook_url', 'webhook_secret_enc']).where('id', '=', accountId).executeTakeFirst();
  return r ? { url: r.webhook_url, secretEnc: r.webhook_secret_enc } : undefined;
}
