// A real Sello server for a test file: its own database cloned from the migrated template, its own
// blob directory, an account, and a client signed as that account. Clock and URL fetcher can be
// replaced.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { SelloClient } from '../../src/client/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createAccount, type Credentials } from '../../src/domain/accounts/create-account.js';
import { systemClock, type Clock, type Deps, type UrlFetcher } from '../../src/domain/deps.js';
import { buildApp } from '../../src/http/app.js';
import type { AnswerFloor } from '../../src/http/answer-floor.js';
import { guardedFetch } from '../../src/net/url-guard.js';
import { SignerKeyPools } from '../../src/pki/key-pool.js';
import { createSecretBox, type SecretBox } from '../../src/pki/secret-box.js';
import { ImageJail } from '../../src/jail/image-jail.js';
import { PdfJail } from '../../src/jail/pdf-jail.js';
import { createTemplateEngines } from '../../src/render/index.js';
import { testPki } from './test-pki.js';
import { createPkiResponder } from '../../src/domain/pki/pki-responses.js';
import { loadPki } from '../../src/domain/pki/load-pki.js';
import { openServiceKeyStore } from '../../src/domain/pki/open-key-store.js';
import { databaseUrl } from './database-url.js';
import { createMessageChannels } from '../../src/notify/channels.js';
import { openBlobStore } from '../../src/store/blob-store.js';
import { openDb } from '../../src/store/db.js';

export interface TestServer {
  baseUrl: string;
  client: SelloClient;
  creds: Credentials;
  deps: Deps;
  app: FastifyInstance;
  dataDir: string;
  connectionString: string;
  logs: string[];
  /** Another account on the same server, with its own client. */
  newAccount(name?: string): Promise<{ creds: Credentials; client: SelloClient }>;
  /**
   * Stops this server as a crash or a deploy would (the database, the blobs and the master key
   * stay) and starts a new one on them; this object must not be used afterwards.
   */
  restart(): Promise<TestServer>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  clock?: Clock;
  fetchUrl?: UrlFetcher;
  /** A PKI of its own (a different root) instead of the one shared by the test process. */
  freshPki?: boolean;
  /** How timing-equalised answers wait for their floor (http/answer-floor.ts); the service's by default. */
  answerFloor?: AnswerFloor;
  /** The master key (random by default). */
  masterKey?: Buffer;
}

export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject('pgAdminUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name} template ${inject('templateDb')}`);
  await admin.end();
  return {
    url: databaseUrl(adminUrl, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), 'sello-test-data-'));
  return boot(opts, { database, dataDir, secrets: createSecretBox(opts.masterKey ?? randomBytes(32)), creds: undefined });
}

/**
 * A server on a database and data directory that exist already (a restored backup), signed in as
 * `creds`; close() leaves both in place.
 */
export async function startTestServerOn(
  opts: TestServerOptions & { databaseUrl: string; dataDir: string; masterKey: Buffer; creds: Credentials },
): Promise<TestServer> {
  const database = { url: opts.databaseUrl, drop: async () => {} };
  const server = await boot(opts, {
    database,
    dataDir: opts.dataDir,
    secrets: createSecretBox(opts.masterKey),
    creds: opts.creds,
    keepDataDir: true,
  });
  return server;
}

async function boot(
  opts: TestServerOptions,
  kept: {
    database: { url: string; drop: () => Promise<void> };
    dataDir: string;
    secrets: SecretBox;
    creds: Credentials | undefined;
    keepDataDir?: boolean;
  },
): Promise<TestServer> {
  const { database, dataDir, secrets } = kept;
  const config: Config = loadConfig({
    NODE_ENV: 'test',
    SELLO_DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    SELLO_LOG_LEVEL: 'info',
    ...opts.env,
  });
  const handle = openDb(database.url, 10);
  const clock = opts.clock ?? systemClock;
  // As in the runtime, signatures take their keys from a pool filled in the background; two
  // pairs, so that a test that signs more empties it and also exercises the on-demand path.
  const signerKeys = new SignerKeyPools({ defaultAlgorithm: config.pki.signerKey, size: 2 });
  const pdfJail = new PdfJail(config.pdfJail);
  const imageJail = new ImageJail(config.identity.checks);
  // The data directory's blobs, or a bucket when opts.env names one (test/helpers/s3-server.ts).
  const blobStore = await openBlobStore(config);
  // With SELLO_PKCS11_* set, the keys are the token's and the PKI is loaded as the runtime does
  // (generated in the token on the first start); otherwise the PKI shared by the test process.
  const keys = await openServiceKeyStore(config.pki.pkcs11);
  const tokenDeps = { db: handle.db, secrets, clock, keyStore: keys.store };
  const pki = config.pki.pkcs11
    ? createPkiResponder(tokenDeps, await loadPki(tokenDeps, { organization: 'Sello Test' }, 'http://127.0.0.1'), config.pki.tsaPolicyOid)
    : await testPki({ db: handle.db, secrets, clock }, config.pki.tsaPolicyOid, { fresh: opts.freshPki });
  const deps: Deps = {
    config,
    db: handle.db,
    blobs: blobStore.blobs,
    secrets,
    clock,
    fetchUrl: opts.fetchUrl ?? guardedFetch,
    pdfJail,
    imageJail,
    templates: createTemplateEngines(config.render, pdfJail),
    pki,
    signerKeys,
    // As the runtime builds them: providers from the environment (SELLO_TWILIO_*, SELLO_META_*), else the outbox.
    channels: createMessageChannels(config.channels, () => config.publicUrl),
  };
  signerKeys.start();
  const logs: string[] = [];
  const logStream = new (await import('node:stream')).Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const app = await buildApp(deps, { logStream, answerFloor: opts.answerFloor });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  // Signatures over absolute URLs use the public URL; point it at the real port.
  (config as { publicUrl: string }).publicUrl = opts.env?.SELLO_PUBLIC_URL ?? baseUrl;
  const newAccount = async (name = 'Test account') => {
    const creds = await createAccount(deps, { name });
    return { creds, client: new SelloClient({ baseUrl, ...creds }) };
  };
  const first = kept.creds ? { creds: kept.creds, client: new SelloClient({ baseUrl, ...kept.creds }) } : await newAccount();
  return {
    baseUrl,
    client: first.client,
    creds: first.creds,
    deps,
    app,
    dataDir,
    connectionString: database.url,
    logs,
    newAccount,
    restart: async () => {
      signerKeys.stop();
      keys.close();
      await app.close();
      await deps.templates.close();
      await deps.pdfJail.close();
      await deps.imageJail.close();
      blobStore.close();
      await handle.close();
      return boot(opts, { ...kept, creds: first.creds });
    },
    close: async () => {
      signerKeys.stop();
      keys.close();
      await app.close();
      await deps.templates.close();
      await deps.pdfJail.close();
      await deps.imageJail.close();
      blobStore.close();
      await handle.close();
      await database.drop();
      if (!kept.keepDataDir) {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
