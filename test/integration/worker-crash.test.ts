// A job runner killed in the middle of a delivery, as in production: `sello serve` (API, workers
// and its embedded PostgreSQL) is killed with SIGKILL, process group and all, while a webhook
// receiver holds a delivery open, then started again on the same data directory. The events it had
// in flight must arrive once the restarted runner has unlocked them, not after graphile-worker's
// four-hour lock timeout. And the other side: a runner that is merely slow keeps its job; a second process
// beside it never takes the job over and delivers it twice.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloClient } from '../../src/client/index.js';
import { makePdf } from '../helpers/pdfs.js';
import { cleanUp, connectEmbedded, freePort, SelloProcess, selloEnv, sleep, tempDataDir } from '../helpers/sello-process.js';

/**
 * How long the test waits for the events of the crash after the restart before it fails. What is
 * under test is who unlocks the dead runner's jobs: the restarted runner at its start, or, without
 * it, graphile-worker after its four-hour lock timeout. Any wait far below four hours tells them
 * apart; this one leaves a busy machine several times what a restart takes there (loading the
 * modules and recovering the embedded PostgreSQL took 3 to 12 s, the deliveries up to 10 s more).
 * The times are printed, and asserted nowhere.
 */
const EVENTS_AFTER_RESTART_MS = 120_000;

interface Received {
  id: string;
  type: string;
  at: number;
  headers: IncomingHttpHeaders;
}

/**
 * A webhook receiver on loopback. While `holding`, it reads each delivery and never answers, so
 * the job that sent it stays locked and in flight; otherwise it answers 200 at once.
 */
class Receiver {
  readonly received: Received[] = [];
  holding = true;
  private readonly held: ServerResponse[] = [];
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { notification_type: string };
        this.received.push({ id: String(req.headers['webhook-id']), type: body.notification_type, at: Date.now(), headers: req.headers });
        if (this.holding) {
          this.held.push(res);
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        }
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Answers the held deliveries (if their connection is still open) and every later one with 200. */
  release(): void {
    this.holding = false;
    for (const res of this.held.splice(0)) {
      if (!res.destroyed) {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }
    }
  }

  async waitFor(what: string, done: () => boolean, deadlineMs: number): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (!done()) {
      if (Date.now() > deadline) {
        throw new Error(
          `receiver: ${what} not seen within ${deadlineMs} ms; received ${JSON.stringify(this.received.map((r) => [r.id, r.type]))}`,
        );
      }
      await sleep(25);
    }
  }

  close(): void {
    this.server?.closeAllConnections();
    this.server?.close();
  }
}

const dataDirs: string[] = [];
let pdf: Buffer;

beforeAll(async () => {
  pdf = await makePdf();
});
afterAll(async () => {
  await cleanUp(dataDirs);
}, 60_000);

/** Starts `sello serve` (or `sello worker`) and waits until it is ready. */
async function start(args: 'serve' | 'worker', dataDir: string, port: number, env: Record<string, string> = {}): Promise<SelloProcess> {
  const p = new SelloProcess([args], selloEnv(dataDir, port, { SELLO_ALLOW_PRIVATE_URLS: 'true', SELLO_LOG_LEVEL: 'info', ...env }));
  await p.waitForStdout(/"msg":"job runner pool-[0-9a-f]+ registered"/);
  if (args === 'serve') {
    await p.waitForStdout(/Sello is listening on /);
  }
  return p;
}

/** The first account's credentials, printed by the very first start. */
async function firstAccount(p: SelloProcess): Promise<{ webId: string; apiKey: string }> {
  const m = await p.waitForStdout(/^ {2}webId: {2}(\S+)\n {2}apiKey: (\S+)\n/m);
  return { webId: m[1], apiKey: m[2] };
}

/** A one-signer document signed through the signing API: original_signed and document_completed. */
async function signedDocument(client: SelloClient, baseUrl: string): Promise<string> {
  const doc = await client.createDocument({
    b64_doc: pdf.toString('base64'),
    name: 'Contract',
    stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
  });
  const token = doc.stickers[0].signer_url.split('/').pop()!;
  const res = await fetch(`${baseUrl}/sign/api/${token}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signature: { type: 'typed', text: 'Ana' }, consent: true }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return doc.document_ticket;
}

async function lockedDeliveries(db: pg.Client): Promise<{ id: string; locked_by: string }[]> {
  const r = await db.query<{ id: string; locked_by: string }>(
    `select id::text, locked_by from graphile_worker.jobs where task_identifier = 'deliver_webhook' and locked_by is not null order by id`,
  );
  return r.rows;
}

describe('kill -9 of sello serve in the middle of a delivery', { timeout: 240_000 }, () => {
  it("every event of the crash arrives again once the restarted runner has unlocked the dead one's jobs, the held one too", async () => {
    const receiver = new Receiver();
    await receiver.start();
    const dataDir = await tempDataDir('sello-crash-');
    dataDirs.push(dataDir);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      const first = await start('serve', dataDir, port);
      const creds = await firstAccount(first);
      const client = new SelloClient({ baseUrl, ...creds });
      await client.createSubscription('original_signed', receiver.url);
      await client.createSubscription('document_completed', receiver.url);

      const ticket = await signedDocument(client, baseUrl);
      // The first delivery reached the receiver, which holds it: its job is locked and in flight.
      await receiver.waitFor('a first delivery', () => receiver.received.length >= 1, 30_000);
      const db = await connectEmbedded(dataDir);
      const locked = await lockedDeliveries(db);
      await db.end();
      const deadPool = /"msg":"job runner (pool-[0-9a-f]+) registered"/.exec(first.stdout)![1];
      expect(locked.length).toBeGreaterThanOrEqual(1);
      expect(locked.every((j) => j.locked_by === deadPool)).toBe(true);
      const inFlight = [...new Set(receiver.received.map((r) => r.id))];

      expect(await first.killGroup()).toEqual({ code: null, signal: 'SIGKILL' });
      receiver.release();
      const beforeRestart = receiver.received.length;

      const restartedAt = Date.now();
      const second = new SelloProcess(['serve'], first.env);
      const sinceRestart = () => receiver.received.slice(beforeRestart);
      // Both events, each delivered (again, for those in flight) after the restart.
      try {
        await receiver.waitFor(
          'both events after the restart',
          () => ['original_signed', 'document_completed'].every((t) => sinceRestart().some((r) => r.type === t)),
          EVENTS_AFTER_RESTART_MS, // a failure here shows what arrived
        );
      } catch (err) {
        // What the restarted service said, and where its delivery jobs stand, explain a failure.
        const after = await connectEmbedded(dataDir).catch(() => undefined);
        const jobs = after
          ? (
              await after.query(
                `select id::text, locked_by, attempts, run_at, last_error from graphile_worker.jobs where task_identifier = 'deliver_webhook'`,
              )
            ).rows
          : 'database not reachable';
        await after?.end();
        throw new Error(`${(err as Error).message}\njobs: ${JSON.stringify(jobs)}\n${second.output()}`);
      }
      await second.waitForStdout(/Sello is listening on /);
      const registered = second.logLines().find((l) => /^job runner pool-[0-9a-f]+ registered$/.test(String(l.msg)));
      const reaped = second.logLines().find((l) => l.deadWorker === deadPool);
      expect(reaped, second.output()).toBeDefined();
      const lastDelivery = Math.max(...sinceRestart().map((r) => r.at));
      const runnerUp = registered!.time as number;
      console.log(
        `worker crash: from the restart, runner registered after ${runnerUp - restartedAt} ms, dead runner's jobs unlocked ` +
          `after ${(reaped!.time as number) - restartedAt} ms, the events of the crash arrived after ${lastDelivery - restartedAt} ms ` +
          `(${lastDelivery - runnerUp} ms after the runner was up)`,
      );
      // Each event of the crash arrived after the restarted runner unlocked the dead one's jobs:
      // they were sent again because of the unlock, not by a lock that ran out.
      const reapedAt = reaped!.time as number;
      expect(sinceRestart().filter((r) => r.at < reapedAt)).toEqual([]);
      for (const id of inFlight) {
        expect(sinceRestart().map((r) => r.id)).toContain(id);
      }

      // The restarted runner says which runner was dead and which jobs it unlocked.
      expect(reaped).toMatchObject({ level: 30, name: 'jobs', reason: 'process_gone' });
      const unlocked = reaped!.unlockedJobs as { id: string; task: string }[];
      expect(unlocked.map((j) => j.id)).toEqual(expect.arrayContaining(locked.map((j) => j.id)));
      // The completion also queued the universal rendition; a build cut short by the kill is unlocked too.
      expect(unlocked.every((j) => j.task === 'deliver_webhook' || j.task === 'universal_build')).toBe(true);
      // And the universal rendition is there after the restart.
      let universal: { status: number; text: string } | undefined;
      for (let i = 0; i < 150 && universal?.status !== 200; i++) {
        universal = await client.raw('GET', `/api/document/universal/${ticket}`);
        if (universal.status !== 200) {
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      expect(universal?.status, universal?.text).toBe(200);

      // A clean stop deregisters: nothing of it is left for the next start to unlock.
      expect(await second.terminate()).toEqual({ code: 0, signal: null });
      expect(second.stdout).toMatch(/"msg":"job runner pool-[0-9a-f]+ deregistered"/);
    } finally {
      receiver.close();
    }
  });
});

describe('a runner that is merely slow', { timeout: 180_000 }, () => {
  it('keeps its job: another process beside it does not take it over while it beats', async () => {
    const receiver = new Receiver();
    await receiver.start();
    const dataDir = await tempDataDir('sello-slow-');
    dataDirs.push(dataDir);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    // Short settings, so that the hold below lasts many heartbeats and two dead-after times; ten
    // beats to a dead-after time, so that a busy machine delaying a few beats is not a death.
    const HEARTBEAT_MS = 250;
    const DEAD_AFTER_MS = 2500;
    const liveness = { SELLO_WORKER_HEARTBEAT_MS: String(HEARTBEAT_MS), SELLO_WORKER_DEAD_AFTER_MS: String(DEAD_AFTER_MS) };
    let db: pg.Client | undefined;
    try {
      const serve = await start('serve', dataDir, port, liveness);
      const creds = await firstAccount(serve);
      // A second runner on the same database (it joins the embedded PostgreSQL of the first).
      // Its health listener (for an orchestrator's probe) answers while it beats.
      const healthPort = await freePort();
      const worker = await start('worker', dataDir, await freePort(), { ...liveness, SELLO_WORKER_HEALTH_PORT: String(healthPort) });
      await worker.waitForStdout(/Job runner health: /);
      const health = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
      expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
      db = await connectEmbedded(dataDir);
      const runners = (await db.query<{ pool_id: string }>('select pool_id from job_workers order by id')).rows.map((r) => r.pool_id);
      expect(runners).toHaveLength(2);

      const client = new SelloClient({ baseUrl, ...creds });
      await client.createSubscription('document_completed', receiver.url);
      await signedDocument(client, baseUrl);
      await receiver.waitFor('the delivery', () => receiver.received.length >= 1, 30_000);
      const [job] = await lockedDeliveries(db);
      expect(runners).toContain(job.locked_by);

      // Held until, by the database's clock, the holder would have been dead twice over had it
      // stopped beating, and each runner has then beaten twice more (each beat is followed by a
      // look for dead runners, so the other one has looked since). The runner waiting on the
      // receiver keeps beating, so the job stays its own and is sent once.
      const { rows } = await db.query<{ t: Date }>(`select now() + make_interval(secs => $1::float8 / 1000) as t`, [2 * DEAD_AFTER_MS]);
      const deadBy = rows[0].t.getTime();
      const beatsSince = new Map<string, Set<number>>(runners.map((r) => [r, new Set<number>()]));
      while ([...beatsSince.values()].some((beats) => beats.size < 2)) {
        expect(await lockedDeliveries(db)).toEqual([job]);
        const seen = await db.query<{ pool_id: string; last_seen: Date }>('select pool_id, last_seen from job_workers');
        expect(seen.rows.map((r) => r.pool_id).sort()).toEqual([...runners].sort());
        for (const r of seen.rows) {
          if (r.last_seen.getTime() >= deadBy) {
            beatsSince.get(r.pool_id)!.add(r.last_seen.getTime());
          }
        }
        await sleep(100);
      }
      expect(await lockedDeliveries(db)).toEqual([job]);
      expect(receiver.received).toHaveLength(1);
      receiver.release();
      // Answered now (the held connection is still open): the delivery settles, once.
      for (let i = 0; i < 100 && (await lockedDeliveries(db)).length > 0; i++) {
        await sleep(50);
      }
      const state = await db.query<{ state: string; attempts: number }>(
        `select d.state, d.attempts from notification_deliveries d join notifications n on n.id = d.notification_id
         where n.kind = 'document_completed'`,
      );
      expect(state.rows).toEqual([{ state: 'delivered', attempts: 1 }]);
      expect(receiver.received).toHaveLength(1);
      for (const p of [serve, worker]) {
        expect(p.logLines().filter((l) => 'deadWorker' in l)).toEqual([]);
      }
      await db.end();
      db = undefined;
      expect(await worker.terminate()).toEqual({ code: 0, signal: null });
      expect(await serve.terminate()).toEqual({ code: 0, signal: null });
    } finally {
      await db?.end().catch(() => {});
      receiver.close();
    }
  });
});
