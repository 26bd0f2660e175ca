// SQL of the retention purge (domain/lifecycle/purge-deleted-documents.ts): finding documents
// deleted long enough ago, the blobs their rows name, and removing the rows.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

/** Ids of documents deleted before `before`, oldest first. */
export async function deletedBefore(db: Db, before: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('documents')
    .select('id')
    .where('status', '=', 'deleted')
    .where('deleted_at', '<', before)
    .orderBy('deleted_at')
    .limit(limit)
    .execute();
  return rows.map((r) => String(r.id));
}

/** The document, locked, if it is still deleted before `before` (a restore may have come first). */
export async function lockPurgeable(trx: Transaction<Database>, id: string, before: Date) {
  return trx
    .selectFrom('documents')
    .select(['id', 'ticket', 'account_id', 'created_at', 'deleted_at'])
    .where('id', '=', id)
    .where('status', '=', 'deleted')
    .where('deleted_at', '<', before)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Every blob key the document's rows name: the columns of blob-references.ts reached through
 * document_id (templates belong to the account, not to a document).
 */
export async function documentBlobKeys(trx: Transaction<Database>, id: string): Promise<string[]> {
  const { rows } = await sql<{ k: string | null }>`
    select unnest(array[source_sha256, original_sha256, universal_sha256]) as k from documents where id = ${id}
    union select sha256 from document_revisions where document_id = ${id}
    union select sha256 from universal_revisions where document_id = ${id}
    union select unnest(array[base_sha256, prepared_sha256]) from sat_preparations where document_id = ${id}
    union select unnest(array[document_sha256, raw_sha256, raw_blob, evidence_pdf_sha256]) from certified_emails where document_id = ${id}
    union select covered_sha256 from stamps where document_id = ${id}
    union select a->>'sha256' from mail_messages, jsonb_array_elements(attachments) a
     where document_id = ${id} and jsonb_typeof(attachments) = 'array'`.execute(trx);
  return [...new Set(rows.map((r) => r.k).filter((k): k is string => k !== null && /^[0-9a-f]{64}$/.test(k)))];
}

export interface Tombstone {
  ticket: string;
  accountId: string;
  createdAt: Date;
  deletedAt: Date;
}

/**
 * Keeps the document's last history entry (the `purged` one just appended) as its tombstone, then
 * removes the document and every row about it. Rows that only point at it without a cascade
 * (messages, notifications) go first; the certified email before the mail row it references.
 */
export async function replaceWithTombstone(trx: Transaction<Database>, id: string, t: Tombstone): Promise<void> {
  await sql`
    insert into document_tombstones (ticket, account_id, created_at, deleted_at, seq, at, action, actor, details, prev_hash, hash)
    select ${t.ticket}, ${t.accountId}, ${t.createdAt}, ${t.deletedAt}, h.seq, h.at, h.action, h.actor, h.details, h.prev_hash, h.hash
      from document_history h join documents d on d.id = h.document_id and d.history_count = h.seq
     where h.document_id = ${id} and h.action = 'purged'`.execute(trx);
  await trx.deleteFrom('certified_emails').where('document_id', '=', id).execute();
  await trx.deleteFrom('mail_messages').where('document_id', '=', id).execute();
  await trx.deleteFrom('channel_messages').where('document_id', '=', id).execute();
  await trx.deleteFrom('notifications').where('document_id', '=', id).execute();
  await trx.deleteFrom('documents').where('id', '=', id).execute();
}
