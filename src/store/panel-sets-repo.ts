// SQL of the panel's list of document sets: an account's sets, newest first, with how many
// documents each holds (the API has no list of sets; one set is GET /api/documentset/{uuid}).
import { sql } from 'kysely';
import type { Db } from './db.js';

export interface ListedSetRow {
  uuid: string;
  name: string;
  status: string;
  created_at: Date;
  closed_at: Date | null;
  expires_at: Date | null;
  documents: number;
}

export async function listAccountSets(db: Db, o: { accountId: string; limit: number; before?: Date }): Promise<ListedSetRow[]> {
  const r = await sql<ListedSetRow>`
    select s.uuid, s.name, s.status, s.created_at, s.closed_at, s.expires_at,
           (select count(*)::int from documents d where d.set_id = s.id) as documents
    from document_sets s
    where s.account_id = ${o.accountId} ${o.before ? sql`and s.created_at < ${o.before}` : sql``}
    order by s.created_at desc, s.id desc
    limit ${o.limit}`.execute(db);
  return r.rows;
}
