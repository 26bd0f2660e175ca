// The database part of `sello backup` / `sello restore` (cli/backup.ts).
//
// Why COPY in one snapshot, not a copy of the data directory: a file copy taken between
// pg_backup_start and pg_backup_stop is only consistent together with every WAL segment written
// meanwhile (archived, or fetched by the streaming protocol), needs the server's file system (none
// with an external DATABASE_URL) and opens only in the same PostgreSQL major version on the same
// architecture. Debian's pg_dump (15) refuses the embedded server (17) and the embedded package
// ships no dump tool. So every table is read with COPY ... TO STDOUT inside one REPEATABLE READ,
// READ ONLY transaction: one snapshot, the same one for every table and for the list of blobs the
// rows name, taken while the service runs, and readable by any PostgreSQL. The schema is not in
// the backup: restore recreates it with the migrations the backup lists, then loads the rows.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { HOLD_BLOB_DELETIONS, RELEASE_BLOB_DELETIONS } from './blob-fence.js';
import { BLOB_COLUMNS, BLOB_JSON_ARRAYS } from './blob-references.js';

/** The schemas a backup holds: the service's tables and graphile-worker's job queue. */
const SCHEMAS = ['public', 'graphile_worker'];

export interface DumpedTable {
  schema: string;
  table: string;
  /** Columns in the file's order; generated columns are left out (PostgreSQL computes them again). */
  columns: string[];
  file: string;
  rows: number;
  sha256: string;
}

export interface DumpedSequence {
  schema: string;
  name: string;
  lastValue: string;
  isCalled: boolean;
}

export interface DatabaseDump {
  serverVersion: string;
  /** Names of the service's migrations applied (schema_migrations), in order. */
  migrations: string[];
  /** graphile-worker's schema version (its migrations table). */
  workerSchema: number;
  tables: DumpedTable[];
  sequences: DumpedSequence[];
  /** Every blob key a row of the snapshot names. */
  blobKeys: string[];
}

/** Writes every table of the snapshot under `dir` (db/NNNN.schema.table.copy). */
export async function dumpDatabase(client: pg.Client, dir: string): Promise<DatabaseDump> {
  await client.query('begin isolation level repeatable read, read only');
  try {
    const tables = await tablesInLoadOrder(client);
    const out: DumpedTable[] = [];
    for (const [i, t] of tables.entries()) {
      const file = join('db', `${String(i + 1).padStart(4, '0')}.${t.schema}.${t.table}.copy`);
      const cols = t.columns.map((c) => pg.escapeIdentifier(c)).join(', ');
      const hash = createHash('sha256');
      let rows = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          // COPY's text format writes one line a row: newlines inside values are escaped.
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
            rows++;
          }
          done(null, chunk);
        },
      });
      await pipeline(
        client.query(copyTo(`copy ${qualified(t)} (${cols}) to stdout`)),
        counter,
        createWriteStream(join(dir, file), { mode: 0o600 }),
      );
      out.push({ ...t, file, rows, sha256: hash.digest('hex') });
    }
    const sequences: DumpedSequence[] = [];
    for (const s of (await client.query<{ schema: string; name: string }>(SEQUENCES)).rows) {
      const v = await client.query<{ last_value: string; is_called: boolean }>(
        `select last_value::text, is_called from ${pg.escapeIdentifier(s.schema)}.${pg.escapeIdentifier(s.name)}`,
      );
      sequences.push({ schema: s.schema, name: s.name, lastValue: v.rows[0].last_value, isCalled: v.rows[0].is_called });
    }
    const migrations = (await client.query<{ name: string }>('select name from schema_migrations order by version')).rows.map(
      (r) => r.name,
    );
    const workerSchema = await workerSchemaVersion(client);
    const blobKeys = (await client.query<{ k: string }>(ALL_BLOB_KEYS)).rows.map((r) => r.k);
    const serverVersion = (await client.query<{ v: string }>('show server_version')).rows[0].v;
    await client.query('commit');
    return { serverVersion, migrations, workerSchema, tables: out, sequences, blobKeys };
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

/**
 * Loads a dump into a database whose schema the same migrations made: in one transaction, every
 * table emptied (the migrations write a few rows of their own), the files copied in, in the order
 * foreign keys need, and the sequences set where they were. Each file is checked against its hash
 * first: a damaged backup loads nothing.
 */
export async function loadDatabase(client: pg.Client, dir: string, dump: Pick<DatabaseDump, 'tables' | 'sequences'>): Promise<void> {
  for (const t of dump.tables) {
    const hash = createHash('sha256');
    await pipeline(createReadStream(join(dir, t.file)), async function* (src: AsyncIterable<Buffer>) {
      for await (const chunk of src) {
        hash.update(chunk);
      }
      yield* [];
    });
    if (hash.digest('hex') !== t.sha256) {
      throw new Error(`${t.file}: its SHA-256 is not the one the backup's manifest records; the backup is damaged`);
    }
  }
  await client.query('begin');
  try {
    await client.query(`truncate ${dump.tables.map(qualified).join(', ')}`);
    for (const t of dump.tables) {
      const cols = t.columns.map((c) => pg.escapeIdentifier(c)).join(', ');
      await pipeline(createReadStream(join(dir, t.file)), client.query(copyFrom(`copy ${qualified(t)} (${cols}) from stdin`)));
    }
    for (const s of dump.sequences) {
      await client.query('select setval($1::regclass, $2::bigint, $3)', [
        `${pg.escapeIdentifier(s.schema)}.${pg.escapeIdentifier(s.name)}`,
        s.lastValue,
        s.isCalled,
      ]);
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

/** graphile-worker's schema version (the last of its migrations applied). */
export async function workerSchemaVersion(client: pg.Client): Promise<number> {
  return Number((await client.query<{ v: number | null }>('select max(id) as v from graphile_worker.migrations')).rows[0].v ?? 0);
}

/** Holds every blob deletion off on this session until released (blob-fence.ts); waits for those under way. */
export async function holdBlobDeletions(client: pg.Client): Promise<void> {
  await client.query(HOLD_BLOB_DELETIONS);
}

export async function releaseBlobDeletions(client: pg.Client): Promise<void> {
  await client.query(RELEASE_BLOB_DELETIONS);
}

/** Every blob key a row names. */
export async function namedBlobKeys(client: pg.Client): Promise<string[]> {
  return (await client.query<{ k: string }>(ALL_BLOB_KEYS)).rows.map((r) => r.k);
}

/** True when the database holds no table of the service or of the job queue. */
export async function isEmptyDatabase(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ n: number }>('select count(*)::int as n from pg_tables where schemaname = any($1::text[])', [
    SCHEMAS,
  ]);
  return rows[0].n === 0;
}

const SEQUENCES = `
  select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where c.relkind = 'S' and n.nspname = any('{${SCHEMAS.join(',')}}'::text[]) order by 1, 2`;

const ALL_BLOB_KEYS = `select distinct k from (${[
  ...BLOB_COLUMNS.map(({ table, column }) => `select ${column} as k from ${table}`),
  ...BLOB_JSON_ARRAYS.map(
    ({ table, column }) =>
      `select a->>'sha256' as k from ${table}, jsonb_array_elements(${column}) a where jsonb_typeof(${column}) = 'array'`,
  ),
].join(' union all ')}) refs where k ~ '^[0-9a-f]{64}$' order by k`;

function qualified(t: { schema: string; table: string }): string {
  return `${pg.escapeIdentifier(t.schema)}.${pg.escapeIdentifier(t.table)}`;
}

/** The tables with their columns, every table after those it references (foreign keys). */
async function tablesInLoadOrder(client: pg.Client): Promise<{ schema: string; table: string; columns: string[] }[]> {
  const { rows } = await client.query<{ schema: string; table: string; columns: string[] }>(
    `select n.nspname as schema, c.relname as table,
            array_agg(a.attname::text order by a.attnum) as columns
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
      where c.relkind in ('r', 'p') and n.nspname = any($1::text[])
      group by 1, 2 order by 1, 2`,
    [SCHEMAS],
  );
  const edges = (
    await client.query<{ from: string; to: string }>(
      `select conrelid::regclass::text as from, confrelid::regclass::text as to from pg_constraint
        where contype = 'f' and conrelid <> confrelid and connamespace in (select oid from pg_namespace where nspname = any($1::text[]))`,
      [SCHEMAS],
    )
  ).rows;
  const name = (t: { schema: string; table: string }) => (t.schema === 'public' ? t.table : `${t.schema}.${t.table}`);
  const byName = new Map(rows.map((r) => [name(r), r]));
  const ordered: typeof rows = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (n: string) => {
    if (state.get(n) === 'done') {
      return;
    }
    if (state.get(n) === 'visiting') {
      throw new Error(`foreign keys form a cycle through ${n}: the backup cannot order its tables`);
    }
    state.set(n, 'visiting');
    for (const e of edges) {
      if (e.from === n && byName.has(e.to)) {
        visit(e.to);
      }
    }
    state.set(n, 'done');
    ordered.push(byName.get(n)!);
  };
  for (const r of rows) {
    visit(name(r));
  }
  return ordered;
}
