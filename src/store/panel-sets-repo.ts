// SQL of the panel's list of document sets: an account's sets, newest first, with how many
// documents each holds (the API has no list of sets; one set is GET /api/documentset/{uuid}).
import { type Selectable, sql } from 'kysely';
import type { Db } from './db.js';
import type { DocumentSetsTable, SetStatus } from './schema.js';

export type ListedSetRow = Pick<
  Selectable<DocumentSetsTable>,
  'id' | 'uuid' | 'name' | 'status' | 'created_at' | 'closed_at' | 'expires_at'
> & {
  documents: number;
};

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
  const { search, from, to, afterId } = o;
  return (
    db
      .selectFrom('document_sets as s')
      .select(['s.id', 's.uuid', 's.name', 's.status', 's.created_at', 's.closed_at', 's.expires_at'])
      .select((eb) =>
        eb.selectFrom('documents as d').select(sql<number>`count(*)::int`.as('n')).whereRef('d.set_id', '=', 's.id').as('documents'),
      )
      .where('s.account_id', '=', o.accountId)
      // The filter names one of SetStatus (the route's schema checked it).
      .$if(o.status !== undefined, (qb) => qb.where('s.status', '=', o.status as SetStatus))
      .$if(search !== undefined, (qb) =>
        // ILIKE with the text's wildcards escaped: "50%" finds "50%", not every set.
        qb.where((eb) => eb.or([eb('s.name', 'ilike', `%${search!.replace(/[\\%_]/g, (c) => `\\${c}`)}%`), eb('s.uuid', '=', search!)])),
      )
      .$if(from !== undefined, (qb) => qb.where('s.created_at', '>=', from!))
      // Inclusive to the whole millisecond: created_at keeps microseconds, `to` does not.
      .$if(to !== undefined, (qb) => qb.where('s.created_at', '<', new Date(to!.getTime() + 1)))
      // Keyset on (created_at, id) read from the row itself: exact to the microsecond, so sets created
      // in the same millisecond are neither skipped nor repeated across pages. A row comparison: in SQL.
      .$if(afterId !== undefined, (qb) =>
        qb.where(
          sql<boolean>`(s.created_at, s.id) < (select c.created_at, c.id from document_sets c where c.id = ${afterId} and c.account_id = ${o.accountId})`,
        ),
      )
      .orderBy('s.created_at', 'desc')
      .orderBy('s.id', 'desc')
      .limit(o.limit)
      .$narrowType<{ documents: number }>()
      .execute()
  );
}
