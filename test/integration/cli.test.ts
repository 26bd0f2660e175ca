// The `sello` command end to end, as an operator runs it: `node bin/sello.js ...` in child
// processes, each on its own data directory with the embedded PostgreSQL (no DATABASE_URL). With
// the service stopped, every CLI call starts and stops the database itself (1–2 s each), so the
// calls here are few and chained; with `sello serve` running, the CLI connects to its database.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloClient } from '../../src/client/index.js';
import { freePort, pidAlive, selloEnv, sleep } from '../helpers/sello-process.js';

// The three groups below run side by side (each on its own data directory and port); the steps of
// a group run in order, each building on the previous one.
const step = it.sequential;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'sello.js');

// ---------------------------------------------------------------------------------------------
// Child processes, data directories and their clean-up

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}
interface CliResult extends Exit {
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

async function tempDir(prefix: string): Promise<string> {
  // Directly under the system temp dir: as root the embedded server runs as `postgres`, which must
  // be able to traverse every parent of the data directory.
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

function spawnSello(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

function exitOf(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode as NodeJS.Signals | null });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Runs `sello ARGS` to completion (killed after timeoutMs). */
async function sello(
  args: string[],
  opts: { dataDir: string; port?: number; env?: Record<string, string>; timeoutMs?: number },
): Promise<CliResult> {
  const child = spawnSello(args, selloEnv(opts.dataDir, opts.port ?? (await freePort()), opts.env));
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
  const exit = await exitOf(child);
  clearTimeout(timer);
  // 'exit' can come before the pipes are drained.
  await Promise.all([once(child.stdout!, 'close'), once(child.stderr!, 'close')]);
  return { ...exit, stdout, stderr };
}

function once(stream: NodeJS.ReadableStream & { closed?: boolean }, event: string): Promise<void> {
  return stream.closed ? Promise.resolve() : new Promise((resolve) => stream.once(event, () => resolve()));
}

/** What a failed command printed, for assertion messages. */
function show(r: CliResult): string {
  return `exit ${r.code ?? r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

/** `sello serve` in the background, its output collected. */
class ServeProcess {
  stdout = '';
  stderr = '';
  /** stdout as it arrived, read by read: lines written apart arrive apart unless held in a buffer. */
  readonly chunks: string[] = [];
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcess;

  constructor(
    readonly dataDir: string,
    readonly port: number,
  ) {
    this.child = spawnSello(['serve'], selloEnv(dataDir, port));
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.stdout += d;
      this.chunks.push(d);
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = exitOf(this.child);
  }

  get baseUrl() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Resolves with the match once stdout matches `re`; fails if the process exits first. */
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
          `sello serve ${exited ? `exited (${exited.code ?? exited.signal})` : 'timed out'} before printing ${re}\n${this.output()}`,
        );
      }
      await sleep(50);
    }
  }

  async waitHealthy(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    while (Date.now() < deadline) {
      try {
        const res = await fetch(`${this.baseUrl}/healthz`, { signal: AbortSignal.timeout(2000) });
        last = `HTTP ${res.status} ${await res.text()}`;
        if (res.status === 200) {
          return;
        }
      } catch (err) {
        last = String(err);
      }
      await sleep(150);
    }
    throw new Error(`GET /healthz never answered 200 (last: ${last})\n${this.output()}`);
  }

  /** SIGTERM, then the exit within timeoutMs (undefined if it did not exit in time). */
  async terminate(timeoutMs = 15_000): Promise<Exit | undefined> {
    this.child.kill('SIGTERM');
    return Promise.race([this.exited, sleep(timeoutMs).then(() => undefined)]);
  }

  output() {
    return `--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`;
  }
}

/** The pid of the embedded PostgreSQL of dataDir if one is running (postmaster.pid line 1). */
async function runningPostgres(dataDir: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    return pid > 0 && pidAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function stopStrayPostgres(dataDir: string): Promise<void> {
  const pid = await runningPostgres(dataDir);
  if (!pid) {
    return;
  }
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && pidAlive(pid); i++) {
    await sleep(100);
  }
  if (pidAlive(pid)) {
    process.kill(pid, 'SIGQUIT'); // immediate shutdown
  }
}

afterAll(async () => {
  for (const child of children) {
    child.kill('SIGTERM');
  }
  const deadline = Date.now() + 10_000;
  while (children.size > 0 && Date.now() < deadline) {
    await sleep(100);
  }
  for (const child of children) {
    child.kill('SIGKILL');
  }
  for (const dir of tempDirs) {
    await stopStrayPostgres(dir).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);

const parseJson = (r: CliResult) => {
  expect(r.code, show(r)).toBe(0);
  const lines = r.stdout.split('\n');
  // Exactly one line, newline-terminated, and nothing else on stdout.
  expect(lines, show(r)).toHaveLength(2);
  expect(lines[1]).toBe('');
  return JSON.parse(lines[0]) as unknown;
};

/** A 1×1 PNG (signature, IHDR, IDAT, IEND). */
const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

interface Listed {
  webId: string;
  name: string;
  activeKeys: number;
  webhookUrl: string | null;
  createdAt: string;
}

// ---------------------------------------------------------------------------------------------

describe('sello account and migrate, service stopped', { concurrent: true, timeout: 120_000 }, () => {
  let dataDir: string;
  let webId: string;
  let apiKey: string;
  beforeAll(async () => {
    dataDir = await tempDir('sello-cli-offline-');
  });

  step('account create --json prints one JSON line with webId and apiKey', async () => {
    const r = await sello(['account', 'create', '--name', 'Acme', '--json'], { dataDir });
    const creds = parseJson(r) as { webId: string; apiKey: string };
    expect(Object.keys(creds).sort()).toEqual(['apiKey', 'webId']);
    expect(creds.webId).toMatch(/^[A-Za-z0-9_-]{8,}$/);
    expect(creds.apiKey).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    ({ webId, apiKey } = creds);
    // The command stopped the database it started.
    expect(await runningPostgres(dataDir)).toBeUndefined();
  });

  step('account create without --name exits 2 naming --name', async () => {
    const r = await sello(['account', 'create', '--json'], { dataDir });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('--name');
    expect(r.stdout).toBe('');
  });

  step('account rotate-key issues new keys for the same web id; two stay active', async () => {
    const first = parseJson(await sello(['account', 'rotate-key', '--web-id', webId, '--json'], { dataDir })) as {
      webId: string;
      apiKey: string;
    };
    expect(first.webId).toBe(webId);
    expect(first.apiKey).not.toBe(apiKey);
    const second = parseJson(await sello(['account', 'rotate-key', '--web-id', webId, '--json'], { dataDir })) as {
      webId: string;
      apiKey: string;
    };
    expect(second.webId).toBe(webId);
    expect(new Set([apiKey, first.apiKey, second.apiKey]).size).toBe(3);
  });

  step('account webhook --json prints the URL and a whsec_ secret', async () => {
    const r = parseJson(
      await sello(['account', 'webhook', '--web-id', webId, '--url', 'https://example.com/hook', '--json'], { dataDir }),
    ) as { url: string; secret: string };
    expect(Object.keys(r).sort()).toEqual(['secret', 'url']);
    expect(r.url).toBe('https://example.com/hook');
    expect(r.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  step('account list --json lists it, with 2 active keys after two rotations and the webhook', async () => {
    const list = parseJson(await sello(['account', 'list', '--json'], { dataDir })) as Listed[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ webId, name: 'Acme', activeKeys: 2, webhookUrl: 'https://example.com/hook' });
    expect(Number.isNaN(Date.parse(list[0].createdAt))).toBe(false);
  });

  step('account update renames the account and sets, then removes, its logo; bad logos are refused', async () => {
    const dir = await tempDir('sello-cli-logo-');
    const logo = join(dir, 'logo.png');
    await writeFile(logo, TINY_PNG);
    const r = parseJson(
      await sello(['account', 'update', '--web-id', webId, '--name', 'Acme Legal', '--logo', logo, '--json'], { dataDir }),
    ) as { webId: string; name: string; logo: string };
    expect(r).toEqual({ webId, name: 'Acme Legal', logo: `${TINY_PNG.length} bytes` });
    const list = parseJson(await sello(['account', 'list', '--json'], { dataDir })) as Listed[];
    expect(list[0]).toMatchObject({ webId, name: 'Acme Legal' });

    const notPng = join(dir, 'logo.txt');
    await writeFile(notPng, 'not an image');
    const bad = await sello(['account', 'update', '--web-id', webId, '--logo', notPng], { dataDir });
    expect(bad.code, show(bad)).not.toBe(0);
    expect(bad.stderr).toMatch(/logo.*PNG/);

    const nothing = await sello(['account', 'update', '--web-id', webId], { dataDir });
    expect(nothing.code, show(nothing)).toBe(2);
    expect(nothing.stderr).toContain('--name');

    const removed = parseJson(await sello(['account', 'update', '--web-id', webId, '--no-logo', '--json'], { dataDir }));
    expect(removed).toEqual({ webId, logo: 'removed' });
    const back = parseJson(await sello(['account', 'update', '--web-id', webId, '--name', 'Acme', '--json'], { dataDir }));
    expect(back).toEqual({ webId, name: 'Acme' });
  });

  step("panel invite without --language emails in the operator's default language; --language still wins", async () => {
    const en = await sello(['panel', 'invite', '--web-id', webId, '--email', 'ana@example.com', '--json'], {
      dataDir,
      env: { SELLO_DEFAULT_LANGUAGE: 'en' },
    });
    expect(en.code, show(en)).toBe(0);
    const es = await sello(['panel', 'invite', '--web-id', webId, '--email', 'bruno@example.com', '--language', 'es', '--json'], {
      dataDir,
      env: { SELLO_DEFAULT_LANGUAGE: 'en' },
    });
    expect(es.code, show(es)).toBe(0);
    const mails = parseJson(await sello(['mail', 'list', '--json'], { dataDir })) as { to: string; subject: string }[];
    expect(mails.find((m) => m.to === 'ana@example.com')?.subject).toBe('Sign in to the Acme panel');
    expect(mails.find((m) => m.to === 'bruno@example.com')?.subject).toBe('Entrar al panel de Acme');
  });

  step('account rotate-key of an unknown web id fails with a clear message', async () => {
    const r = await sello(['account', 'rotate-key', '--web-id', 'no-such-account', '--json'], { dataDir });
    expect(r.code, show(r)).not.toBe(0);
    expect(r.stderr).toMatch(/no account with web id no-such-account/);
    expect(r.stdout).toBe('');
  });

  step('account webhook with a bad URL fails naming url', async () => {
    const r = await sello(['account', 'webhook', '--web-id', webId, '--url', 'notaurl', '--json'], { dataDir });
    expect(r.code, show(r)).not.toBe(0);
    expect(r.stderr).toMatch(/\burl\b.*http/);
    expect(r.stdout).toBe('');
  });

  step('migrate on a migrated data directory says it is up to date', async () => {
    const r = await sello(['migrate'], { dataDir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout.trim()).toBe('database is up to date');
    expect(await runningPostgres(dataDir)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------

describe('sello serve with the CLI beside it', { concurrent: true, timeout: 120_000 }, () => {
  let dataDir: string;
  let scratch: string;
  let port: number;
  let server: ServeProcess | undefined;
  const first = { webId: '', apiKey: '' };
  const second = { webId: '', apiKey: '' };
  const serveExits: { exit: Exit; stderr: string }[] = [];

  beforeAll(async () => {
    dataDir = await tempDir('sello-cli-serve-');
    scratch = await tempDir('sello-cli-scratch-');
    port = await freePort();
  });

  step('first start prints the first account and the listening line, then answers /healthz', async () => {
    server = new ServeProcess(dataDir, port);
    const block = await server.waitForStdout(/^ {2}webId: {2}(\S+)\n {2}apiKey: (\S+)\n\n/m);
    first.webId = block[1];
    first.apiKey = block[2];
    await server.waitForStdout(new RegExp(`Sello is listening on http://127\\.0\\.0\\.1:${port}\\b`));
    await server.waitHealthy();
    expect(server.stdout.match(/First start/g)).toHaveLength(1);
    // Named after the public URL's host (no SELLO_ACCOUNT_NAME): signers read it as the sender.
    expect(server.stdout).toMatch(/^ {2}name: {3}127\.0\.0\.1 \(signers see it/m);
  });

  step('first start, its output piped: says what it does, step by step, before the first account', () => {
    const steps = [
      /^Loading the service…$/m,
      /^Creating the database in .*pg \(first start: initialising the PostgreSQL data directory\)…$/m,
      /^Starting PostgreSQL \(embedded, port \d+\)…$/m,
      /^Creating the database sello…$/m,
      /^Migrating the database…$/m,
      /^Generating the service PKI: root, issuing CA, time-stamp authority and OCSP responder keys…$/m,
      /^Starting the job runner…$/m,
      /^First start: an account was created/m,
      /^Building the HTTP server…$/m,
      /^Sello is listening on /m,
    ];
    const at = steps.map((re) => server!.stdout.search(re));
    expect(
      at.every((i) => i >= 0),
      server!.output(),
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    // Written as they happen, not held in a buffer until the service listens: the PKI's keys take
    // seconds to generate, and their line was read before the lines that follow it were written.
    const pkiChunk = server!.chunks.findIndex((c) => c.includes('Generating the service PKI'));
    expect(server!.chunks[pkiChunk], server!.chunks.join('⟩⟨')).not.toContain('First start');
  });

  step("sello auth check without PORT or SELLO_PUBLIC_URL offers the running service's absolute URL", async () => {
    const target = '/api/document?limit=1';
    const absolute = `${server!.baseUrl}${target}`;
    const signature = createHmac('sha256', first.apiKey).update(absolute).digest('base64');
    const r = await sello(['auth', 'check', '--web-id', first.webId, 'GET', target, '--signature', signature], {
      dataDir,
      env: { PORT: '', SELLO_PUBLIC_URL: '' },
    });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain(`or the absolute URL: ${absolute} (the public URL of the service running on this data directory)`);
    expect(r.stdout).toContain('matches string 2 with the newest key');
    // And the service accepts it.
    const res = await fetch(absolute, { headers: { authorization: `svc ${first.webId}:${signature}` } });
    expect(res.status).toBe(200);
  });

  step('the printed credentials work with SelloClient', async () => {
    const client = new SelloClient({ baseUrl: server!.baseUrl, ...first });
    const set = await client.createDocumentSet({ name: 'First set' });
    expect(set).toMatchObject({ name: 'First set', uuid: expect.any(String) });
    const list = await client.listDocuments();
    expect(Array.isArray(list.documents)).toBe(true);
  });

  step('account create while the service runs uses its database; the new key works at once', async () => {
    const r = await sello(['account', 'create', '--name', 'Second', '--json'], { dataDir, port });
    Object.assign(second, parseJson(r));
    expect(second.webId).not.toBe(first.webId);
    // The CLI left the service's database running.
    expect(await runningPostgres(dataDir)).toBeDefined();
    const client = new SelloClient({ baseUrl: server!.baseUrl, ...second });
    const list = await client.listDocuments();
    expect(list.documents).toEqual([]);
    const health = await fetch(`${server!.baseUrl}/healthz`);
    expect(health.status).toBe(200);
  });

  step('sello api GET signs as the account named by --web-id', async () => {
    const r = await sello(['api', 'GET', '/api/document', '--web-id', second.webId], { dataDir, port });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('HTTP 200');
    expect(JSON.parse(r.stdout)).toMatchObject({ documents: [] });
  });

  step('sello api POST --body FILE sends the file as the JSON body', async () => {
    const file = join(scratch, 'set.json');
    await writeFile(file, JSON.stringify({ name: 'From the CLI', metadata: { ref: 42 } }));
    const r = await sello(['api', 'POST', '/api/documentset', '--body', file, '--web-id', second.webId], { dataDir, port });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('HTTP 200');
    const set = JSON.parse(r.stdout) as { uuid: string; name: string };
    expect(set).toMatchObject({ uuid: expect.any(String), name: 'From the CLI' });
    // It belongs to the second account.
    const client = new SelloClient({ baseUrl: server!.baseUrl, ...second });
    expect(await client.getDocumentSet(set.uuid)).toMatchObject({ uuid: set.uuid, name: 'From the CLI' });
  });

  step('sello api without --web-id, two accounts existing: signs as the first one and says so', async () => {
    const r = await sello(['api', 'GET', '/api/document?limit=1'], { dataDir, port });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain(`(${first.webId}), the first account`);
    expect(r.stderr).toContain('HTTP 200');
  });

  step('sello api finds the server running on its data directory whatever SELLO_PUBLIC_URL says', async () => {
    // Another port in PORT and SELLO_PUBLIC_URL: the address comes from the data directory.
    const r = await sello(['api', 'GET', '/api/document?limit=1', '--web-id', second.webId], { dataDir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('HTTP 200');
  });

  step('sello api with a --body file that does not exist: one line, exit 2', async () => {
    const r = await sello(['api', 'POST', '/api/documentset', '--body', join(scratch, 'missing.json'), '--web-id', second.webId], {
      dataDir,
      port,
    });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`cannot read --body ${join(scratch, 'missing.json')}: ENOENT`]);
  });

  step('SIGTERM stops the service within 15 s, and its database with it', async () => {
    const pgPid = await runningPostgres(dataDir);
    expect(pgPid).toBeDefined();
    const exit = await server!.terminate(15_000);
    expect(exit, `sello serve did not exit within 15 s\n${server!.output()}`).toBeDefined();
    serveExits.push({ exit: exit!, stderr: server!.stderr });
    expect(exit!.signal, server!.output()).toBeNull();
    expect(server!.stdout).toContain('stopping…');
    for (let i = 0; i < 150 && pidAlive(pgPid!); i++) {
      await sleep(100);
    }
    expect(pidAlive(pgPid!)).toBe(false);
    server = undefined;
  });

  step('account list works after the service stopped and lists both accounts', async () => {
    const list = parseJson(await sello(['account', 'list', '--json'], { dataDir, port })) as Listed[];
    expect(list.map((a) => [a.webId, a.name])).toEqual([
      [first.webId, '127.0.0.1'],
      [second.webId, 'Second'],
    ]);
    expect(await runningPostgres(dataDir)).toBeUndefined();
  });

  step('a second start does not announce a first account again', async () => {
    server = new ServeProcess(dataDir, port);
    await server.waitForStdout(/Sello is listening on /);
    await server.waitHealthy();
    expect(server.stdout).not.toMatch(/First start|webId:|apiKey:/);
    const exit = await server.terminate(15_000);
    expect(exit, `sello serve did not exit within 15 s\n${server.output()}`).toBeDefined();
    serveExits.push({ exit: exit!, stderr: server.stderr });
    expect(exit!.signal, server.output()).toBeNull();
    server = undefined;
  });

  it.sequential('SIGTERM ends sello serve with exit code 0 and a clean drain', () => {
    expect(serveExits).toHaveLength(2);
    for (const { exit, stderr } of serveExits) {
      expect(exit, stderr).toEqual({ code: 0, signal: null });
      expect(stderr).not.toMatch(/terminating connection due to administrator command|Unhandled 'error' event/);
    }
  });

  afterAll(async () => {
    if (server) {
      await server.terminate(10_000);
    }
  }, 30_000);
});

// ---------------------------------------------------------------------------------------------

describe('usage and settings errors', { concurrent: true, timeout: 120_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    // Never created: these errors come before anything touches the data directory.
    dataDir = join(await tempDir('sello-cli-usage-'), 'data');
  });

  step('an unknown command exits 2 with the usage', async () => {
    const r = await sello(['frobnicate'], { dataDir });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
    expect(r.stderr).toContain('usage: sello <command>');
    expect(existsSync(dataDir)).toBe(false);
  });

  step('an unknown option: every command says "unknown option --x" and shows its usage, exit 2', async () => {
    const cases: [string[], string][] = [
      [['serve', '--bogus'], '  serve [--api-only]'],
      [['worker', '--bogus'], '  worker '],
      [['migrate', '--bogus'], '  migrate '],
      [['api', 'GET', '/api/document', '--bogus'], '  api METHOD PATH'],
      [['account', 'create', '--name', 'X', '--bogus'], '  account create --name NAME'],
      [['account', 'package', 'list', '--bogus'], '  account package list --web-id ID'],
      [['panel', 'invite', '--bogus'], '  panel invite --web-id ID'],
      [['mail', 'list', '--bogus'], '  mail list '],
      [['messages', 'list', '--bogus'], '  messages list '],
      [['history', 'verify', 'T', '--bogus'], '  history verify TICKET'],
      [['auth', 'check', '--bogus', 'GET', '/x'], '  auth check --web-id ID'],
      [['backup', 'DIR', '--bogus'], '  backup DIR [--blobs copy|manifest]'],
      [['restore', 'DIR', '--bogus'], '  restore DIR [--json]'],
      // Where the subcommand belongs.
      [['account', '--bogus'], '  account rotate-key --web-id ID'],
      [['history', '--bogus'], '  history verify TICKET'],
      [['account', 'package', '--bogus'], '  account package list --web-id ID'],
    ];
    const results = await Promise.all(cases.map(([args]) => sello(args, { dataDir })));
    results.forEach((r, i) => {
      const [args, usage] = cases[i];
      expect(r.code, `${args.join(' ')}\n${show(r)}`).toBe(2);
      expect(r.stderr.startsWith('unknown option --bogus\nusage:\n'), `${args.join(' ')}\n${show(r)}`).toBe(true);
      expect(r.stderr, args.join(' ')).toContain(usage);
      expect(r.stdout, args.join(' ')).toBe('');
    });
    // The usage of that command, not all of them.
    expect(results[4].stderr).not.toContain('account rotate-key');
    const value = await sello(['account', 'list', '--json=yes'], { dataDir });
    expect(value.code, show(value)).toBe(2);
    expect(value.stderr).toMatch(/^--json takes no value\nusage:\n {2}account list/);
    const top = await sello(['--bogus'], { dataDir });
    expect(top.code, show(top)).toBe(2);
    expect(top.stderr.startsWith('unknown option --bogus\nusage: sello <command>'), show(top)).toBe(true);
    expect(existsSync(dataDir)).toBe(false);
  });

  step('sello api with a method HTTP APIs do not have: says which it takes, shows the usage, sends nothing', async () => {
    const r = await sello(['api', 'FETCH', '/api/document'], { dataDir });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('sello api: METHOD is one of GET, POST, PUT, PATCH, DELETE, not "FETCH"');
    expect(r.stderr).toContain('usage: sello api METHOD /path');
    expect(r.stdout).toBe('');
    expect(existsSync(dataDir)).toBe(false);
  });

  step('a bad setting exits 2 naming it', async () => {
    const r = await sello(['migrate'], { dataDir, env: { PORT: 'abc' } });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('PORT="abc"');
    expect(r.stderr).toMatch(/invalid configuration/);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('help', () => {
  it('sello COMMAND --help prints that command usage and exits 0, without starting anything', async () => {
    const dataDir = await tempDir('sello-cli-help-');
    const r = await sello(['account', '--help'], { dataDir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('account update --web-id ID');
    expect(r.stdout).not.toContain('history verify');
    const serve = await sello(['serve', '--help'], { dataDir });
    expect(serve.stdout).toContain('--api-only');
    expect(existsSync(join(dataDir, 'pg'))).toBe(false);
  });
});

describe('sello auth check', { timeout: 120_000 }, () => {
  let dataDir: string;
  let webId: string;
  let apiKey: string;
  const sig = (data: string) => createHmac('sha256', Buffer.from(apiKey, 'utf8')).update(data).digest('base64');
  beforeAll(async () => {
    dataDir = await tempDir('sello-cli-auth-');
    ({ webId, apiKey } = parseJson(await sello(['account', 'create', '--name', 'Acme', '--json'], { dataDir })) as {
      webId: string;
      apiKey: string;
    });
  });

  step('a GET: prints the target to sign and says which string a good signature matches', async () => {
    const target = '/api/document?limit=5&from=0';
    const r = await sello(['auth', 'check', '--web-id', webId, 'GET', target, '--signature', sig(target)], { dataDir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain(`the request target as sent: ${target}`);
    expect(r.stdout).toContain(sig(target));
    expect(r.stdout).toContain('matches string 1 with the newest key');
    expect(r.stdout).not.toContain(apiKey);
  });

  step('a JSON POST signed over a pretty-printed body: both strings shown; a wrong signature exits 1', async () => {
    const file = join(dataDir, 'body.json');
    await writeFile(file, '{ "name": "Alta" }\n');
    const good = await sello(
      ['auth', 'check', '--web-id', webId, 'POST', '/api/documentset', '--body', file, '--signature', sig('{"name":"Alta"}')],
      {
        dataDir,
      },
    );
    expect(good.code, show(good)).toBe(0);
    expect(good.stdout).toContain('or the body re-serialized compactly (15 bytes): {"name":"Alta"}');
    expect(good.stdout).toContain('matches string 2');
    const bad = await sello(['auth', 'check', '--web-id', webId, 'POST', '/api/documentset', '--body', file, '--signature', sig('other')], {
      dataDir,
    });
    expect(bad.code, show(bad)).toBe(1);
    expect(bad.stdout).toContain('matches none of them');
  });

  step('an unknown web id exits 1 saying so; a missing PATH or file exits 2 in one line', async () => {
    const unknown = await sello(['auth', 'check', '--web-id', 'nobody', 'GET', '/api/document'], { dataDir });
    expect(unknown.code, show(unknown)).toBe(1);
    expect(unknown.stdout).toContain('no account has the web id nobody');
    const usage = await sello(['auth', 'check', '--web-id', webId, 'GET'], { dataDir });
    expect(usage.code, show(usage)).toBe(2);
    expect(usage.stderr).toContain('usage: sello auth check');
    const missing = await sello(['auth', 'check', '--web-id', webId, 'POST', '/developers/json', '--body', join(dataDir, 'nope.json')], {
      dataDir,
    });
    expect(missing.code, show(missing)).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('cannot read the body');
  });
});
