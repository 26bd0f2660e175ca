// Bulk send (decisions.md "Bulk send"): POST /api/bulk and GET /api/bulk/{bulk_id} through the
// client, the bulk_run job run by the service's own task list, the bulk_completed event delivered to
// a receiver on loopback, idempotency, the package running out, and a worker stopped midway.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkInput } from '../../src/client/index.js';
import { parseAccountCommand, runAccountCommand } from '../../src/cli/account.js';
import { setAccountWebhook } from '../../src/domain/accounts/set-webhook.js';
import { listBulk } from '../../src/domain/bulk/list-bulk.js';
import { runBulk } from '../../src/domain/bulk/run-bulk.js';
import { guardedFetch, isPublicAddress } from '../../src/net/url-guard.js';
import { apiError } from '../helpers/api-error.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let jobs: JobRunner;
let pdf: string;
let receiver: Server;
let received: Record<string, unknown>[] = [];
let keyNo = 0;
const newKey = () => `key-${++keyNo}`;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  s = await startTestServer({
    // The real guard, letting through only the receiver on loopback.
    fetchUrl: (url, opts) => guardedFetch(url, { ...opts, isAllowedAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) }),
  });
  jobs = jobRunner(s.connectionString, s.deps);
  pdf = (await makePdf()).toString('base64');
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  receiver?.close();
});

const sticker = {
  authority: 'EMAIL_LINK' as const,
  data: '{{row.email}}',
  name: '{{row.name}}',
  page: '{{row.page}}',
  rect: { lx: 50, ly: 50, tx: 250, ty: 120 },
};

function input(rows: Record<string, unknown>[]): BulkInput {
  return { b64_doc: pdf, name: 'Contrato {{row.name}}', stickers: [sticker], rows };
}

function people(n: number) {
  return Array.from({ length: n }, (_, i) => ({ email: `p${i}@example.com`, name: `Persona ${i}`, page: 0 }));
}

async function runId(bulkId: string): Promise<string> {
  return (await s.deps.db.selectFrom('bulk_runs').select('id').where('bulk_id', '=', bulkId).executeTakeFirstOrThrow()).id;
}

/** Documents of the account's bulk run, with their signer's email, by row. */
async function madeDocuments(bulkId: string) {
  return s.deps.db
    .selectFrom('bulk_rows as r')
    .innerJoin('bulk_runs as b', 'b.id', 'r.run_id')
    .innerJoin('documents as d', 'd.id', 'r.document_id')
    .innerJoin('signers as g', 'g.document_id', 'd.id')
    .select(['r.index', 'd.ticket', 'd.name', 'g.email', 'g.name as signer'])
    .where('b.bulk_id', '=', bulkId)
    .orderBy('r.index')
    .execute();
}

async function packageOf(webId: string, pieces: number) {
  const log = console.log;
  console.log = () => {};
  try {
    await runAccountCommand(
      s.deps,
      parseAccountCommand(['package', 'add', '--web-id', webId, '--kind', 'documents', '--pieces', String(pieces), '--days', '30']),
    );
  } finally {
    console.log = log;
  }
}

describe('a run', () => {
  it('makes one document per row with the row’s values, refuses a bad row with the error a single create gives, and ends with bulk_completed', async () => {
    const a = await s.newAccount('masivo');
    await setAccountWebhook(s.deps, {
      webId: a.creds.webId,
      url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`,
    });
    const rows = people(5);
    rows[2] = { ...rows[2], page: 7 }; // the PDF has one page
    const started = await a.client.createBulk(input(rows), newKey());
    expect(started).toEqual({ bulk_id: expect.any(String), state: 'running', rows: 5 });
    expect((await a.client.getBulk(started.bulk_id)).state).toBe('running');

    received = [];
    await jobs.runDue(); // the run, then the deliveries it queued
    await jobs.runDue();
    const run = await a.client.getBulk(started.bulk_id);
    expect(run).toMatchObject({ bulk_id: started.bulk_id, state: 'completed', total: 5, created: 4, refused: 1, not_made: 0, pending: 0 });
    expect(run.rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);

    // The refused row carries exactly what POST /developers/json answers for the same payload.
    const single = await apiError(
      a.client.createDocument({
        b64_doc: pdf,
        name: 'Contrato Persona 2',
        stickers: [{ ...sticker, data: 'p2@example.com', name: 'Persona 2', page: 7 }],
      }),
    );
    expect(run.rows[2]).toEqual({ index: 2, error: { code: single.code, message: single.message, details: single.details } });
    expect(single.code).toBe('INVALID_STICKER');

    const docs = await madeDocuments(started.bulk_id);
    expect(docs.map((d) => [d.index, d.email, d.signer, d.name])).toEqual(
      [0, 1, 3, 4].map((i) => [i, `p${i}@example.com`, `Persona ${i}`, `Contrato Persona ${i}.pdf`]),
    );
    expect(run.rows.filter((r) => 'document_ticket' in r)).toEqual(docs.map((d) => ({ index: d.index, document_ticket: d.ticket })));
    expect((await a.client.consumption()).consumption.documents.total).toBe(4);

    // One PDF stored for the run, whatever the number of rows.
    const sources = await s.deps.db
      .selectFrom('documents')
      .select('source_sha256')
      .distinct()
      .where('account_id', '=', await runAccount(started.bulk_id))
      .execute();
    expect(sources).toHaveLength(1);

    expect(received).toEqual([
      {
        notification_id: expect.any(String),
        notification_type: 'bulk_completed',
        bulk_id: started.bulk_id,
        state: 'completed',
        created: 4,
        refused: 1,
        created_at: expect.any(String),
        meta: { rows: 5, not_made: 0 },
      },
    ]);
  });

  it('fills a template with each row’s values, given as an object or as [{id, value}]', async () => {
    const a = await s.newAccount('plantilla');
    await a.client.saveTemplate({
      template_type: 'pdfmake',
      template_name: 'carta',
      template_data: { content: [{ text: 'Carta para {{name}} de {{city}}' }] },
    } as never);
    const started = await a.client.createBulk(
      {
        template: { title: 'carta', name: 'Carta {{row.name}}' },
        fields: [{ id: 'city', value: 'Monterrey' }],
        stickers: [{ ...sticker, page: 0 }],
        rows: [
          { email: 'ana@example.com', name: 'Ana', fields: { name: 'Ana' } },
          {
            email: 'bob@example.com',
            name: 'Bob',
            fields: [
              { id: 'name', value: 'Bob' },
              { id: 'city', value: 'Puebla' },
            ],
          },
        ],
      },
      newKey(),
    );
    await jobs.runDue();
    const docs = await madeDocuments(started.bulk_id);
    expect(docs.map((d) => d.name)).toEqual(['Carta Ana.pdf', 'Carta Bob.pdf']);
    const texts = await Promise.all(docs.map(async (d) => pdfText((await a.client.downloadDocument('source', d.ticket)).bytes)));
    expect(texts.map((t) => t.trim())).toEqual(['Carta para Ana de Monterrey', 'Carta para Bob de Puebla']);
  });

  it('pages the rows’ outcomes', async () => {
    const started = await s.client.createBulk(input(people(7)), newKey());
    await jobs.runDue();
    const first = await s.client.getBulk(started.bulk_id, { limit: 3 });
    expect([first.rows.map((r) => r.index), first.next_offset]).toEqual([[0, 1, 2], 3]);
    const last = await s.client.getBulk(started.bulk_id, { offset: 6, limit: 3 });
    expect([last.rows.map((r) => r.index), last.next_offset]).toEqual([[6], null]);
  });

  it('is another account’s secret: 404 BULK_NOT_FOUND', async () => {
    const started = await s.client.createBulk(input(people(1)), newKey());
    const other = await s.newAccount('otra');
    const e = await apiError(other.client.getBulk(started.bulk_id));
    expect([e.status, e.code]).toEqual([404, 'BULK_NOT_FOUND']);
  });
});

describe('the request', () => {
  it('is idempotent: the same key and body make one run; the same key with another body is 409', async () => {
    const a = await s.newAccount('idempotente');
    const key = newKey();
    const first = await a.client.createBulk(input(people(2)), key);
    const again = await a.client.createBulk(input(people(2)), key);
    expect(again.bulk_id).toBe(first.bulk_id);
    const e = await apiError(a.client.createBulk(input(people(3)), key));
    expect([e.status, e.code, (e.details as { bulk_id: string }).bulk_id]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED', first.bulk_id]);
    await jobs.runDue();
    expect((await a.client.listDocuments({ limit: 50 })).documents).toHaveLength(2);
  });

  it('refuses, naming the field and storing nothing: a row that is not an object, too many rows, no origin', async () => {
    const a = await s.newAccount('malos');
    const notObject = await apiError(
      a.client.createBulk(input([{ email: 'a@example.com', name: 'A', page: 0 }, 'b@example.com' as never]), newKey()),
    );
    expect([notObject.status, notObject.code, notObject.message]).toEqual([
      400,
      'INVALID_INPUT',
      'rows[1]: expected an object of the row’s values',
    ]);
    const tooMany = await apiError(a.client.createBulk(input(Array.from({ length: 1001 }, () => ({}))), newKey()));
    expect([tooMany.status, tooMany.code, tooMany.message]).toEqual([400, 'INVALID_INPUT', 'rows: at most 1000 rows per run; got 1001']);
    const noOrigin = await apiError(a.client.createBulk({ stickers: [sticker], rows: [{}] }, newKey()));
    expect([noOrigin.status, noOrigin.code]).toEqual([400, 'INVALID_ORIGIN']);
    const noKey = await a.client.raw('POST', '/api/bulk', input(people(1)));
    expect([noKey.status, JSON.parse(noKey.text).error.code]).toEqual([400, 'INVALID_INPUT']);
    const runs = await s.deps.db
      .selectFrom('bulk_runs as b')
      .innerJoin('accounts as a', 'a.id', 'b.account_id')
      .select('b.id')
      .where('a.web_id', '=', a.creds.webId)
      .execute();
    expect(runs).toEqual([]);
  });
});

describe('the package', () => {
  it('running out stops the run and says which rows were not made; one piece per document', async () => {
    const a = await s.newAccount('paquete');
    await packageOf(a.creds.webId, 3);
    const started = await a.client.createBulk(input(people(6)), newKey());
    await jobs.runDue();
    const run = await a.client.getBulk(started.bulk_id);
    expect(run).toMatchObject({ state: 'stopped', created: 3, refused: 3, not_made: 3, pending: 0 });
    expect(run.rows.slice(0, 3).map((r) => 'document_ticket' in r)).toEqual([true, true, true]);
    for (const r of run.rows.slice(3)) {
      expect(r).toEqual({
        index: r.index,
        error: { code: 'PACKAGE_EXHAUSTED', message: expect.stringContaining('no documents left'), details: { kind: 'documents' } },
      });
    }
    expect(run.rows.slice(3).map((r) => r.index)).toEqual([3, 4, 5]);
    expect((await a.client.getAccount()).remaining.documents).toBe(0);
    expect((await a.client.consumption()).consumption.documents.total).toBe(3);
    const events = await s.deps.db
      .selectFrom('notifications')
      .select(['kind', 'meta'])
      .where('bulk_run_id', '=', await runId(started.bulk_id))
      .execute();
    expect(events).toEqual([{ kind: 'bulk_completed', meta: { rows: 6, not_made: 3 } }]);
  });
});

describe('a worker stopped midway', () => {
  it('is followed by another that makes the rest, and no row is made twice', async () => {
    const a = await s.newAccount('reinicio');
    const started = await a.client.createBulk(input(people(10)), newKey());
    const id = await runId(started.bulk_id);
    // The first worker dies after its first batch...
    await expect(
      runBulk(s.deps, {
        runId: id,
        afterBatch: () => {
          throw new Error('worker stopped');
        },
      }),
    ).rejects.toThrow('worker stopped');
    // ...and a second had claimed the next row when it died, before making it.
    await sql`update bulk_rows set state = 'claimed', claim_token = 'dead' where run_id = ${id} and index = 4`.execute(s.deps.db);
    const midway = await a.client.getBulk(started.bulk_id);
    expect([midway.state, midway.created, midway.pending]).toEqual(['running', 4, 6]);

    // The job (still queued) runs, and another worker runs the same run at the same time.
    await Promise.all([jobs.runDue(), runBulk(s.deps, { runId: id })]);
    const run = await a.client.getBulk(started.bulk_id);
    expect(run).toMatchObject({ state: 'completed', created: 10, refused: 0, pending: 0 });
    const docs = await madeDocuments(started.bulk_id);
    expect(docs.map((d) => d.email)).toEqual(people(10).map((p) => p.email));
    expect((await a.client.listDocuments({ limit: 50 })).documents).toHaveLength(10);
    expect((await a.client.consumption()).consumption.documents.total).toBe(10);
    const events = await s.deps.db.selectFrom('notifications').select('kind').where('bulk_run_id', '=', id).execute();
    expect(events).toEqual([{ kind: 'bulk_completed' }]);
  });
});

/** The text of a PDF, read by poppler's pdftotext. */
function pdfText(bytes: Buffer): string {
  return execFileSync('pdftotext', ['-', '-'], { input: bytes }).toString('utf8');
}

describe('two workers on one row', () => {
  it('the one that lost the row’s claim while making it rolls its document back', async () => {
    const a = await s.newAccount('carrera');
    const started = await a.client.createBulk(input(people(1)), newKey());
    const id = await runId(started.bulk_id);
    let second: Promise<string> | undefined;
    // The first worker has claimed row 0 and is storing its PDF when a second worker takes the
    // row over (as after the first was judged dead) and makes it.
    const racing = {
      ...s.deps,
      blobs: Object.assign(Object.create(s.deps.blobs), {
        put: async (bytes: Buffer) => {
          second ??= runBulk(s.deps, { runId: id });
          await second;
          return s.deps.blobs.put(bytes);
        },
      }),
    };
    expect(await runBulk(racing, { runId: id })).toBe('left');
    expect(await second).toBe('finished');
    const docs = await madeDocuments(started.bulk_id);
    expect(docs).toHaveLength(1);
    expect((await a.client.listDocuments({ limit: 50 })).documents.map((d) => d.document_ticket)).toEqual([docs[0].ticket]);
    expect((await a.client.consumption()).consumption.documents.total).toBe(1);
  });
});

async function runAccount(bulkId: string): Promise<string> {
  return (await s.deps.db.selectFrom('bulk_runs').select('account_id').where('bulk_id', '=', bulkId).executeTakeFirstOrThrow()).account_id;
}

describe("the account's runs (the panel's list)", () => {
  it('newest first, a page at a time, each counted as it stands; a bad limit is refused naming it', async () => {
    const a = await s.newAccount('lista');
    const first = await a.client.createBulk(input(people(1)), newKey());
    const second = await a.client.createBulk(input(people(2)), newKey());
    const third = await a.client.createBulk(input(people(1)), newKey());
    expect(await runBulk(s.deps, { runId: await runId(first.bulk_id) })).toBe('finished');
    const accountId = await runAccount(first.bulk_id);
    const page1 = await listBulk(s.deps, { accountId, limit: '2' });
    expect(page1.runs.map((r) => [r.bulk_id, r.state, r.total, r.created, r.refused, r.pending])).toEqual([
      [third.bulk_id, 'running', 1, 0, 0, 1],
      [second.bulk_id, 'running', 2, 0, 0, 2],
    ]);
    expect(page1.next_offset).toBe(2);
    expect(page1.max_rows).toBe(s.deps.config.limits.bulkRows);
    const page2 = await listBulk(s.deps, { accountId, offset: '2', limit: '2' });
    expect(page2.runs.map((r) => [r.bulk_id, r.state, r.created, r.pending])).toEqual([[first.bulk_id, 'completed', 1, 0]]);
    expect(page2.next_offset).toBeNull();
    // Another account sees none of them.
    const other = await s.newAccount('ajena');
    const otherId = await runAccount((await other.client.createBulk(input(people(1)), newKey())).bulk_id);
    expect((await listBulk(s.deps, { accountId: otherId })).runs).toHaveLength(1);
    await expect(listBulk(s.deps, { accountId, limit: '101' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { field: 'limit' },
    });
  });
});
