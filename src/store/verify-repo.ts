// SQL for the public verification page: a document found by its ticket alone, whatever the
// account (the ticket is random and unguessable, and the page shows no file).
import type { Db } from './db.js';
import type { Selectable } from 'kysely';
import type { DocumentsTable } from './schema.js';

export type VerifiableDocument = Pick<
  Selectable<DocumentsTable>,
  'id' | 'ticket' | 'name' | 'status' | 'original_sha256' | 'page_count' | 'created_at'
>;

export async function findDocumentByTicket(db: Db, ticket: string): Promise<VerifiableDocument | undefined> {
  return db
    .selectFrom('documents')
    .select(['id', 'ticket', 'name', 'status', 'original_sha256', 'page_count', 'created_at'])
    .where('ticket', '=', ticket)
    .executeTakeFirst();
}

/** The brand columns of the account that owns the document of a ticket (its verify page's header). */
export async function brandOfTicket(
  db: Db,
  ticket: string,
): Promise<{ name: string; brand_name: string | null; hide_sello: boolean } | undefined> {
  return db
    .selectFrom('documents as d')
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .select(['a.name', 'a.brand_name', 'a.hide_sello'])
    .where('d.ticket', '=', ticket)
    .executeTakeFirst();
}
