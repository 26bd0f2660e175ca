// store/schema.ts is the migrated database's own description: every table and column of the public
// schema, each typed by its SQL type, nullability, default and CHECK (... in (...)) values. Kysely
// checks every builder query against it, so a renamed or dropped column stops compiling.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSchemaSource } from '../../src/store/schema-codegen.js';
import { createTestDatabase } from '../helpers/server.js';

const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'store', 'schema.ts');

describe('store/schema.ts', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('is the file generated from the migrated database', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    const generated = await generateSchemaSource(client);
    // Compared line by line, so a failure shows the lines that differ.
    expect(
      committed.split('\n'),
      'src/store/schema.ts differs from the migrations: node bin/run-ts.js scripts/generate-store-schema.ts',
    ).toEqual(generated.split('\n'));
  });

  it('tells a renamed column, a loosened constraint and a dropped default apart from the committed file', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    await client.query('begin');
    try {
      await client.query('alter table accounts rename column name to display_name');
      await client.query('alter table documents drop constraint documents_origin_check');
      await client.query('alter table accounts alter column time_zone drop default');
      const generated = await generateSchemaSource(client);
      expect(generated).not.toBe(committed);
      const accounts = /export interface AccountsTable \{[^}]*\}/.exec(generated)![0];
      expect(accounts).toContain('  display_name: string;');
      expect(accounts).not.toMatch(/^ {2}name:/m);
      expect(accounts).toContain('  time_zone: string;');
      expect(/export interface DocumentsTable \{[^}]*\}/.exec(generated)![0]).toContain('  origin: string;');
    } finally {
      await client.query('rollback');
    }
  });
});
