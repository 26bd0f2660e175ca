// Numbered, forward-only SQL migrations (store/migrations/NNNN_name.sql), each applied in its own
// transaction. An advisory lock serializes concurrent starters (several `sello api` processes
// booting against one cluster), so each migration runs exactly once.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Logger, runMigrations as runWorkerMigrations } from 'graphile-worker';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
// Arbitrary constant naming this lock in pg_locks.
const MIGRATION_LOCK = 715_300_001;

/** The names of the migrations this version of the service has, in order. */
export async function migrationNames(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
}

export interface MigrationResult {
  applied: string[];
}

/**
 * A connection closing when the server stops (a CLI command stops the embedded PostgreSQL
 * milliseconds after migrating) receives 57P01 "terminating connection due to administrator
 * command"; without a listener that error would be thrown and end the process in a stack trace.
 */
const closingError = () => {};

/** `through`: apply migrations up to that version only (a restore recreates the schema a backup was taken on). */
export async function migrate(connectionString: string, opts: { through?: number } = {}): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString });
  client.on('error', closingError);
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`create table if not exists schema_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const done = new Set((await client.query<{ version: number }>('select version from schema_migrations')).rows.map((r) => r.version));
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
    for (const file of files) {
      const version = Number(file.slice(0, 4));
      if (done.has(version) || (opts.through !== undefined && version > opts.through)) {
        continue;
      }
      const sql = await readFile(join(MIGRATIONS_DIR, file), 'utf8');
      await client.query('begin');
      try {
        await client.query(sql);
        await client.query('insert into schema_migrations (version, name) values ($1, $2)', [version, file]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(file);
    }
    // The job queue's own schema (graphile_worker), versioned by graphile-worker itself, through a
    // pool of ours: graphile-worker ends a pool it made without waiting, after removing its error
    // listener, so its connection could still be closing when the caller stops the server.
    const pool = new pg.Pool({ connectionString, max: 1 });
    pool.on('error', closingError);
    pool.on('connect', (c) => c.on('error', closingError));
    try {
      await runWorkerMigrations({ pgPool: pool, logger: quietLogger() });
    } finally {
      await pool.end();
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
  return { applied };
}

function quietLogger(): Logger {
  // graphile-worker reports every step at info level; keep only its warnings and errors, less the
  // server stopping while a connection closes once the migrations are done (see closingError).
  return new Logger(() => (level, message, meta) => {
    if ((meta?.error as { code?: string } | undefined)?.code === '57P01') {
      return;
    }
    if (level === 'error' || level === 'warning') {
      console.error(`graphile-worker: ${message}`);
    }
  });
}
