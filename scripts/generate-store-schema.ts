// Rewrites src/store/schema.ts from the migrations: starts a throw-away embedded PostgreSQL,
// migrates it, and writes the row types of what the migrations made.
// Run after adding a migration: node bin/run-ts.js scripts/generate-store-schema.ts
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/store/embedded-postgres.js';
import { migrate } from '../src/store/migrate.js';
import { generateSchemaSource } from '../src/store/schema-codegen.js';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'store', 'schema.ts');
const dir = await mkdtemp(join(tmpdir(), 'sello-schema-'));
const embedded = await startEmbeddedPostgres(dir);
try {
  await migrate(embedded.connectionString);
  const client = new pg.Client({ connectionString: embedded.connectionString });
  await client.connect();
  try {
    await writeFile(target, await generateSchemaSource(client));
  } finally {
    await client.end();
  }
  console.log(`wrote ${target}`);
} finally {
  await embedded.stop();
  await rm(dir, { recursive: true, force: true });
}
