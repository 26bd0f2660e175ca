// SQL for the public verification page: a document found by its ticket alone, whatever the
// account (the ticket is random and unguessable, and the page shows no file).
import type { Db } from './db.js';
import type { DocumentStatus } from './schema.js';

export interface VerifiableDocument {
  id: string;
  ticket: string;
  name: string;
  status: DocumentStatus;
  original_sha256: string;
  page_count: number;
  created_at: Date;
}

export async function findDocumentByTicket(db: Db, ticket: string): Promise<VerifiableDocument | undefined> {
  return db
    .selectFrom('documents')
    .select(['id', 'ticket', 'name', 'status', 'original_sha256', 'page_count', 'created_at'])
    .where('ticket', '=', ticket)
    .executeTakeFirst();
}
