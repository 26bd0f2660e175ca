// The events (notifications) recorded for a document, in the order they were emitted.
import type { Db } from '../../src/store/db.js';

export async function documentEvents(db: Db, ticket: string): Promise<{ kind: string; meta: unknown }[]> {
  return db
    .selectFrom('notifications as n')
    .innerJoin('documents as d', 'd.id', 'n.document_id')
    .select(['n.kind', 'n.meta'])
    .where('d.ticket', '=', ticket)
    .orderBy('n.id')
    .execute();
}

/** Just their kinds. */
export async function eventKinds(db: Db, ticket: string): Promise<string[]> {
  return (await documentEvents(db, ticket)).map((e) => e.kind);
}
