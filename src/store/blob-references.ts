// Every place a row names a blob (a key of store/blobs.ts: the SHA-256 hex of the bytes). The orphan
// sweep and the purge delete a blob only when none of these names it, so a column that names a blob
// and is missing here would have its blobs deleted under it. When a migration adds such a column,
// add it here; test/integration/blob-references.test.ts fails until every column of the schema
// named like a blob key (*sha256, *_blob) or holding attachment keys is listed either here or in
// NOT_BLOB_COLUMNS with the reason it does not name one. `sello blobs check` reads the same
// columns row by row, naming each row (blob-references-repo.ts): a new column goes in both.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

type Q = Kysely<Database> | Transaction<Database>;

/** Columns whose value is a blob key (or null). */
export const BLOB_COLUMNS: readonly { table: keyof Database; column: string }[] = [
  { table: 'documents', column: 'source_sha256' }, // the file as received (before any signature)
  { table: 'documents', column: 'original_sha256' }, // the latest signed revision
  { table: 'documents', column: 'universal_sha256' }, // the universal (PAdES B-LTA) rendition
  { table: 'document_revisions', column: 'sha256' }, // every signed revision
  { table: 'universal_revisions', column: 'sha256' }, // every universal rendition and its renewals
  { table: 'templates', column: 'source_sha256' }, // a template's source file
  { table: 'sat_preparations', column: 'base_sha256' }, // the revision an e.firma signature was prepared on
  { table: 'sat_preparations', column: 'prepared_sha256' }, // the prepared revision awaiting its signature value
  { table: 'certified_emails', column: 'document_sha256' }, // the file a certified email links to
  { table: 'certified_emails', column: 'raw_sha256' }, // rows before 0032: the raw message in the clear
  { table: 'certified_emails', column: 'raw_blob' }, // the raw message, sealed under the master key
  { table: 'certified_emails', column: 'evidence_pdf_sha256' }, // the certified email's evidence PDF
  { table: 'bulk_runs', column: 'source_sha256' }, // a bulk run's PDF, read once for all its rows
  { table: 'stamps', column: 'covered_sha256' }, // a stamped rendition (for a client's hash: names no blob, harmless)
];

/** jsonb arrays of objects whose `sha256` member is a blob key. */
export const BLOB_JSON_ARRAYS: readonly { table: keyof Database; column: string }[] = [
  { table: 'mail_messages', column: 'attachments' }, // the files an outgoing email attaches
];

/** Columns named like blob keys that are not: what each holds instead. */
export const NOT_BLOB_COLUMNS: Readonly<Record<string, string>> = {
  'identity_evidence.sha256': 'the hash of an identity image, which is stored sealed in the row itself',
  'bulk_runs.body_sha256': "the hash of a bulk request's body, which tells a repeated Idempotency-Key apart",
  'pdf_page_sizes.sha256': 'the file whose page sizes the row keeps: a cache that never keeps a file alive',
};

/** Which of `keys` some row names. */
export async function referencedKeys(q: Q, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) {
    return new Set();
  }
  const parts = [
    ...BLOB_COLUMNS.map(
      ({ table, column }) => sql`select ${sql.ref(column)} as k from ${sql.table(table)} where ${sql.ref(column)} = any(${keys}::text[])`,
    ),
    ...BLOB_JSON_ARRAYS.map(
      ({ table, column }) =>
        sql`select a->>'sha256' as k from ${sql.table(table)}, jsonb_array_elements(${sql.ref(column)}) a
             where jsonb_typeof(${sql.ref(column)}) = 'array' and a->>'sha256' = any(${keys}::text[])`,
    ),
  ];
  const { rows } = await sql<{ k: string }>`select distinct k from (${sql.join(parts, sql` union all `)}) refs`.execute(q);
  return new Set(rows.map((r) => r.k));
}
