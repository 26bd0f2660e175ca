// The CLI's commands migrate, do their work, and stop the embedded PostgreSQL they started, often
// within milliseconds (`sello account rotate-key` of an unknown web id). A connection still closing
// when the server stops receives "terminating connection due to administrator command" (57P01): a
// pool or client without an error listener then throws, and the command ends in a stack trace
// instead of its message. Here a proxy in front of PostgreSQL answers every Terminate with that
// error, as a server stopping at that moment does, and migrate runs in a process of its own.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** An ErrorResponse (PostgreSQL protocol 3): FATAL 57P01, what a backend sends on a fast shutdown. */
function adminShutdown(): Buffer {
  const fields = Buffer.concat(
    [
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', '57P01'],
      ['M', 'terminating connection due to administrator command'],
    ].map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8')),
  );
  const body = Buffer.concat([fields, Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0, 'ascii');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/**
 * Forwards client messages to PostgreSQL, except Terminate ('X'): that one is answered with the
 * shutdown error and the connection closed. The first message (startup) has no type byte.
 */
function stoppingProxy(target: { host: string; port: number }): Promise<{ server: Server; port: number; terminated: () => number }> {
  let terminated = 0;
  const server = createServer((client: Socket) => {
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.pipe(client);
    let pending = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const typed = started ? 1 : 0;
        if (pending.length < typed + 4) {
          return;
        }
        const size = typed + pending.readInt32BE(typed);
        if (pending.length < size) {
          return;
        }
        const message = pending.subarray(0, size);
        pending = pending.subarray(size);
        if (started && message[0] === 0x58) {
          terminated++;
          upstream.unpipe(client);
          upstream.end();
          client.end(adminShutdown());
          return;
        }
        started = true;
        upstream.write(message);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0, terminated: () => terminated });
    }),
  );
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: Awaited<ReturnType<typeof stoppingProxy>>;
let scratch: string;
beforeAll(async () => {
  database = await createTestDatabase();
  const url = new URL(database.url);
  proxy = await stoppingProxy({ host: url.hostname, port: Number(url.port) });
  scratch = await mkdtemp(join(tmpdir(), 'sello-migrate-'));
});
afterAll(async () => {
  proxy?.server.close();
  await database?.drop();
  await rm(scratch, { recursive: true, force: true });
});

it("a server stopping while migrate's connections close is no crash and prints nothing", async () => {
  const script = join(scratch, 'migrate-once.mts');
  await writeFile(
    script,
    `import { migrate } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/store/migrate.ts')).href)};\n` +
      'const r = await migrate(process.argv[2]);\n' +
      "console.log('migrated', r.applied.length);\n",
  );
  const url = new URL(database.url);
  // Through the proxy on TCP, not the database's own Unix socket (store/embedded-postgres.ts).
  url.searchParams.delete('host');
  url.port = String(proxy.port);
  const child = spawn(process.execPath, [join(ROOT, 'bin/run-ts.js'), script, url.href], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toBe('migrated 0\n');
  // Both the migration client and the job queue's pool said goodbye, and were answered with the error.
  expect(proxy.terminated()).toBeGreaterThanOrEqual(2);
});
