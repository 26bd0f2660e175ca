// One embedded PostgreSQL for the whole run, in a temporary directory. Migrations run once into a
// template database; each test file clones it (CREATE DATABASE ... TEMPLATE), so files run in
// parallel on their own data.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/store/embedded-postgres.js';
import { migrate } from '../../src/store/migrate.js';
import { databaseUrl } from './database-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    templateDb: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'sello-test-pg-'));
  const embedded = await startEmbeddedPostgres(dir);
  const adminUrl = databaseUrl(embedded.connectionString, 'postgres');
  const templateUrl = databaseUrl(embedded.connectionString, 'sello_template');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('create database sello_template');
  await admin.end();
  await migrate(templateUrl);
  project.provide('pgAdminUrl', adminUrl);
  project.provide('templateDb', 'sello_template');
  return async () => {
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
