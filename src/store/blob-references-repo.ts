// Every row that names a blob, and which of its columns does: what `sello blobs check` reads to
// find rows whose bytes are missing or damaged. A column that starts naming blobs belongs here and
// in blob-references.ts, the list the orphan sweep and the purge spare blobs by.
import { sql } from 'kysely';
import type { Db } from './db.js';

/** One row's reference to a blob: the table and column, and the row as an operator finds it. */
export interface BlobReference {
  key: string;
  table: string;
  column: string;
  /** "document TICKET", "template ID"...: enough to find the row. */
  row: string;
}

/**
 * The references in no particular order; a blob named by several rows comes once per row. The
 * raw message of a certified email is a blob under raw_sha256 only in rows from before it was
 * sealed (0032_sealed_certified_raw.sql); since, raw_blob names the sealed blob.
 */
export async function blobReferences(db: Db): Promise<BlobReference[]> {
  const r = await sql<BlobReference>`
    select d.source_sha256 as key, 'documents' as "table", 'source_sha256' as "column", 'document ' || d.ticket as row
      from documents d
    union all
    select d.original_sha256, 'documents', 'original_sha256', 'document ' || d.ticket from documents d
    union all
    select d.universal_sha256, 'documents', 'universal_sha256', 'document ' || d.ticket
      from documents d where d.universal_sha256 is not null
    union all
    select r.sha256, 'document_revisions', 'sha256', 'document ' || d.ticket || ' revision ' || r.revision
      from document_revisions r join documents d on d.id = r.document_id
    union all
    select u.sha256, 'universal_revisions', 'sha256', 'document ' || d.ticket || ' universal rendition ' || u.seq
      from universal_revisions u join documents d on d.id = u.document_id
    union all
    select t.source_sha256, 'templates', 'source_sha256', 'template ' || t.id from templates t
    union all
    select p.base_sha256, 'sat_preparations', 'base_sha256', 'SAT preparation ' || p.id || ' of document ' || d.ticket
      from sat_preparations p join documents d on d.id = p.document_id
    union all
    select p.prepared_sha256, 'sat_preparations', 'prepared_sha256', 'SAT preparation ' || p.id || ' of document ' || d.ticket
      from sat_preparations p join documents d on d.id = p.document_id
    union all
    select c.document_sha256, 'certified_emails', 'document_sha256', 'certified email ' || c.id || ' of document ' || d.ticket
      from certified_emails c join documents d on d.id = c.document_id where c.document_sha256 is not null
    union all
    select c.evidence_pdf_sha256, 'certified_emails', 'evidence_pdf_sha256', 'certified email ' || c.id || ' of document ' || d.ticket
      from certified_emails c join documents d on d.id = c.document_id where c.evidence_pdf_sha256 is not null
    union all
    select c.raw_blob, 'certified_emails', 'raw_blob', 'certified email ' || c.id || ' of document ' || d.ticket
      from certified_emails c join documents d on d.id = c.document_id where c.raw_blob is not null
    union all
    select c.raw_sha256, 'certified_emails', 'raw_sha256', 'certified email ' || c.id || ' of document ' || d.ticket
      from certified_emails c join documents d on d.id = c.document_id where c.raw_blob is null and c.raw_sha256 is not null
    union all
    select b.source_sha256, 'bulk_runs', 'source_sha256', 'bulk run ' || b.bulk_id
      from bulk_runs b where b.source_sha256 is not null
    union all
    select a ->> 'sha256', 'mail_messages', 'attachments', 'mail ' || m.message_id
      from mail_messages m cross join lateral jsonb_array_elements(m.attachments) a where a ->> 'sha256' is not null
  `.execute(db);
  return r.rows;
}
