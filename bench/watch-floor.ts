// The reference of the watch's creation check (bench/watch-creation.ts): the least a created
// document can cost, served by a child process beside the real server. An authenticated request
// that commits one row and one blob with their fsyncs: read the body, check its HMAC-SHA256 in
// constant time, parse the JSON, decode the Base64, write the PDF under its SHA-256 (data and
// directory fsynced, as a blob must be before its row commits), and insert one row in the same
// PostgreSQL as the server (the commit waits for its WAL fsync). Nothing here comes from src/
// but the way to reach that database: a change to the service's code cannot move this side of the
// ratio, so the ratio moves only with the code watched.
//
// Run as `bin/run-ts.js bench/watch-floor.ts DATA_DIR KEY`: DATA_DIR is the server's (its embedded
// PostgreSQL is found running there), KEY the HMAC key the watch signs with. Protocol over the IPC
// channel, as bench/server.ts: sends {type:'ready', baseUrl}; answers {type:'cpu'} with this
// process's CPU time; on {type:'stop'} (or when the parent goes away) closes and exits.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, open, rename } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/store/embedded-postgres.js';

const [dataDir, key] = process.argv.slice(2);
if (!dataDir || !key || !process.send) {
  console.error('usage: forked by bench/watch-creation.ts with the data directory and the HMAC key as arguments');
  process.exit(2);
}
const send = (msg: unknown) => process.send!(msg);
const blobRoot = join(dataDir, 'watch-floor-blobs');

// The server's pool is 20 connections (src/runtime.ts): the same here, so both sides commit alike.
const pool = new pg.Pool({ connectionString: (await startEmbeddedPostgres(dataDir)).connectionString, max: 20 });
pool.on('error', () => {});
await pool.query(
  'create table if not exists watch_floor (id bigserial primary key, name text not null, blob_key text not null, created_at timestamptz not null default now())',
);
await mkdir(blobRoot, { recursive: true });

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolveBody(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `svc <id>:<Base64 HMAC-SHA256 of the body>`, as the service's clients sign. */
function authentic(header: string | undefined, body: Buffer): boolean {
  const sig = /^svc [^:]+:(.+)$/.exec(header ?? '')?.[1];
  if (!sig) {
    return false;
  }
  const given = Buffer.from(sig, 'base64');
  const expected = createHmac('sha256', key).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Written as a blob store must: temporary file, data fsync, rename, directory fsync. */
async function putBlob(bytes: Buffer): Promise<string> {
  const blobKey = createHash('sha256').update(bytes).digest('hex');
  const dir = join(blobRoot, blobKey.slice(0, 2));
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${blobKey}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(tmp, 'wx', 0o600);
  try {
    await file.writeFile(bytes);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, join(dir, blobKey));
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
  return blobKey;
}

const server = createServer((req, res) => {
  const answer = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  void (async () => {
    const body = await readBody(req);
    if (!authentic(req.headers.authorization, body)) {
      answer(401, { error: 'signature' });
      return;
    }
    const input = JSON.parse(body.toString('utf8')) as { name: string; b64_doc: string };
    const blobKey = await putBlob(Buffer.from(input.b64_doc, 'base64'));
    const { rows } = await pool.query<{ id: string }>('insert into watch_floor (name, blob_key) values ($1, $2) returning id', [
      input.name,
      blobKey,
    ]);
    answer(200, { id: rows[0].id });
  })().catch((err: unknown) => answer(500, { error: String(err) }));
});

let stopping: Promise<void> | undefined;
function stop(): Promise<void> {
  stopping ??= (async () => {
    const closed = new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections();
    await closed;
    await pool.end().catch(() => {});
  })();
  return stopping;
}

process.on('message', (msg: { type: string }) => {
  if (msg.type === 'cpu') {
    send({ type: 'cpu', usage: process.cpuUsage() });
  } else if (msg.type === 'stop') {
    void stop().then(() => process.exit(0));
  }
});
process.on('disconnect', () => void stop().then(() => process.exit(0)));

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  send({ type: 'ready', baseUrl: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` });
});
