// Events end to end: emitEvent in a transaction → graphile-worker job → deliver_webhook task → a real
// HTTP receiver on loopback (let through the SSRF guard for this test only), with Standard Webhooks
// signatures checked independently; retries, 410, deletion, POST /developers/webhook, subscriptions.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Credentials } from '../../src/domain/accounts/create-account.js';
import { setAccountWebhook } from '../../src/domain/accounts/set-webhook.js';
import type { Clock } from '../../src/domain/deps.js';
import { emitEvent, type EventKind, type EventMeta } from '../../src/domain/events/emit-event.js';
import { MAX_ATTEMPTS, retryDelayMs } from '../../src/domain/events/retry-schedule.js';
import { guardedFetch, isPublicAddress, type GuardedFetchOptions } from '../../src/net/url-guard.js';
import type { SelloClient } from '../../src/client/index.js';
import { apiError } from '../helpers/api-error.js';
import { makePdf } from '../helpers/pdfs.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

// Real time unless a test pins it.
let pinned: number | undefined;
const clock: Clock = { now: () => new Date(pinned ?? Date.now()) };

let s: TestServer;
let pdf: Buffer;
let receiver: Server;
let port = 0;
let received: Received[] = [];
/** Status the receiver answers, by webhook-id, else by path; 200 otherwise. */
const statusById = new Map<string, number>();
const statusByPath = new Map<string, number>();
let accountSecret = '';
/** What the delivery task asked of the URL guard, last time. */
let lastFetch: GuardedFetchOptions | undefined;
let jobs: JobRunner;

beforeAll(async () => {
  pdf = await makePdf();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/slow') {
        return; // never answers; the client's timeout ends it
      }
      const id = String(req.headers['webhook-id']);
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = statusById.get(id) ?? statusByPath.get(req.url ?? '') ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as { port: number }).port;
  s = await startTestServer({
    clock,
    // The real guard; only 127.0.0.1 (the receiver) is let through besides public addresses.
    // /slow gets a short timeout so the timeout path runs in a fraction of a second.
    fetchUrl: (url, opts) => {
      lastFetch = opts;
      return guardedFetch(url, {
        ...opts,
        ...(url.endsWith('/slow') ? { totalTimeoutMs: 200 } : {}),
        isAllowedAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
      });
    },
  });
  accountSecret = (await setAccountWebhook(s.deps, { webId: s.creds.webId, url: `http://127.0.0.1:${port}/account` })).secret;
  jobs = jobRunner(s.connectionString, s.deps);
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  receiver?.close();
});
beforeEach(() => {
  pinned = undefined;
  received = [];
  statusById.clear();
  statusByPath.clear();
});

/** Runs every job that is due now, with the service's own task list, then returns. */
function runJobs() {
  return jobs.runDue();
}

async function accountIdOf(creds: Credentials): Promise<string> {
  const r = await s.deps.db.selectFrom('accounts').select('id').where('web_id', '=', creds.webId).executeTakeFirstOrThrow();
  return r.id;
}

async function newDocument(client: SelloClient = s.client, extra: Record<string, unknown> = {}) {
  const r = await client.createDocument({
    b64_doc: pdf.toString('base64'),
    name: 'Contract',
    stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
    ...extra,
  });
  const row = await s.deps.db
    .selectFrom('documents')
    .select(['id', 'set_id'])
    .where('ticket', '=', r.document_ticket)
    .executeTakeFirstOrThrow();
  return { ticket: r.document_ticket, id: row.id, signerId: r.stickers[0].signer_id };
}

async function emit<K extends EventKind>(creds: Credentials, documentId: string, kind: K, meta: EventMeta[K], dedupeKey?: string) {
  const accountId = await accountIdOf(creds);
  return s.deps.db.transaction().execute((trx) => emitEvent(trx, s.deps, { accountId, documentId, kind, meta, dedupeKey }));
}

async function jobsOf(notificationId: string) {
  // The public view has no payload; the table behind it has.
  const r = await sql<{ id: string; run_at: Date; key: string | null }>`
    select j.id, j.run_at, j.key from graphile_worker.jobs j
    join graphile_worker._private_jobs p on p.id = j.id
    where j.task_identifier = 'deliver_webhook' and p.payload->>'notificationId' = ${notificationId}
    order by j.id`.execute(s.deps.db);
  return r.rows;
}

async function notificationRow(notificationId: string) {
  return s.deps.db.selectFrom('notifications').selectAll().where('notification_id', '=', notificationId).executeTakeFirstOrThrow();
}

async function deliveriesOf(notificationId: string) {
  return s.deps.db
    .selectFrom('notification_deliveries as d')
    .innerJoin('notifications as n', 'n.id', 'd.notification_id')
    .select(['d.target', 'd.state', 'd.attempts', 'd.last_status', 'd.last_error', 'd.next_attempt_at', 'd.delivered_at'])
    .where('n.notification_id', '=', notificationId)
    .orderBy('d.id')
    .execute();
}

function receivedFor(notificationId: string) {
  return received.filter((r) => r.headers['webhook-id'] === notificationId);
}

/** Standard Webhooks verification, written from the spec, independent of the server's code. */
function expectSigned(r: Received, secret: string) {
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  expect(ts).toMatch(/^\d+$/);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  expect(key.length).toBe(32);
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest('base64');
  const given = String(r.headers['webhook-signature']).split(' ');
  expect(given).toContain(`v1,${expected}`);
  expect(r.headers['content-type']).toBe('application/json');
}

async function addJobAgain(notificationId: string, target: string) {
  await sql`select graphile_worker.add_job('deliver_webhook', ${JSON.stringify({ notificationId, target })}::json)`.execute(s.deps.db);
}

describe('delivery to the account webhook', () => {
  it('POSTs the notification once, with the exact body and valid Standard Webhooks headers', async () => {
    const doc = await newDocument();
    pinned = Math.floor(Date.now() / 1000) * 1000 + 123;
    const meta = {
      signer: { signer_id: doc.signerId, name: 'Ana', email: 'ana@example.com', authority: 'EMAIL_LINK', data: 'ana@example.com' },
      authority: 'EMAIL_LINK',
      signed_at: new Date().toISOString(),
    };
    const id = await emit(s.creds, doc.id, 'original_signed', meta);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await jobsOf(id)).toHaveLength(1);
    expect((await notificationRow(id)).state).toBe('pending');

    await runJobs();
    const got = receivedFor(id);
    expect(got).toHaveLength(1);
    expect(got[0].path).toBe('/account');
    const body = JSON.parse(got[0].body);
    expect(Object.keys(body)).toEqual([
      'notification_id',
      'notification_type',
      'document_ticket',
      'document_title',
      'document_set',
      'created_at',
      'meta',
    ]);
    expect(body).toEqual({
      notification_id: id,
      notification_type: 'original_signed',
      document_ticket: doc.ticket,
      document_title: 'Contract.pdf',
      document_set: null,
      created_at: new Date(pinned).toISOString(),
      meta,
    });
    expect(got[0].headers['webhook-id']).toBe(id);
    expect(got[0].headers['webhook-timestamp']).toBe(String(Math.floor(pinned / 1000)));
    expectSigned(got[0], accountSecret);

    const n = await notificationRow(id);
    expect(n).toMatchObject({ state: 'delivered', attempts: 1, last_status: 200, last_error: null });
    expect(n.delivered_at).toBeInstanceOf(Date);
    expect(await jobsOf(id)).toHaveLength(0);
  });

  it('at least once, not twice: the same job run again after success sends nothing', async () => {
    const doc = await newDocument();
    const id = await emit(s.creds, doc.id, 'document_completed', {});
    await runJobs();
    expect(receivedFor(id)).toHaveLength(1);
    await addJobAgain(id, 'account');
    await addJobAgain(id, 'account');
    await runJobs();
    expect(receivedFor(id)).toHaveLength(1);
    expect(await notificationRow(id)).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('names the set of a document in a set', async () => {
    const set = await s.client.createDocumentSet({ name: 'Onboarding' });
    const doc = await newDocument(s.client, { document_set: set.uuid });
    const meta = { expired_at: new Date().toISOString(), pending_signers: [] };
    const id = await emit(s.creds, doc.id, 'workflow_expired', meta);
    await runJobs();
    const [got] = receivedFor(id);
    expect(JSON.parse(got.body)).toMatchObject({ document_ticket: doc.ticket, document_set: set.uuid, meta });
  });

  it('a dedupe key emits an event once, however often the producer runs', async () => {
    const doc = await newDocument();
    const a = await emit(s.creds, doc.id, 'document_completed', {}, `completed:${doc.ticket}`);
    const b = await emit(s.creds, doc.id, 'document_completed', {}, `completed:${doc.ticket}`);
    expect(b).toBe(a);
    await runJobs();
    expect(receivedFor(a)).toHaveLength(1);
  });

  it('an emitting transaction that rolls back leaves neither notification nor job', async () => {
    const doc = await newDocument();
    const accountId = await accountIdOf(s.creds);
    let id = '';
    await expect(
      s.deps.db.transaction().execute(async (trx) => {
        id = await emitEvent(trx, s.deps, { accountId, documentId: doc.id, kind: 'document_completed', meta: {} });
        throw new Error('producer failed after emitting');
      }),
    ).rejects.toThrow('producer failed');
    expect(await s.deps.db.selectFrom('notifications').select('id').where('notification_id', '=', id).execute()).toHaveLength(0);
    expect(await jobsOf(id)).toHaveLength(0);
  });
});

describe('retries', () => {
  it('a 500 schedules the next attempt 5 s later (±10%) as a new job; when due it is tried again', async () => {
    const doc = await newDocument();
    const id = await emit(s.creds, doc.id, 'document_completed', {});
    statusById.set(id, 500);
    pinned = Date.now();
    await runJobs();
    expect(receivedFor(id)).toHaveLength(1);

    const jobs = await jobsOf(id);
    expect(jobs).toHaveLength(1);
    const wait = jobs[0].run_at.getTime() - pinned;
    expect(wait).toBeGreaterThanOrEqual(4500);
    expect(wait).toBeLessThanOrEqual(5500);
    expect(jobs[0].key).toBe(`deliver_webhook:${id}:account`);
    expect(await notificationRow(id)).toMatchObject({ state: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500' });
    const [d] = await deliveriesOf(id);
    expect(d.next_attempt_at?.getTime()).toBe(jobs[0].run_at.getTime());

    // Not due yet: running the worker now sends nothing.
    pinned = undefined;
    await runJobs();
    expect(receivedFor(id)).toHaveLength(1);

    // Make it due (no waiting five seconds) and let the receiver recover.
    statusById.set(id, 204);
    await sql`update graphile_worker._private_jobs set run_at = now() where id = ${jobs[0].id}`.execute(s.deps.db);
    await runJobs();
    const got = receivedFor(id);
    expect(got).toHaveLength(2);
    expect(got[1].body).toBe(got[0].body);
    expectSigned(got[1], accountSecret);
    expect(await notificationRow(id)).toMatchObject({ state: 'delivered', attempts: 2, last_status: 204, last_error: null });
    expect(await jobsOf(id)).toHaveLength(0);
  });

  it('a network failure is retried like a bad status', async () => {
    const doc = await newDocument();
    const sub = await s.client.createSubscription('email_error', 'http://127.0.0.1:1/closed-port');
    const id = await emit(s.creds, doc.id, 'email_error', {
      channel: 'email',
      recipient: 'ana@example.com',
      code: '550',
      reply: '550 5.1.1 no such user',
    });
    await runJobs();
    const [account, toSub] = await deliveriesOf(id);
    expect(account).toMatchObject({ target: 'account', state: 'delivered' });
    expect(toSub).toMatchObject({ target: `subscription:${sub.id}`, state: 'pending', attempts: 1, last_status: null });
    expect(toSub.last_error).toMatch(/^NETWORK: /);
    expect(await jobsOf(id)).toHaveLength(1);
    await s.client.deleteSubscription(sub.id);
  });

  it('a receiver that does not answer in time is retried; deliveries go out with 15 s in all and no redirects', async () => {
    const doc = await newDocument();
    const sub = await s.client.createSubscription('sms_error', `http://127.0.0.1:${port}/slow`);
    const id = await emit(s.creds, doc.id, 'sms_error', {
      channel: 'sms',
      recipient: '+525512345678',
      code: '30003',
      reply: 'unreachable',
    });
    await runJobs();
    expect(lastFetch).toMatchObject({ method: 'POST', totalTimeoutMs: 15_000, maxRedirects: 0, maxBytes: 64 * 1024 });
    const toSub = (await deliveriesOf(id)).find((d) => d.target === `subscription:${sub.id}`)!;
    expect(toSub).toMatchObject({ state: 'pending', attempts: 1, last_status: null });
    expect(toSub.last_error).toMatch(/^TIMEOUT: /);
    expect(await jobsOf(id)).toHaveLength(1);
    await s.client.deleteSubscription(sub.id);
    // Deleted: its queued attempt, when due, is dropped without sending.
    await sql`update graphile_worker._private_jobs set run_at = now() where key = ${`deliver_webhook:${id}:subscription:${sub.id}`}`.execute(
      s.deps.db,
    );
    await runJobs();
    expect((await deliveriesOf(id)).find((d) => d.target === `subscription:${sub.id}`)).toMatchObject({
      state: 'discarded',
      attempts: 1,
      last_error: 'the subscription was deleted or disabled',
    });
  });

  it('after the tenth attempt the delivery is failed and nothing more is queued', async () => {
    const doc = await newDocument();
    const id = await emit(s.creds, doc.id, 'document_completed', {});
    statusById.set(id, 503);
    // Nine attempts already made (their waits are covered by the schedule test below).
    await sql`update notification_deliveries set attempts = ${MAX_ATTEMPTS - 1}
      where notification_id = (select id from notifications where notification_id = ${id})`.execute(s.deps.db);
    await runJobs();
    expect(receivedFor(id)).toHaveLength(1);
    expect(await jobsOf(id)).toHaveLength(0);
    expect(await notificationRow(id)).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS, last_status: 503 });
  });

  it('follows the schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h with ±10% jitter', () => {
    const base = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 504e5, 72e6, 864e5];
    expect(MAX_ATTEMPTS).toBe(10);
    base.forEach((ms, i) => {
      expect(retryDelayMs(i + 1, () => 0.5)).toBe(ms);
      expect(retryDelayMs(i + 1, () => 0)).toBe(Math.round(ms * 0.9));
      expect(retryDelayMs(i + 1, () => 0.999999)).toBeLessThanOrEqual(Math.round(ms * 1.1));
    });
    expect(retryDelayMs(10, () => 0.5)).toBeUndefined();
  });
});

describe('the delivery log', () => {
  it('lists a failed delivery with its last answer; send again delivers it; a delivered one is 409', async () => {
    const doc = await newDocument();
    const id = await emit(s.creds, doc.id, 'document_completed', {});
    statusById.set(id, 503);
    await sql`update notification_deliveries set attempts = ${MAX_ATTEMPTS - 1}
      where notification_id = (select id from notifications where notification_id = ${id})`.execute(s.deps.db);
    await runJobs();
    const failed = (await s.client.listWebhookDeliveries({ state: 'failed' })).deliveries.find((d) => d.notification_id === id)!;
    expect(failed).toMatchObject({
      event: 'document_completed',
      document_ticket: doc.ticket,
      // The document by its name too, for a person reading the log.
      document_name: 'Contract.pdf',
      target: 'account',
      subscription_id: null,
      url: `http://127.0.0.1:${port}/account`,
      state: 'failed',
      attempts: MAX_ATTEMPTS,
      last_status: 503,
      next_attempt_at: null,
      delivered_at: null,
    });
    expect(failed.last_attempt_at).not.toBeNull();

    // The receiver is fixed; sending again delivers it with one more attempt, signed as ever.
    statusById.delete(id);
    const retried = await s.client.retryWebhookDelivery(failed.id);
    expect(retried).toMatchObject({ id: failed.id, state: 'pending' });
    expect(await notificationRow(id)).toMatchObject({ state: 'pending' });
    await runJobs();
    const got = receivedFor(id);
    expect(got).toHaveLength(2);
    expectSigned(got[1], accountSecret);
    const after = (await s.client.listWebhookDeliveries()).deliveries.find((d) => d.id === failed.id)!;
    expect(after).toMatchObject({ state: 'delivered', attempts: MAX_ATTEMPTS + 1, last_status: 200 });
    expect(await notificationRow(id)).toMatchObject({ state: 'delivered' });
    const again = await apiError(s.client.retryWebhookDelivery(failed.id));
    expect([again.status, again.code]).toEqual([409, 'INVALID_STATE']);
  });

  it('pages newest first, filters by state, and keeps every account to its own deliveries', async () => {
    const doc = await newDocument();
    const ids = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await emit(s.creds, doc.id, 'document_completed', {}));
    }
    await runJobs();
    const first = await s.client.listWebhookDeliveries({ limit: 2 });
    expect(first.deliveries).toHaveLength(2);
    expect(first.nextToken).toBeDefined();
    expect(first.deliveries.map((d) => d.notification_id)).toEqual([ids[2], ids[1]]);
    const second = await s.client.listWebhookDeliveries({ limit: 2, nextToken: first.nextToken });
    expect(second.deliveries[0].notification_id).toBe(ids[0]);
    expect((await s.client.listWebhookDeliveries({ state: 'pending' })).deliveries.every((d) => d.state === 'pending')).toBe(true);

    const other = await s.newAccount('Otra');
    expect((await other.client.listWebhookDeliveries()).deliveries).toEqual([]);
    const foreign = await apiError(other.client.retryWebhookDelivery(first.deliveries[0].id));
    expect([foreign.status, foreign.code]).toEqual([404, 'DELIVERY_NOT_FOUND']);
    for (const [q, field] of [
      [{ state: 'lost' }, 'state'],
      [{ limit: 0 }, 'limit'],
      [{ nextToken: 'nope' }, 'nextToken'],
    ] as const) {
      const e = await apiError(s.client.listWebhookDeliveries(q));
      expect([e.status, e.code], field).toEqual([400, 'INVALID_INPUT']);
      expect(e.message).toContain(field);
    }
    expect((await apiError(s.client.retryWebhookDelivery('abc'))).status).toBe(404);
  });
});

describe('deleting the document', () => {
  it('discards its pending notifications: nothing is sent, even if the job runs anyway', async () => {
    const doc = await newDocument();
    const id = await emit(s.creds, doc.id, 'document_completed', {});
    expect(await jobsOf(id)).toHaveLength(1);
    await s.client.deleteDocument(doc.ticket);
    expect(await jobsOf(id)).toHaveLength(0);
    expect(await notificationRow(id)).toMatchObject({ state: 'discarded', attempts: 0, last_error: 'the document was deleted' });

    await addJobAgain(id, 'account'); // a job that escaped (already running, say)
    await runJobs();
    expect(receivedFor(id)).toHaveLength(0);
    expect((await notificationRow(id)).state).toBe('discarded');

    // A restore does not bring them back.
    await s.client.restoreDocument(doc.ticket);
    await addJobAgain(id, 'account');
    await runJobs();
    expect(receivedFor(id)).toHaveLength(0);
  });

  it('an event about an already deleted document is discarded when its job runs', async () => {
    const doc = await newDocument();
    await s.client.deleteDocument(doc.ticket);
    const id = await emit(s.creds, doc.id, 'document_completed', {});
    await runJobs();
    expect(receivedFor(id)).toHaveLength(0);
    expect((await notificationRow(id)).state).toBe('discarded');
  });
});

describe('subscriptions', () => {
  it('deliver the events of their kind, each signed with its own secret, beside the account webhook', async () => {
    const completed = await s.client.createSubscription('document_completed', `http://127.0.0.1:${port}/sub/completed`);
    const rejected = await s.client.createSubscription('document_rejected', `http://127.0.0.1:${port}/sub/rejected`);
    expect(completed.secret).not.toBe(accountSecret);
    const doc = await newDocument();
    const id = await emit(s.creds, doc.id, 'document_completed', {});
    await runJobs();
    const got = receivedFor(id);
    expect(got.map((r) => r.path).sort()).toEqual(['/account', '/sub/completed']);
    expectSigned(got.find((r) => r.path === '/account')!, accountSecret);
    expectSigned(got.find((r) => r.path === '/sub/completed')!, completed.secret);
    expect(got[0].body).toBe(got[1].body);
    await s.client.deleteSubscription(completed.id);
    await s.client.deleteSubscription(rejected.id);
  });

  it('a 410 disables the subscription; nothing is retried', async () => {
    const other = await s.newAccount('No webhook'); // only the subscription receives
    const sub = await other.client.createSubscription('document_rejected', `http://127.0.0.1:${port}/gone`);
    statusByPath.set('/gone', 410);
    const doc = await newDocument(other.client);
    const reason = 'x'.repeat(400);
    const signer = { signer_id: doc.signerId, name: 'Ana', email: 'ana@example.com', authority: 'EMAIL_LINK', data: 'ana@example.com' };
    const id = await emit(other.creds, doc.id, 'document_rejected', { signer, reason });
    await runJobs();
    const got = receivedFor(id);
    expect(got).toHaveLength(1);
    expectSigned(got[0], sub.secret);
    expect(JSON.parse(got[0].body).meta).toEqual({ signer, reason: 'x'.repeat(300) });
    expect(await jobsOf(id)).toHaveLength(0);
    expect(await notificationRow(id)).toMatchObject({ state: 'failed', attempts: 1, last_status: 410 });

    const row = await s.deps.db.selectFrom('subscriptions').selectAll().where('subscription_id', '=', sub.id).executeTakeFirstOrThrow();
    expect(row.active).toBe(false);
    expect(row.disabled_reason).toMatch(/410 Gone/);
    const { subscriptions } = await other.client.listSubscriptions();
    expect(subscriptions).toEqual([expect.objectContaining({ id: sub.id, status: 'disabled', disabled_reason: row.disabled_reason })]);

    // Later events of that kind go nowhere.
    const next = await emit(other.creds, doc.id, 'document_rejected', { signer, reason: 'no' });
    expect(await jobsOf(next)).toHaveLength(0);
    expect((await notificationRow(next)).state).toBe('discarded');
    // Subscribing again makes a new, active subscription.
    const again = await other.client.createSubscription('document_rejected', `http://127.0.0.1:${port}/gone`);
    expect(again.id).not.toBe(sub.id);
  });

  it('create, list and delete, scoped to the account', async () => {
    const a = await s.newAccount('A');
    const b = await s.newAccount('B');
    const url = 'https://hooks.example.com/sello?kind=signed';
    const created = await a.client.createSubscription('original_signed', url);
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      event: 'original_signed',
      url,
      secret: expect.stringMatching(/^whsec_/),
    });
    // The same event and URL again: the same subscription.
    expect(await a.client.createSubscription('original_signed', url)).toEqual(created);

    const listed = await a.client.listSubscriptions();
    expect(listed.subscriptions).toEqual([
      {
        id: created.id,
        event: 'original_signed',
        url,
        status: 'active',
        disabled_reason: null,
        disabled_at: null,
        created_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    expect((await b.client.listSubscriptions()).subscriptions).toEqual([]);

    const e = await apiError(b.client.deleteSubscription(created.id));
    expect([e.status, e.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    expect(await a.client.deleteSubscription(created.id)).toEqual({ id: created.id, status: 'deleted' });
    expect((await a.client.listSubscriptions()).subscriptions).toEqual([]);
    const again = await apiError(a.client.deleteSubscription(created.id));
    expect([again.status, again.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    const unknown = await apiError(a.client.deleteSubscription('no-such-id'));
    expect(unknown.status).toBe(404);
  });

  it('refuses an unknown event or a URL that is not http(s), naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ event: 'document_signed', url: 'https://example.com/h' }, 'event'],
      [{ url: 'https://example.com/h' }, 'event'],
      [{ event: 'document_completed', url: 'ftp://example.com/h' }, 'url'],
      [{ event: 'document_completed', url: 'file:///etc/passwd' }, 'url'],
      [{ event: 'document_completed', url: 'not a url' }, 'url'],
      [{ event: 'document_completed' }, 'url'],
      [{ event: 'document_completed', url: 'https://user:pw@example.com/h' }, 'url'],
    ];
    for (const [body, field] of cases) {
      const e = await apiError(s.client.request('POST', '/api/subscriptions', body));
      expect([e.status, e.code, (e.details as { field?: string }).field], JSON.stringify(body)).toEqual([400, 'INVALID_INPUT', field]);
      expect(e.message.startsWith(`${field}: `)).toBe(true);
    }
  });
});

describe('POST /developers/webhook', () => {
  it('is described in the OpenAPI document, with the subscription operations', async () => {
    const doc = (await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, method] of [
      ['/developers/webhook', 'post'],
      ['/api/subscriptions', 'post'],
      ['/api/subscriptions', 'get'],
      ['/api/subscriptions/{id}', 'delete'],
    ]) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
  });

  it('returns the notification and the document with its original in Base64 and its hash', async () => {
    const doc = await newDocument();
    const id = await emit(s.creds, doc.id, 'document_completed', {});
    const r = await s.client.notificationDocument(id);
    const original = await s.client.downloadDocument('original', doc.ticket);
    const n = await notificationRow(id);
    expect(r).toEqual({
      notification: {
        notification_id: id,
        notification_type: 'document_completed',
        document_ticket: doc.ticket,
        document_set: null,
        created_at: n.created_at.toISOString(),
        meta: {},
      },
      document: {
        document_ticket: doc.ticket,
        name: 'Contract.pdf',
        status: 'pending',
        signers: [
          {
            signer_id: doc.signerId,
            name: 'Ana',
            email: 'ana@example.com',
            authority: 'EMAIL_LINK',
            data: 'ana@example.com',
            status: 'pending',
            // She fills no field of the document.
            signer_fields: [],
          },
        ],
        original: original.bytes.toString('base64'),
        hash: original.hash,
        // Not completed, not stamped: no long-term rendition is owed yet.
        universal_rendition: null,
        nom151_stamps: null,
      },
    });
    expect(Buffer.from(r.document!.original, 'base64').equals(pdf)).toBe(true);
  });

  it('answers 404 for an unknown id or another account’s, 400 without an id, 409 for a deleted document', async () => {
    const doc = await newDocument();
    const id = await emit(s.creds, doc.id, 'document_completed', {});
    const other = await s.newAccount('Other');
    const foreign = await apiError(other.client.notificationDocument(id));
    expect([foreign.status, foreign.code]).toEqual([404, 'NOTIFICATION_NOT_FOUND']);
    const unknown = await apiError(s.client.notificationDocument('00000000-0000-4000-8000-000000000000'));
    expect([unknown.status, unknown.code]).toEqual([404, 'NOTIFICATION_NOT_FOUND']);
    const missing = await apiError(s.client.request('POST', '/developers/webhook', {}));
    expect([missing.status, missing.code, (missing.details as { field: string }).field]).toEqual([400, 'INVALID_INPUT', 'notification_id']);
    await s.client.deleteDocument(doc.ticket);
    const deleted = await apiError(s.client.notificationDocument(id));
    expect([deleted.status, deleted.code]).toEqual([409, 'DOCUMENT_DELETED']);
    await s.client.restoreDocument(doc.ticket);
    expect((await s.client.notificationDocument(id)).document?.status).toBe('pending');
  });

  it('is authenticated like every operation', async () => {
    const r = await fetch(`${s.baseUrl}/developers/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"notification_id":"x"}',
    });
    expect(r.status).toBe(401);
    expect(await r.text()).toBe('');
  });
});
