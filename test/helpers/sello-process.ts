// `sello serve` and `sello worker` as real child processes on a data directory of their own (the
// embedded PostgreSQL), each the leader of its own process group, so that a test can kill it the
// way an operator's `kill -9` or the OOM killer would: the Node process and the PostgreSQL it
// started, all at once.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'sello.js');

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** A data directory directly under the system temp dir (as root, `postgres` must traverse its parents). */
export function tempDataDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** The environment of a `sello` process: nothing inherited that configures Sello or PostgreSQL. */
export function selloEnv(dataDir: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(SELLO_|PG|DATABASE_URL$|PORT$|HOST$|NODE_ENV$)/.test(k)) {
      env[k] = v;
    }
  }
  return {
    ...env,
    NODE_ENV: 'test',
    SELLO_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    SELLO_PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...extra,
  };
}

const running = new Set<SelloProcess>();

export class SelloProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  readonly startedAt = Date.now();
  private readonly child: ChildProcess;

  constructor(
    args: string[],
    readonly env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    running.add(this);
    void this.exited.then(() => running.delete(this));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Resolves with the match once stdout matches `re`; fails if the process exits first or time runs out. */
  async waitForStdout(re: RegExp, timeoutMs = 90_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    let exited: Exit | undefined;
    void this.exited.then((e) => (exited = e));
    for (;;) {
      const m = this.stdout.match(re);
      if (m) {
        return m;
      }
      if (exited || Date.now() > deadline) {
        throw new Error(
          `sello ${exited ? `exited (${exited.code ?? exited.signal})` : 'timed out'} before printing ${re}\n${this.output()}`,
        );
      }
      await sleep(25);
    }
  }

  /** The JSON log lines of stdout (pino), parsed. */
  logLines(): Record<string, unknown>[] {
    return this.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** SIGKILL to the whole process group: Node and the PostgreSQL it started die at once. */
  async killGroup(): Promise<Exit> {
    process.kill(-this.pid, 'SIGKILL');
    return this.exited;
  }

  /** SIGTERM, then the exit within timeoutMs (undefined if it did not exit in time). */
  async terminate(timeoutMs = 20_000): Promise<Exit | undefined> {
    this.child.kill('SIGTERM');
    return Promise.race([this.exited, sleep(timeoutMs).then(() => undefined)]);
  }

  output(): string {
    return `--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`;
  }
}

/** A connection to the embedded PostgreSQL a `sello` process runs on dataDir. */
export async function connectEmbedded(dataDir: string): Promise<pg.Client> {
  const password = (await readFile(join(dataDir, 'pg.password'), 'utf8')).trim();
  const port = Number((await readFile(join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[3]);
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'sello', password, database: 'sello' });
  client.on('error', () => {});
  await client.connect();
  return client;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills what is still running (group by group), stops an embedded PostgreSQL left on dataDir, removes it. */
export async function cleanUp(dataDirs: string[]): Promise<void> {
  for (const p of running) {
    try {
      process.kill(-p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await p.exited;
  }
  for (const dir of dataDirs) {
    try {
      const pid = Number((await readFile(join(dir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
      if (pid > 0 && pidAlive(pid)) {
        process.kill(pid, 'SIGQUIT'); // immediate shutdown
        for (let i = 0; i < 100 && pidAlive(pid); i++) {
          await sleep(100);
        }
      }
    } catch {
      // no server on it
    }
    await rm(dir, { recursive: true, force: true });
  }
}
