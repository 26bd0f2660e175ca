// The fence between a write that names a blob and the deletion of that blob (orphan sweep, purge).
//
// The race: a creation puts bytes already stored (which only refreshes their time) and then commits
// a row naming them; meanwhile the sweep has found that blob old and unreferenced. Its grace period
// on writtenAt is not enough: the sweep read writtenAt before the creation's put refreshed it, so
// whatever it checks next, the put can land between its last check and its delete, and the row
// commits afterwards naming bytes that are gone. Re-reading writtenAt just before deleting narrows
// that window without closing it, and the store's contract has no conditional delete (S3 has none
// either). So the two sides meet in PostgreSQL, on a transaction-scoped advisory lock per key:
//   - the sweep takes it EXCLUSIVE, checks that no row names the key, deletes the blob, and commits;
//   - a writer takes it SHARED in the transaction that commits the row, after its put, and then
//     makes sure the blob is there (putting the bytes again if a sweep removed them meanwhile).
// Either the writer's row commits first (the sweep waits for the lock, then sees the row and spares
// the blob), or the sweep's delete finishes first (the writer, holding the lock, finds the blob
// gone and writes it again before its row commits). The lock is keyed on 32 bits of the SHA-256: a
// collision costs a wait, never a wrong answer.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { BlobStore } from './blobs.js';
import type { Database } from './schema.js';

type Q = Kysely<Database> | Transaction<Database>;

function lockId(key: string): number {
  if (!/^[0-9a-f]{64}$/.test(key)) {
    throw new Error('invalid blob key');
  }
  return Number.parseInt(key.slice(0, 8), 16) | 0;
}

/** The statement fragment that takes a key's shared lock, for a writer's single-statement transaction. */
export function blobSharedLockSql(key: string): RawBuilder<unknown> {
  return sql`select pg_advisory_xact_lock_shared(hashtext('sello_blob'), ${lockId(key)}::int)`;
}

/**
 * In the transaction that will commit a row naming these bytes: puts them, takes the key's shared
 * lock until the transaction ends, and puts them again if a deletion got in between. Returns the key.
 */
export async function putHeldBlob(trx: Transaction<Database>, blobs: BlobStore, bytes: Uint8Array): Promise<string> {
  const key = await blobs.put(bytes);
  await blobSharedLockSql(key).execute(trx);
  await ensureBlob(blobs, key, bytes);
  return key;
}

/** After a writer's lock: the bytes are there, or written again. */
export async function ensureBlob(blobs: BlobStore, key: string, bytes: Uint8Array): Promise<void> {
  if (!(await blobs.has(key))) {
    await blobs.put(bytes);
  }
}

/**
 * The deleting side: first a shared hold on deletions as a whole (a backup holds them off while it
 * copies the blobs its snapshot names: holdBlobDeletions), then the key's exclusive lock, both
 * until the transaction ends. In this order, a deletion waiting for a backup holds no key's lock,
 * so writers never wait for the backup.
 */
export async function lockBlobForDelete(trx: Q, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock_shared(hashtext('sello_blob_deletions'), 0)`.execute(trx);
  await sql`select pg_advisory_xact_lock(hashtext('sello_blob'), ${lockId(key)}::int)`.execute(trx);
}

/** Holds every blob deletion off on this session until released (waits for those under way). */
export const HOLD_BLOB_DELETIONS = "select pg_advisory_lock(hashtext('sello_blob_deletions'), 0)";
export const RELEASE_BLOB_DELETIONS = "select pg_advisory_unlock(hashtext('sello_blob_deletions'), 0)";
