// The statements of the hottest paths (the key lookup of every request, a creation's two) run as
// named prepared statements: PostgreSQL parses and plans each once per connection, not once per
// execution. For a creation's insert that was 40% of its time in the server process (0.8 → 0.45 ms
// of CPU, docs/performance.md). Only statements of fixed text and explicit columns are prepared: a
// plan kept across a migration that changes a result's row type would fail, and every distinct
// text would hold memory in each connection.
//
// Kysely passes a statement to pg as text and values; a statement marked here carries its name in a
// leading comment, and the pool's connections (store/db.ts) send it as pg's named query.
import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type pg from 'pg';

const MARK = '/* prepared ';

/** Runs `query` as the prepared statement `name` (letters, digits and _). */
export function executePrepared<R, DB>(db: Kysely<DB>, name: string, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  if (!/^\w+$/.test(name)) {
    throw new Error(`executePrepared: ${JSON.stringify(name)} is not a statement name`);
  }
  return db.executeQuery(CompiledQuery.raw(`${MARK}${name} */ ${query.sql}`, [...query.parameters])) as Promise<QueryResult<R>>;
}

/**
 * Makes a pool connection send marked statements as named ones. The name also carries a digest of
 * the text, so two texts under one name (a changed query, an edited build) are never confused.
 */
export function namePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const names = new Map<string, string>();
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text !== 'string' || !text.startsWith(MARK) || typeof values === 'function') {
      return query(...args);
    }
    let name = names.get(text);
    if (name === undefined) {
      name = `${text.slice(MARK.length, text.indexOf(' */'))}_${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
      names.set(text, name);
    }
    return query({ name, text, values }, ...args.slice(2));
  };
}
