// Authorizations of CSC signers in progress (migration 0039): what the return from the provider's
// authorization page needs, from the moment the signer leaves.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { CscAuthorizationsTable, Database } from './schema.js';

export type CscAuthorization = Selectable<CscAuthorizationsTable>;

export async function insertCscAuthorization(
  db: Kysely<Database>,
  a: Omit<CscAuthorization, 'used_at' | 'field_values'> & { field_values: string | null },
): Promise<void> {
  await db.insertInto('csc_authorizations').values(a).execute();
}

/**
 * Takes the authorization the state names, once: marks it used and answers it, or undefined when it
 * is unknown or was taken already (a replayed return).
 */
export async function takeCscAuthorization(trx: Transaction<Database>, stateHash: string, at: Date): Promise<CscAuthorization | undefined> {
  return trx
    .updateTable('csc_authorizations')
    .set({ used_at: at })
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Authorizations of this signer never returned from and expired are of no use: dropped on the next start. */
export async function dropExpiredCscAuthorizations(db: Kysely<Database>, signerRowId: string, now: Date): Promise<void> {
  await db.deleteFrom('csc_authorizations').where('signer_row_id', '=', signerRowId).where('expires_at', '<', now).execute();
}

/** The signer row's sealed link token, to continue their signature on their link. */
export async function sealedTokenOf(db: Kysely<Database>, signerRowId: string): Promise<Buffer | null> {
  const row = await db.selectFrom('signers').select('token_sealed').where('id', '=', signerRowId).executeTakeFirst();
  return row?.token_sealed ?? null;
}
