// The database handle: one pg pool wrapped by Kysely. All SQL of the service lives in store/.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { namePreparedStatements } from './prepared.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export interface DbHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

export function openDb(connectionString: string, maxConnections = 10): DbHandle {
  const pool = new pg.Pool({ connectionString, max: maxConnections });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  pool.on('connect', namePreparedStatements);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    // Kysely's destroy() ends the pool it was given.
    close: () => db.destroy(),
  };
}

/** Resolves once the database answers a query (the health check); rejects when it does not. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
