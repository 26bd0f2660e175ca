// Scenario N: one and two `sello api` processes on one PostgreSQL and one blob store, as a cluster
// runs them. A PostgreSQL server of its own (the embedded package's binaries, started by this
// process as a separate server), a blob directory every process's data directory points to, one
// `sello worker` (webhooks, universal renditions), and `sello api` processes started with
// `bin/sello.js` as an operator starts them (NODE_ENV=production, log level warn, no rate limit),
// each with its own empty data directory and the same master key.
//
// For 1, then 2 API processes (the second started beside the first; requests alternate between
// them, as a round-robin balancer would): creation throughput (POST /developers/json, the 1-page
// PDF made unique, one signer, BENCH_N_CREATE_CONCURRENCY in flight for BENCH_N_SECONDS after a
// warm-up), then signing throughput (POST /sign/api/{token}/sign of documents created beforehand,
// BENCH_N_SIGN_CONCURRENCY in flight for BENCH_N_SECONDS). The figures of each, and the load
// average beside them: on a machine whose cores the processes share, a second process adds no core.
// BENCH_N_BLOBS=s3 puts the blobs in an S3-compatible bucket (s3rver on loopback, the tests' server)
// instead of the shared directory: a round trip to the store for each blob.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SelloClient } from '../src/client/index.js';
import { createAccount } from '../src/domain/accounts/create-account.js';
import { createSecretBox } from '../src/pki/secret-box.js';
import { openDb } from '../src/store/db.js';
import { startEmbeddedPostgres } from '../src/store/embedded-postgres.js';
import { migrate } from '../src/store/migrate.js';
import pg from 'pg';
import { percentile } from './load.js';
import { onePagePdf, uniqueCopy, type PdfTemplate } from './pdfs.js';
import { startS3Server, type TestS3Server } from '../test/helpers/s3-server.js';

const SECONDS = Number(process.env.BENCH_N_SECONDS ?? 10);
const WARMUP_MS = 3000;
const CREATE_CONCURRENCY = Number(process.env.BENCH_N_CREATE_CONCURRENCY ?? 16);
const SIGN_CONCURRENCY = Number(process.env.BENCH_N_SIGN_CONCURRENCY ?? 8);
const ROOT = resolve('.');
const BLOBS = process.env.BENCH_N_BLOBS === 's3' ? 's3' : 'fs';

interface Proc {
  child: ChildProcess;
  url: string;
  output: string;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** Starts `sello <kind>`; resolves once it says it is ready. */
async function startSello(kind: 'api' | 'worker', env: Record<string, string>, dirs: string[], blobs: string): Promise<Proc> {
  const dataDir = await mkdtemp(join(tmpdir(), `sello-bench-n-${kind}-`));
  dirs.push(dataDir);
  if (!env.SELLO_BLOB_STORE) {
    await symlink(blobs, join(dataDir, 'blobs'));
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [join(ROOT, 'bin/sello.js'), kind], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      SELLO_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SELLO_PUBLIC_URL: url,
      SELLO_LOG_LEVEL: kind === 'worker' ? 'info' : 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc: Proc = { child, url, output: '' };
  const ready = kind === 'worker' ? /job runner pool-[0-9a-f]+ registered/ : /Sello is listening on /;
  await new Promise<void>((ok, fail) => {
    const hear = (d: Buffer) => {
      proc.output += d.toString('utf8');
      if (ready.test(proc.output)) {
        ok();
      }
    };
    child.stdout!.on('data', hear);
    child.stderr!.on('data', hear);
    child.once('exit', (code) => fail(new Error(`sello ${kind} exited during start (${code})\n${proc.output}`)));
  });
  return proc;
}

async function stop(p: Proc | undefined): Promise<void> {
  if (p && p.child.exitCode === null) {
    const exited = new Promise((r) => p.child.once('exit', r));
    p.child.kill('SIGTERM');
    await exited;
  }
}

interface Figures {
  ok: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** A closed loop: `concurrency` requests in flight until `ms` has passed; each request is work(i). */
async function closedLoop(concurrency: number, ms: number, work: (i: number) => Promise<boolean>): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const start = performance.now();
  const end = start + ms;
  let last = start;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const ok = await work(next++).catch(() => false);
        last = performance.now();
        if (ok) {
          latencies.push(last - t);
        } else {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    ok: latencies.length,
    errors,
    perSecond: (latencies.length / (last - start)) * 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** What the database did, cluster-wide: commits (every database), WAL records, bytes and fsyncs. */
interface DbWork {
  commits: number;
  walRecords: number;
  walBytes: number;
  walSyncs: number;
}

async function dbWork(client: pg.Client): Promise<DbWork> {
  const c = await client.query<{ commits: string }>('select sum(xact_commit)::text as commits from pg_stat_database');
  const w = await client.query<{ wal_records: string; wal_bytes: string; wal_sync: string }>(
    'select wal_records::text, wal_bytes::text, wal_sync::text from pg_stat_wal',
  );
  return {
    commits: Number(c.rows[0].commits),
    walRecords: Number(w.rows[0].wal_records),
    walBytes: Number(w.rows[0].wal_bytes),
    walSyncs: Number(w.rows[0].wal_sync),
  };
}

/** The database's work per operation between two readings (statistics are flushed at most once a second: read after a pause). */
function perOperation(a: DbWork, b: DbWork, n: number): string {
  const per = (x: number) => (n > 0 ? x / n : 0);
  return (
    `${per(b.commits - a.commits).toFixed(1)} commits, ${per(b.walRecords - a.walRecords).toFixed(0)} WAL records, ` +
    `${(per(b.walBytes - a.walBytes) / 1024).toFixed(1)} KiB of WAL, ${per(b.walSyncs - a.walSyncs).toFixed(2)} WAL fsyncs`
  );
}

const STICKER = {
  authority: 'EMAIL_LINK' as const,
  data: 'ana@example.com',
  name: 'Ana',
  page: 0,
  rect: { lx: 50, ly: 100, tx: 250, ty: 160 },
};

async function measure(clients: SelloClient[], apis: Proc[], pdf: PdfTemplate, stats: () => Promise<DbWork>) {
  const create = (i: number) =>
    clients[i % clients.length].createDocument({ b64_doc: uniqueCopy(pdf).toString('base64'), stickers: [STICKER] }).then(() => true);
  await closedLoop(CREATE_CONCURRENCY, WARMUP_MS, create);
  const load1 = loadavg()[0];
  const before = await stats();
  const creation = await closedLoop(CREATE_CONCURRENCY, SECONDS * 1000, create);
  const afterCreation = await stats();
  // Documents to sign, made beforehand (not timed): more than the run can sign.
  const tokens: string[] = [];
  const wanted = 400;
  let made = 0;
  await Promise.all(
    Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (made < wanted) {
        const i = made++;
        const d = await clients[i % clients.length].createDocument({ b64_doc: uniqueCopy(pdf).toString('base64'), stickers: [STICKER] });
        tokens.push(d.stickers[0].signer_url.split('/').pop()!);
      }
    }),
  );
  const body = JSON.stringify({ signature: { type: 'typed', text: 'Ana' }, consent: true });
  const sign = async (i: number) => {
    const token = tokens[i];
    if (!token) {
      return false;
    }
    const res = await fetch(`${apis[i % apis.length].url}/sign/api/${token}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await res.arrayBuffer();
    return res.status === 200;
  };
  const load2 = loadavg()[0];
  const beforeSigning = await stats();
  const signing = await closedLoop(SIGN_CONCURRENCY, SECONDS * 1000, sign);
  const afterSigning = await stats();
  return {
    creation,
    signing,
    load: [load1, load2],
    creationDb: perOperation(before, afterCreation, creation.ok),
    signingDb: perOperation(beforeSigning, afterSigning, signing.ok),
  };
}

const f1 = (n: number) => n.toFixed(1);
const f0 = (n: number) => n.toFixed(0);

export async function scenarioNodes(): Promise<void> {
  console.log(
    `\nN  one and two sello api processes (plus one sello worker) on one PostgreSQL and one blob store; ` +
      `create c=${CREATE_CONCURRENCY}, sign c=${SIGN_CONCURRENCY}, ${SECONDS} s each; blobs: ${BLOBS === 's3' ? 'S3 (s3rver on loopback)' : 'one directory'}`,
  );
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const dirs: string[] = [];
  const pgDir = await mkdtemp(join(tmpdir(), 'sello-bench-n-pg-'));
  const blobs = await mkdtemp(join(tmpdir(), 'sello-bench-n-blobs-'));
  dirs.push(pgDir, blobs);
  const pg0 = await startEmbeddedPostgres(pgDir);
  const procs: Proc[] = [];
  let s3: TestS3Server | undefined;
  try {
    s3 = BLOBS === 's3' ? await startS3Server() : undefined;
    await migrate(pg0.connectionString);
    const masterKey = randomBytes(32);
    const env = {
      DATABASE_URL: pg0.connectionString,
      SELLO_MASTER_KEY: masterKey.toString('base64'),
      SELLO_RATE_LIMIT_PER_MINUTE: '0',
      ...s3?.env,
    };
    const api1 = await startSello('api', env, dirs, blobs);
    procs.push(api1);
    procs.push(await startSello('worker', { ...env, SELLO_PUBLIC_URL: api1.url }, dirs, blobs));
    const handle = openDb(pg0.connectionString, 2);
    const creds = await createAccount({ db: handle.db, secrets: createSecretBox(masterKey) }, { name: 'Bench N' });
    await handle.close();
    const pdf = await onePagePdf();
    const rows: string[] = [];
    const work: string[] = [];
    const statsClient = new pg.Client({ connectionString: pg0.connectionString });
    await statsClient.connect();
    // The statistics collector publishes at most once a second: a reading waits for it, so that
    // each reading includes everything before it.
    const stats = async () => {
      await statsClient.query('select pg_sleep(1.1)');
      await statsClient.query('select pg_stat_force_next_flush()');
      return dbWork(statsClient);
    };
    for (const n of [1, 2]) {
      if (n === 2) {
        procs.push(await startSello('api', env, dirs, blobs));
      }
      const apis = procs.filter((p) => p !== procs[1]);
      const clients = apis.map((p) => new SelloClient({ baseUrl: p.url, ...creds }));
      const r = await measure(clients, apis, pdf, stats);
      work.push(`| ${n} | ${r.creationDb} | ${r.signingDb} |`);
      rows.push(
        `| ${n} | ${f0(r.creation.perSecond)} documents/s (p50 ${f1(r.creation.p50)} ms, p99 ${f1(r.creation.p99)} ms, ${r.creation.errors} errors) | ` +
          `${f1(r.signing.perSecond)} signatures/s (p50 ${f0(r.signing.p50)} ms, p99 ${f0(r.signing.p99)} ms, ${r.signing.errors} errors) | ` +
          `${f1(r.load[0])}, ${f1(r.load[1])} |`,
      );
    }
    console.log('| API processes | create | sign | load average (1 min) before create, sign |');
    console.log('|---|---|---|---|');
    for (const row of rows) {
      console.log(row);
    }
    console.log('\nPostgreSQL per operation (the whole server: API processes, worker and its jobs)');
    console.log('| API processes | per document created | per signature |');
    console.log('|---|---|---|');
    for (const row of work) {
      console.log(row);
    }
    await statsClient.end();
  } finally {
    for (const p of procs.reverse()) {
      await stop(p);
    }
    await pg0.stop();
    await s3?.stop();
    for (const d of dirs) {
      await rm(d, { recursive: true, force: true });
    }
  }
}
