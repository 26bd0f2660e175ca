// What a document's long-term renditions have come to, for the answers that show a document's
// state (listing, notification exchange, set): the universal rendition's state (0013_universal.sql)
// and, for a document stamped under NOM-151, which stamps exist (0014) and why the missing ones
// failed (0025_stamp_failures.sql). One query for a page of documents.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database } from './schema.js';

type Q = Db | Transaction<Database>;

export type StampedRendition = 'original' | 'universal';

export interface StampFailureRow {
  subject: StampedRendition;
  reason: string;
  attempt: number;
  max_attempts: number;
}

export interface ArchivalRow {
  id: string;
  status: string;
  status_before_delete: string | null;
  nom151: boolean;
  universal_status: 'pending' | 'ready' | 'failed' | null;
  universal_error: string | null;
  stamped: StampedRendition[];
  stamp_failures: StampFailureRow[];
}

export async function archivalRows(q: Q, documentIds: readonly string[]): Promise<Map<string, ArchivalRow>> {
  if (documentIds.length === 0) {
    return new Map();
  }
  // json_agg subqueries per document: plainer in SQL than in the builder.
  const r = await sql<ArchivalRow>`select d.id::text as id, d.status, d.status_before_delete, d.nom151,
      d.universal_status, d.universal_error,
      coalesce((select json_agg(s.subject) from stamps s
        where s.document_id = d.id and ((s.subject = 'original' and s.covered_sha256 = d.original_sha256)
          or (s.subject = 'universal' and s.covered_sha256 = d.universal_sha256))), '[]'::json) as stamped,
      coalesce((select json_agg(json_build_object('subject', f.subject, 'reason', f.reason, 'attempt', f.attempt,
        'max_attempts', f.max_attempts)) from stamp_failures f where f.document_id = d.id), '[]'::json) as stamp_failures
    from documents d where d.id = any(${documentIds.map(Number)}::bigint[])`.execute(q);
  return new Map(r.rows.map((row) => [row.id, row]));
}

/**
 * Locks the document's row for the rest of the transaction, so the failures of its two renditions'
 * stamp jobs are recorded one after the other; false when there is no such document.
 */
export async function lockDocumentRow(trx: Transaction<Database>, documentId: string): Promise<boolean> {
  const row = await trx.selectFrom('documents').select('id').where('id', '=', documentId).forUpdate().executeTakeFirst();
  return row !== undefined;
}

/** The last failed attempt to stamp a rendition; returns the reason recorded before, if any. */
export async function recordStampFailure(
  trx: Transaction<Database>,
  f: { documentId: string; subject: StampedRendition; reason: string; attempt: number; maxAttempts: number; at: Date },
): Promise<string | undefined> {
  const before = await trx
    .selectFrom('stamp_failures')
    .select('reason')
    .where('document_id', '=', f.documentId)
    .where('subject', '=', f.subject)
    .forUpdate()
    .executeTakeFirst();
  await trx
    .insertInto('stamp_failures')
    .values({
      document_id: f.documentId,
      subject: f.subject,
      reason: f.reason,
      attempt: f.attempt,
      max_attempts: f.maxAttempts,
      failed_at: f.at,
    })
    .onConflict((oc) =>
      oc.columns(['document_id', 'subject']).doUpdateSet((eb) => ({
        reason: eb.ref('excluded.reason'),
        attempt: eb.ref('excluded.attempt'),
        max_attempts: eb.ref('excluded.max_attempts'),
        failed_at: eb.ref('excluded.failed_at'),
      })),
    )
    .execute();
  return before?.reason;
}

/** The stamp is stored: its failures are history (the history entries keep them). */
export async function clearStampFailure(trx: Transaction<Database>, documentId: string, subject: StampedRendition): Promise<void> {
  await trx.deleteFrom('stamp_failures').where('document_id', '=', documentId).where('subject', '=', subject).execute();
}
