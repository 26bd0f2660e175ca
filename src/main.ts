// The `sello` command and the composition root: reads the configuration once and runs one of
//   serve            API, signer pages and workers in one process (npm start); --api-only: no workers
//   api METHOD PATH  send a signed request (`api` alone: the older spelling of serve --api-only)
//   worker           jobs only
//   migrate          apply database migrations and exit
//   account ...      create, rotate-key, webhook, update, list
//   panel ...        invite a person to an account's panel, end their sessions
//   history verify   check a document's hash-chained history
//   blobs ...        migrate the data directory's blobs to the bucket, check every row's blob
//   auth check       what to sign for a request, and whether a signature is it
//   backup, restore  a consistent backup of the database and blobs, and bringing it back
import { ConfigError, loadConfig, type Config } from './config.js';
import { UsageError, flags } from './cli/args.js';
import { AppError } from './domain/errors.js';

// Each command loads only what it needs: the service's modules (database, PDF, PKI, HTTP) take
// seconds to load, which `sello --help` and a usage error should not wait for.
const cli = {
  account: () => import('./cli/account.js'),
  panel: () => import('./cli/panel.js'),
  mail: () => import('./cli/mail.js'),
  messages: () => import('./cli/messages.js'),
  history: () => import('./cli/history.js'),
  blobs: () => import('./cli/blobs.js'),
  authCheck: () => import('./cli/auth-check.js'),
  apiRequest: () => import('./cli/api-request.js'),
  backup: () => import('./cli/backup.js'),
  serve: () => import('./cli/serve.js'),
  database: () => import('./database.js'),
};

const USAGE = `usage: sello <command>
  serve [--api-only]            run API, signer pages and workers (embedded PostgreSQL unless DATABASE_URL);
                                --api-only runs no job workers (also: sello api with no arguments)
  api METHOD PATH [--body FILE|-] [--web-id ID [--api-key KEY]] [--url BASE]
                                send a signed request as an account and print the answer
  worker                        run the job workers only
  migrate                       apply database migrations
  account create --name NAME [--json]
  account rotate-key --web-id ID [--json]
  account webhook --web-id ID --url URL [--json]
  account update --web-id ID [--name NAME] [--logo FILE.png | --no-logo] [--nom151 on|off]
                 [--identity-retries N] [--identity-decision manual|automatic]
                 [--signer-key rsa-2048|ecdsa-p256|default]
                 [--frame-origins ORIGIN,...] [--brand-name NAME] [--brand-colour #RRGGBB]
                 [--email-sender-name NAME] [--email-reply-to ADDRESS] [--hide-sello on|off] [--json]
  account list [--json]
  account package add --web-id ID --kind KIND --pieces N (--days N | --to DATE) [--from DATE] [--json]
  account package list --web-id ID [--json]
  account package end --web-id ID --id PACKAGE_ID [--json]
  panel invite --web-id ID --email EMAIL [--language es|en] [--json]
                                let a person sign in to the account panel (/panel); emails a sign-in link
  panel sessions end --email EMAIL [--web-id ID] [--json]
                                sign that person out of the panel everywhere
  mail list [--json] [--limit N]  emails sent, or kept in the outbox when no SMTP server is set
  mail dsn [FILE] [--json]      feed a delivery-status notification (bounce, delivery report; stdin without FILE)
                                to the certified email it is about (exit 0 recorded, 1 not recognized)
  messages list [--json] [--limit N]
                                SMS and WhatsApp messages: sent, delivered, failed, or kept in the outbox
  history verify TICKET [--json]  check a document's history chain (exit 0 intact, 1 broken, 2 unknown)
  blobs migrate [--json]        copy SELLO_DATA_DIR's blobs to the bucket (SELLO_BLOB_STORE=s3), each read
                                back and its SHA-256 checked (exit 0 all copied intact, 1 not)
  blobs check [--json]          every blob a row names, read from the store in use and its SHA-256 checked
                                (exit 0 all intact, 1 some missing or corrupt, listed with their rows)
  auth check --web-id ID METHOD PATH [--body FILE | --file FILE] [--signature SIG]
                                the strings to sign for a request, and whether SIG matches one (exit 0 yes, 1 no)
  backup DIR [--blobs copy|manifest] [--json]
                                write a consistent backup (database, blobs or their list, PKI note) into a new
                                directory; the master key is not in it (docs/operations.md)
  restore DIR [--json]          bring a backup back into an empty database; needs the backup's master key
                                (exit 1 if a blob a row names is missing from the store)
Settings come from environment variables: see docs/configuration.md.`;

/** The commands whose first word is a subcommand (`account create`, `history verify`). */
const SUBCOMMANDS = new Set(['account', 'panel', 'mail', 'messages', 'history', 'auth', 'blobs']);

/** The lines of USAGE about one command (with their continuation lines). */
function usageOf(command: string): string[] {
  const out: string[] = [];
  let inside = false;
  for (const line of USAGE.split('\n').slice(1, -1)) {
    if (/^ {2}\S/.test(line)) {
      inside = line.startsWith(`  ${command} `) || line === `  ${command}`;
    }
    if (inside) {
      out.push(line);
    }
  }
  return out;
}

/** The usage of the most precise command argv names ("account create", else "account"). */
function usageFor(argv: string[]): string {
  const words: string[] = [];
  for (const w of argv) {
    if (w.startsWith('-')) {
      break;
    }
    words.push(w);
  }
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const lines = usageOf(words.slice(0, n).join(' '));
    if (lines.length > 0) {
      return `usage:\n${lines.join('\n')}`;
    }
  }
  return USAGE;
}

/**
 * Loading the service's modules takes seconds on a small machine: said before, not after. A process
 * that runs the job workers also says which identity checks this install cannot run (the face and
 * zone readers are an optional part: identity-imaging/optional-readers.ts).
 */
async function announceLoading(worker: boolean): Promise<void> {
  const { startProgress } = await import('./cli/start-progress.js');
  startProgress('Loading the service…');
  if (worker) {
    const { installedReaders, missingReadersLine } = await import('./identity-imaging/optional-readers.js');
    const missing = missingReadersLine(installedReaders());
    if (missing) {
      startProgress(missing);
    }
  }
}

/** `help`, `--help` and `-h`: the exit code when one was asked for (usage printed), else undefined. */
function answerHelp(command: string | undefined, rest: string[]): number | undefined {
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    const lines = usageOf(command);
    if (lines.length === 0) {
      console.error(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
      return 2;
    }
    console.log(`usage:\n${lines.join('\n')}`);
    return 0;
  }
  return undefined;
}

/** The service in this process: API, job workers, or both; runs until a signal stops it. */
async function runService(config: Config, parts: { http: boolean; worker: boolean }): Promise<number> {
  await announceLoading(parts.worker);
  await (await cli.serve()).serve(config, parts);
  return 0;
}

type Store = Awaited<ReturnType<Awaited<ReturnType<typeof cli.database>>['openStore']>>;

/** Runs a command on the migrated database with the master key, then closes both. */
async function withStore<T>(config: Config, run: (deps: Store['deps']) => Promise<T>): Promise<T> {
  const runtime = await (await cli.database()).openStore(config);
  try {
    return await run(runtime.deps);
  } finally {
    await runtime.close();
  }
}

async function migrateCommand(config: Config, rest: string[]): Promise<number> {
  flags(rest, {});
  const { openDatabase } = await cli.database();
  const { migrate } = await import('./store/migrate.js');
  const database = await openDatabase(config);
  try {
    const r = await migrate(database.connectionString);
    console.log(r.applied.length ? `applied: ${r.applied.join(', ')}` : 'database is up to date');
  } finally {
    await database.close();
  }
  return 0;
}

async function mailCommand(config: Config, rest: string[]): Promise<number> {
  const { parseMailCommand, runMailCommand } = await cli.mail();
  const cmd = parseMailCommand(rest);
  try {
    await withStore(config, (deps) => runMailCommand(deps, cmd));
  } catch (err) {
    // A mail system piping a report in (docs/operations.md) keeps and retries it on 75
    // (EX_TEMPFAIL, sysexits.h) and discards it on any other failure: only a report that is not
    // one, or is about no certified email, may be discarded; anything else (the database
    // restarting) must come again.
    if (cmd.sub === 'dsn' && !(err instanceof AppError) && !(err instanceof UsageError)) {
      console.error(`the report could not be recorded now: ${(err as Error).message}`);
      return 75;
    }
    throw err;
  }
  return 0;
}

/** Only the database: checking a chain needs no keys, so it works without the master key. */
async function historyCommand(config: Config, rest: string[]): Promise<number> {
  const { parseHistoryCommand, runHistoryCommand } = await cli.history();
  const cmd = parseHistoryCommand(rest);
  const { openDatabase } = await cli.database();
  const { migrate } = await import('./store/migrate.js');
  const { openDb } = await import('./store/db.js');
  const database = await openDatabase(config);
  try {
    await migrate(database.connectionString);
    const handle = openDb(database.connectionString, 2);
    try {
      return await runHistoryCommand({ db: handle.db }, cmd);
    } finally {
      await handle.close();
    }
  } finally {
    await database.close();
  }
}

/**
 * migrate: the data directory to the configured bucket, no database needed. check: the rows of the
 * migrated database against the store the service uses (no master key needed).
 */
async function blobsCommand(config: Config, rest: string[]): Promise<number> {
  const { parseBlobsCommand, reportCheck, reportMigration } = await cli.blobs();
  const cmd = parseBlobsCommand(rest);
  const { fsBlobRoot, openBlobStore, openS3BlobStore } = await import('./store/blob-store.js');
  if (cmd.sub === 'migrate') {
    if (config.blobs.kind !== 's3') {
      throw new UsageError('sello blobs migrate copies to a bucket: set SELLO_BLOB_STORE=s3 and SELLO_S3_BUCKET (docs/configuration.md)');
    }
    const { createFsBlobStore } = await import('./store/blobs.js');
    const { migrateBlobs } = await import('./domain/blobs/migrate-blobs.js');
    const from = fsBlobRoot(config.dataDir);
    const to = await openS3BlobStore(config.blobs.s3);
    try {
      return reportMigration(await migrateBlobs({ from: createFsBlobStore(from), to }), { from, to: to.location }, cmd.json);
    } finally {
      to.close();
    }
  }
  const { openDatabase } = await cli.database();
  const { migrate } = await import('./store/migrate.js');
  const { openDb } = await import('./store/db.js');
  const { checkBlobs } = await import('./domain/blobs/check-blobs.js');
  const database = await openDatabase(config);
  try {
    await migrate(database.connectionString);
    const handle = openDb(database.connectionString, 2);
    const store = await openBlobStore(config);
    try {
      return reportCheck(await checkBlobs({ db: handle.db, blobs: store.blobs }), store.location, cmd.json);
    } finally {
      store.close();
      await handle.close();
    }
  } finally {
    await database.close();
  }
}

/** Each command: its arguments (after the command word) in, the exit code out. */
const COMMANDS = new Map<string, (config: Config, rest: string[]) => Promise<number>>([
  [
    'serve',
    (config, rest) => runService(config, { http: true, worker: flags(rest, { 'api-only': 'boolean' }).values['api-only'] !== true }),
  ],
  [
    'worker',
    (config, rest) => {
      flags(rest, {});
      return runService(config, { http: false, worker: true });
    },
  ],
  // `api` alone: the older spelling of serve --api-only; with arguments, a signed request.
  [
    'api',
    async (config, rest) =>
      rest.length === 0 ? runService(config, { http: true, worker: false }) : (await cli.apiRequest()).apiRequest(config, rest),
  ],
  ['migrate', migrateCommand],
  [
    'account',
    async (config, rest) => {
      const { parseAccountCommand, runAccountCommand } = await cli.account();
      const cmd = parseAccountCommand(rest);
      return withStore(config, (deps) => runAccountCommand(deps, cmd)).then(() => 0);
    },
  ],
  [
    'panel',
    async (config, rest) => {
      const { parsePanelCommand, runPanelCommand } = await cli.panel();
      const cmd = parsePanelCommand(rest);
      return withStore(config, (deps) => runPanelCommand(deps, cmd)).then(() => 0);
    },
  ],
  ['mail', mailCommand],
  [
    'messages',
    async (config, rest) => {
      const { parseMessagesCommand, runMessagesCommand } = await cli.messages();
      const cmd = parseMessagesCommand(rest);
      return withStore(config, (deps) => runMessagesCommand(deps, cmd)).then(() => 0);
    },
  ],
  [
    'auth',
    async (config, rest) => {
      const { parseAuthCheckCommand, runAuthCheck } = await cli.authCheck();
      const cmd = parseAuthCheckCommand(rest);
      return withStore(config, (deps) => runAuthCheck(deps, cmd));
    },
  ],
  ['history', historyCommand],
  [
    'backup',
    async (config, rest) => {
      const { parseBackupCommand, runBackup, refused } = await cli.backup();
      return runBackup(config, parseBackupCommand(rest)).catch(refused);
    },
  ],
  [
    'restore',
    async (config, rest) => {
      const { parseRestoreCommand, runRestore, refused } = await cli.backup();
      return runRestore(config, parseRestoreCommand(rest)).catch(refused);
    },
  ],
  ['blobs', blobsCommand],
]);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const helped = answerHelp(command, rest);
  if (helped !== undefined) {
    return helped;
  }
  // An option where a command or its subcommand belongs (`sello --x`, `sello account --x`): the
  // commands below would take it for an unknown command or subcommand.
  const misplaced = command.startsWith('-') ? command : SUBCOMMANDS.has(command) && rest[0]?.startsWith('-') ? rest[0] : undefined;
  if (misplaced !== undefined) {
    throw new UsageError(`unknown option ${misplaced.split('=')[0]}`, true);
  }
  const config: Config = loadConfig();
  const run = COMMANDS.get(command);
  if (!run) {
    console.error(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
    return 2;
  }
  return run(config, rest);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError && err.withUsage) {
      console.error(`${err.message}\n${usageFor(process.argv.slice(2))}`);
      process.exit(2);
    }
    if (err instanceof ConfigError || err instanceof UsageError) {
      console.error(err.message);
      process.exit(2);
    }
    if (err instanceof AppError) {
      console.error(`${err.code}: ${err.message}`);
      process.exit(1);
    }
    console.error(err);
    process.exit(1);
  },
);
