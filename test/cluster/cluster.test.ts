// Many nodes, one truth: two `sello api` processes and one `sello worker`, each with its own empty
// data directory and the same master key, on a PostgreSQL server of their own (the test run's, a
// separate server, in a database of this file) and one S3-compatible bucket (s3rver on loopback). Documents created through one
// API process are signed through the other; a rate limit is held by both together; `kill -9` of
// the worker and of one API process in the middle of the load loses nothing: every document and
// signature answered 2xx is there and intact (the signed file checked by pdfsig), and every event
// reaches the webhook receiver at least once.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloClient } from '../../src/client/index.js';
import { FLUSH_MS } from '../../src/http/rate-limit.js';
import { createAccount } from '../../src/domain/accounts/create-account.js';
import { createSecretBox } from '../../src/pki/secret-box.js';
import { openDb, type DbHandle } from '../../src/store/db.js';
import { makePdf } from '../helpers/pdfs.js';
import { cleanUp, freePort, SelloProcess, selloEnv, tempDataDir } from '../helpers/sello-process.js';
import { createTestDatabase } from '../helpers/server.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { pdfsig } from '../helpers/validators.js';

/** Documents of the load: each created through one API process and signed through the other. */
const DOCUMENTS = 24;
/** Operations in flight at once. */
const IN_FLIGHT = 4;
/** The rate limit of the check across both API processes (requests a minute per account). */
const LIMIT = 200;

const masterKey = randomBytes(32);
const dataDirs: string[] = [];
let database: { url: string; drop: () => Promise<void> };
let handle: DbHandle;
let s3: TestS3Server;
let pdf: Buffer;

interface Node {
  proc: SelloProcess;
  url: string;
}

/** Starts `sello api` or `sello worker` on a data directory of its own; resolves once it is ready. */
async function startNode(kind: 'api' | 'worker', extra: Record<string, string> = {}): Promise<Node> {
  const dir = await tempDataDir(`sello-cluster-${kind}-`);
  dataDirs.push(dir);
  const port = await freePort();
  const env = selloEnv(dir, port, {
    DATABASE_URL: database.url,
    SELLO_MASTER_KEY: masterKey.toString('base64'),
    SELLO_ALLOW_PRIVATE_URLS: 'true',
    SELLO_RATE_LIMIT_PER_MINUTE: String(LIMIT),
    // The worker's log says when its runner is registered; an API process says it is listening.
    SELLO_LOG_LEVEL: kind === 'worker' ? 'info' : 'warn',
    SELLO_WORKER_HEARTBEAT_MS: '250',
    SELLO_WORKER_DEAD_AFTER_MS: '2500',
    // Every process's blobs in the one bucket: no directory is shared.
    ...s3.env,
    ...extra,
  });
  const proc = new SelloProcess([kind], env);
  await proc.waitForStdout(kind === 'worker' ? /"msg":"job runner pool-[0-9a-f]+ registered"/ : /Sello is listening on /, 180_000);
  return { proc, url: `http://127.0.0.1:${port}` };
}

/** Receives webhooks on loopback and answers 200: the ids (webhook-id) of what arrived. */
class Receiver {
  readonly ids = new Set<string>();
  deliveries = 0;
  private server!: Server;
  url = '';
  async start() {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.ids.add(String(req.headers['webhook-id']));
        this.deliveries++;
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
  }
  close() {
    this.server?.closeAllConnections();
    this.server?.close();
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = openDb(database.url, 4);
  s3 = await startS3Server();
  pdf = await makePdf();
});
afterAll(async () => {
  await cleanUp(dataDirs);
  await handle?.close();
  await database?.drop();
  await s3?.stop();
}, 60_000);

/** A status, or the failure of a request whose connection died with its process. */
async function attempt<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/**
 * The rate limit across both API processes for a new account: LIMIT requests, half through each,
 * are all accepted; then requests through both are refused once each has exchanged its counts,
 * long before either alone has seen LIMIT. Undefined when a minute boundary fell inside the check
 * (the windows are clock minutes: counts start again from zero), to run it again.
 */
async function sharedLimitCheck(apis: Node[]) {
  const creds = await createAccount({ db: handle.db, secrets: createSecretBox(masterKey) }, { name: 'Rate limited' });
  const clients = apis.map((n) => new SelloClient({ baseUrl: n.url, ...creds }));
  const minute = () => Math.floor(Date.now() / 60_000);
  const startMinute = minute();
  const accepted = [0, 0];
  const get = async (i: number) => {
    const r = await clients[i].raw('GET', '/api/document?limit=1');
    if (r.status === 200) {
      accepted[i]++;
    }
    return r;
  };
  const first: number[] = [];
  for (let n = 0; n < LIMIT / 2; n++) {
    first.push((await get(0)).status, (await get(1)).status);
  }
  // Each process hears of the other's counts at its next exchange (about once a second), and on a
  // fast machine the whole check takes less than that: wait until both have sent their half, then
  // for two more exchange intervals, so that each has read the other's half back.
  const account = await handle.db.selectFrom('accounts').select('id').where('web_id', '=', creds.webId).executeTakeFirstOrThrow();
  for (let i = 0; i < 200; i++) {
    const rows = await handle.db.selectFrom('rate_counts').select('count').where('key', '=', `account:${account.id}`).execute();
    if (rows.length === 2 && rows.every((r) => r.count >= LIMIT / 2)) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 2 * FLUSH_MS + 500));
  const refused: (string | undefined)[] = [undefined, undefined];
  for (let n = 0; n < LIMIT && refused.some((r) => r === undefined); n++) {
    for (const i of [0, 1]) {
      const r = await get(i);
      if (r.status === 429 && refused[i] === undefined) {
        refused[i] = JSON.parse(r.text).error.code;
      }
    }
  }
  if (minute() !== startMinute) {
    return undefined;
  }
  return { first, refused, accepted };
}

describe('two API processes and a worker on one database and one bucket', { timeout: 290_000 }, () => {
  it('documents created through one are signed through the other; kill -9 of the worker and of an API process loses nothing', async () => {
    const receiver = new Receiver();
    await receiver.start();
    const t0 = Date.now();
    try {
      // The first start migrates and generates the PKI; the others wait on its locks.
      const [api1, api2] = await Promise.all([startNode('api'), startNode('api')]);
      let worker = await startNode('worker', { SELLO_PUBLIC_URL: api1.url });
      const started = Date.now() - t0;

      // The rate limit, held by both processes together.
      let limit = await sharedLimitCheck([api1, api2]);
      limit ??= await sharedLimitCheck([api1, api2]);
      expect(limit).toBeDefined();
      expect(limit!.first.every((s) => s === 200)).toBe(true);
      expect(limit!.refused).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
      // Alone, each process would accept LIMIT: together they stop a little past LIMIT in all.
      expect(limit!.accepted[0]).toBeLessThan(LIMIT);
      expect(limit!.accepted[1]).toBeLessThan(LIMIT);

      // The load's account, its webhooks to the receiver.
      const creds = await createAccount({ db: handle.db, secrets: createSecretBox(masterKey) }, { name: 'Cluster load' });
      const via = (n: Node) => new SelloClient({ baseUrl: n.url, ...creds });
      for (const event of ['original_signed', 'document_completed', 'universal_signed'] as const) {
        await via(api1).createSubscription(event, receiver.url);
      }

      const apis: (Node | undefined)[] = [api1, api2];
      const alive = () => apis.filter((n): n is Node => n !== undefined);
      const created = new Map<string, { via: string }>();
      const signed = new Map<string, { via: string }>();
      let failedRequests = 0;
      let done = 0;
      let workerKilled = false;
      let apiKilled = false;
      let restartedWorker: Promise<Node> | undefined;

      // Requests sent and not yet answered, per API process: the kill aims at one in flight.
      const inFlight = new Map<string, number>();
      const tracked = async <T>(n: Node, work: () => Promise<T>): Promise<T> => {
        inFlight.set(n.url, (inFlight.get(n.url) ?? 0) + 1);
        try {
          return await work();
        } finally {
          inFlight.set(n.url, inFlight.get(n.url)! - 1);
        }
      };
      let killedInFlight = 0;
      let lockedAtKill = 0;
      /** Polls `ready` (each turn after a round trip to the database), at most `turns` times. */
      const until = async (ready: () => boolean | Promise<boolean>, turns = 400) => {
        for (let n = 0; n < turns && !(await ready()); n++) {
          await sql`select 1`.execute(handle.db);
        }
      };

      const one = async (i: number) => {
        // Created through one process, signed through the other (while both live).
        const createAt = apis[i % 2] ?? alive()[0];
        const made = await attempt(() =>
          tracked(createAt, () =>
            via(createAt).createDocument({
              b64_doc: pdf.toString('base64'),
              name: `Cluster ${i}`,
              stickers: [
                {
                  authority: 'EMAIL_LINK',
                  data: `s${i}@example.com`,
                  name: `Signer ${i}`,
                  page: 0,
                  rect: { lx: 50, ly: 50, tx: 250, ty: 120 },
                },
              ],
            }),
          ),
        );
        if (!made.ok) {
          failedRequests++;
          return; // not answered 2xx: nothing is owed for it
        }
        const ticket = made.value.document_ticket;
        created.set(ticket, { via: createAt.url });
        const token = made.value.stickers[0].signer_url.split('/').pop()!;
        for (let tries = 0; tries < 5; tries++) {
          const signAt = apis[(i + 1) % 2] ?? alive()[0];
          const res = await attempt(() =>
            tracked(signAt, () =>
              fetch(`${signAt.url}/sign/api/${token}/sign`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ signature: { type: 'typed', text: `Signer ${i}` }, consent: true }),
              }),
            ),
          );
          if (res.ok && res.value.status === 200) {
            signed.set(ticket, { via: signAt.url });
            break;
          }
          failedRequests++;
          if (res.ok && res.value.status !== 200 && res.value.status < 500) {
            break; // already signed by the request whose answer was lost: its 2xx never came
          }
        }
      };

      const queue = Array.from({ length: DOCUMENTS }, (_, i) => i);
      const runner = async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          await one(i);
          done++;
          if (!workerKilled && done >= DOCUMENTS / 3) {
            workerKilled = true;
            // Mid-load, while it holds jobs: deliveries and universal renditions in flight die with it.
            const locked = async () =>
              Number(
                (await sql<{ n: string }>`select count(*) as n from graphile_worker.jobs where locked_by is not null`.execute(handle.db))
                  .rows[0].n,
              );
            await until(async () => (await locked()) > 0);
            lockedAtKill = await locked();
            await worker.proc.killGroup();
            restartedWorker = startNode('worker', { SELLO_PUBLIC_URL: api1.url });
          }
          if (!apiKilled && done >= (2 * DOCUMENTS) / 3) {
            apiKilled = true;
            // While it has requests sent and not answered.
            await until(() => (inFlight.get(api2.url) ?? 0) > 0);
            killedInFlight = inFlight.get(api2.url) ?? 0;
            apis[1] = undefined;
            await api2.proc.killGroup();
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, runner));
      worker = await restartedWorker!;

      // Every document answered 2xx is there, its source intact, in either surviving process.
      const survivor = via(api1);
      const sourceHash = createHash('sha256').update(pdf).digest('hex');
      for (const ticket of created.keys()) {
        const source = await survivor.downloadDocument('source', ticket);
        expect(createHash('sha256').update(source.bytes).digest('hex')).toBe(sourceHash);
      }
      // Every signature answered 2xx is in its signed file, valid for pdfsig under the service's root.
      const rootPem = await (await fetch(`${api1.url}/pki/ca.pem`)).text();
      for (const ticket of signed.keys()) {
        const original = await survivor.downloadDocument('original', ticket);
        const verdict = await pdfsig(original.bytes, rootPem, { noOcsp: true });
        expect(verdict.signatures, `${ticket}\n${verdict.output}`).toHaveLength(1);
        expect(verdict.signatures[0].valid, verdict.output).toBe(true);
        expect(verdict.signatures[0].trusted, verdict.output).toBe(true);
      }
      const crossSigned = [...signed].filter(([t, s]) => created.get(t)!.via !== s.via).length;
      expect(crossSigned).toBeGreaterThan(0);

      // Every event of the load's documents reaches the receiver at least once; each signature
      // made its original_signed and document_completed, each completion its universal_signed.
      const events = async () =>
        (
          await sql<{ notification_id: string; kind: string; ticket: string }>`
            select n.notification_id, n.kind, d.ticket from notifications n join documents d on d.id = n.document_id
            join accounts a on a.id = n.account_id where a.web_id = ${creds.webId}`.execute(handle.db)
        ).rows;
      const expected = signed.size * 3;
      const deadline = Date.now() + 150_000;
      let seen = await events();
      while ((seen.length < expected || seen.some((e) => !receiver.ids.has(e.notification_id))) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        seen = await events();
      }
      for (const ticket of signed.keys()) {
        expect(
          seen
            .filter((e) => e.ticket === ticket)
            .map((e) => e.kind)
            .sort(),
        ).toEqual(['document_completed', 'original_signed', 'universal_signed']);
      }
      const missing = seen.filter((e) => !receiver.ids.has(e.notification_id));
      expect(missing, `${worker.proc.output()}`).toEqual([]);

      console.log(
        `cluster: processes ready in ${started} ms; rate limit ${LIMIT}/min: accepted ${limit!.accepted.join(' + ')} ` +
          `through the two API processes before both refused; ${created.size} documents created and ${signed.size} signed ` +
          `(${crossSigned} through the other process) of ${DOCUMENTS}, ${failedRequests} requests failed with the killed processes; ` +
          `kills: worker after ${DOCUMENTS / 3} documents holding ${lockedAtKill} jobs, one API process after ${(2 * DOCUMENTS) / 3} ` +
          `with ${killedInFlight} requests in flight; ` +
          `${seen.length} events, ${receiver.ids.size} received (${receiver.deliveries} deliveries); ${Date.now() - t0} ms in all`,
      );
    } finally {
      receiver.close();
    }
  });
});
