// SQL of the panel's list of document sets: an account's sets, newest first, with how many
// documents each holds (the API has no list of sets; one set is GET /api/documentset/{uuid}).
import { sql } from 'kysely';
import type { Db } from './db.js';

export interface ListedSetRow {
  id: string;
  uuid: string;
  name: string;
  status: string;
  created_at: Date;
  closed_at: Date | null;
  expires_at: Date | null;
  documents: number;
}

export interface SetFilters {
  accountId: string;
  limit: number;
  status?: string;
  /** Text found in the name (wildcards taken literally), or the whole uuid. */
  search?: string;
  /** Creation, inclusive at both ends. */
  from?: Date;
  to?: Date;
  /** The id of the last set of the previous page. */
  afterId?: string;
}

export async function listAccountSets(db: Db, o: SetFilters): Promise<ListedSetRow[]> {
  const where = [sql`s.account_id = ${o.accountId}`];
  if (o.status !== undefined) {
    where.push(sql`s.status = ${o.status}`);
  }
  if (o.search !== undefined) {
    // ILIKE with the text's wildcards escaped: "50%" finds "50%", not every set.
    where.push(sql`(s.name ilike ${`%${o.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} or s.uuid = ${o.search})`);
  }
  if (o.from !== undefined) {
    where.push(sql`s.created_at >= ${o.from}`);
  }
  if (o.to !== undefined) {
    // Inclusive to the whole millisecond: created_at keeps microseconds, `to` does not.
    where.push(sql`s.created_at < ${new Date(o.to.getTime() + 1)}`);
  }
  if (o.afterId !== undefined) {
    // Keyset on (created_at, id) read from the row itself: exact to the microsecond, so sets
    // created in the same millisecond are neither skipped nor repeated across pages.
    where.push(sql`(s.created_at, s.id) < (select c.created_at, c.id from document_sets c
                                             where c.id = ${o.afterId} and c.account_id = ${o.accountId})`);
  }
  const r = await sql<ListedSetRow>`
    select s.id::text as id, s.uuid, s.name, s.status, s.created_at, s.closed_at, s.expires_at,
           (select count(*)::int from documents d where d.set_id = s.id) as documents
    from document_sets s
    where ${sql.join(where, sql` and `)}
    order by s.created_at desc, s.id desc
    limit ${o.limit}`.execute(db);
  return r.rows;
}
