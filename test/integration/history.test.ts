// The document history: the entries each change writes (actor, IP, details, in commit order), the
// hash chain and its check by GET /api/v1/document/{id}/history/json and by the real
// `sello history verify` command, tampering with SQL, account scoping and concurrent appends.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentHistory } from '../../src/client/index.js';
import type { Clock } from '../../src/domain/deps.js';
import { appendHistory } from '../../src/domain/history/append-history.js';
import { GENESIS_HASH, entryHash } from '../../src/domain/history/history-hash.js';
import { openDb } from '../../src/store/db.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { apiError } from '../helpers/api-error.js';
import { nextWholeHour } from '../helpers/dates.js';
import { makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { publicCall } from '../helpers/public-call.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'sello.js');

// A clock the test moves: views an hour apart, entries with known times.
const T0 = nextWholeHour();
let now = T0;
const clock: Clock = { now: () => new Date(now) };
let s: TestServer;
let pdf: string;
let cliDataDir: string;

beforeAll(async () => {
  s = await startTestServer({ clock });
  pdf = (await makePdf()).toString('base64');
  cliDataDir = await mkdtemp(join(tmpdir(), 'sello-history-cli-'));
});
afterAll(async () => {
  await s?.close();
  if (cliDataDir) {
    await rm(cliDataDir, { recursive: true, force: true });
  }
});

const box = { page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } };

const call = (method: string, path: string, body?: unknown) => publicCall(s.baseUrl, method, path, body);

const tokenOf = (url: string) => url.split('/').pop()!;

/** The entries people and the account caused; the flow's own ('system') entries are not asserted here. */
const byPeople = (h: DocumentHistory) => h.entries.filter((e) => e.actor !== 'system');

/** Every link of a chain, checked here independently of the server's verdict. */
function expectLinked(h: DocumentHistory) {
  h.entries.forEach((e, i) => {
    expect(e.seq).toBe(i + 1);
    expect(e.prev_hash).toBe(i === 0 ? GENESIS_HASH : h.entries[i - 1].hash);
    expect(e.hash).toBe(
      entryHash({
        document: h.document_ticket,
        seq: e.seq,
        at: new Date(e.at),
        action: e.action,
        actor: e.actor,
        ip: e.ip,
        details: e.details,
        prev_hash: e.prev_hash,
      }),
    );
  });
  expect(h.chain).toEqual({ valid: true, entries: h.entries.length, first_broken_seq: null });
}

/** A document whose history is created, deleted, restored, deleted, restored: five entries. */
async function fiveEntries(): Promise<string> {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'five',
    stickers: [{ authority: 'EMAIL_LINK', data: 'five@example.com', ...box }],
  });
  for (let i = 0; i < 2; i++) {
    await s.client.deleteDocument(doc.document_ticket);
    await s.client.restoreDocument(doc.document_ticket);
  }
  return doc.document_ticket;
}

const onEntry = (ticket: string, seq: number) => sql`document_id = (select id from documents where ticket = ${ticket}) and seq = ${seq}`;

/** `sello history verify ARGS` as an operator runs it, against the test server's database. */
function selloHistory(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(SELLO_|PG|DATABASE_URL$|PORT$|HOST$)/.test(k)) {
      env[k] = v;
    }
  }
  Object.assign(env, { NODE_ENV: 'test', SELLO_DATA_DIR: cliDataDir, DATABASE_URL: s.connectionString });
  const child = spawn(process.execPath, [BIN, 'history', 'verify', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('what the history records', () => {
  it('creation, views, one-time codes and a rejection, in order, with actor, IP and details', async () => {
    now = T0;
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      name: 'Contrato',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', ...box },
        { authority: 'EMAIL', data: 'carla@example.com', name: 'Carla', ...box, rect: { lx: 300, ly: 60, tx: 500, ty: 130 } },
      ],
    });
    const [ana, carla] = doc.stickers.map((k) => ({ token: tokenOf(k.signer_url), actor: `signer:${k.signer_id}` }));

    // The first view is recorded; polling within the hour is not; a view an hour later is.
    expect((await call('GET', `/sign/api/${ana.token}`)).status).toBe(200);
    now += 60_000;
    await call('GET', `/sign/api/${ana.token}`);
    now = T0 + 59 * 60_000;
    await call('GET', `/sign/api/${ana.token}`);
    now = T0 + 61 * 60_000;
    await call('GET', `/sign/api/${ana.token}`);

    now += 60_000;
    expect((await call('POST', `/sign/api/${carla.token}/otp`)).status).toBe(200);
    const code = /\b(\d{6})\b/.exec((await listMessages(s.deps, 1))[0].body_text)![1];
    // A wrong code changes nothing the history records.
    expect((await call('POST', `/sign/api/${carla.token}/otp/verify`, { code: code === '000000' ? '111111' : '000000' })).status).toBe(400);
    now += 60_000;
    expect((await call('POST', `/sign/api/${carla.token}/otp/verify`, { code })).status).toBe(200);
    now += 60_000;
    expect((await call('POST', `/sign/api/${carla.token}/reject`, { reason: 'El monto no es el acordado' })).status).toBe(200);

    const h = await s.client.documentHistory(doc.document_ticket);
    expect(h.document_ticket).toBe(doc.document_ticket);
    const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
    expect(byPeople(h).map((e) => [e.action, e.actor, e.ip, e.at])).toEqual([
      ['created', 'account', '127.0.0.1', at(0)],
      ['viewed', ana.actor, '127.0.0.1', at(0)],
      ['viewed', ana.actor, '127.0.0.1', at(61)],
      ['otp_sent', carla.actor, '127.0.0.1', at(62)],
      ['otp_verified', carla.actor, '127.0.0.1', at(63)],
      ['rejected', carla.actor, '127.0.0.1', at(64)],
    ]);
    const [created, , , otpSent, , rejected] = byPeople(h);
    expect(created.details).toEqual({ name: 'Contrato.pdf', signers: 2, origin: 'b64_doc' });
    expect(otpSent.details).toMatchObject({ channel: 'email', to: 'c****@example.com' });
    expect(rejected.details).toEqual({ reason: 'El monto no es el acordado' });
    expectLinked(h);
  });

  it('delete and restore, with the states they moved between', async () => {
    now = T0 + 2 * 3600_000;
    const doc = await s.client.createDocument({ b64_doc: pdf, stickers: [{ authority: 'EMAIL_LINK', data: 'dora@example.com', ...box }] });
    await s.client.deleteDocument(doc.document_ticket);
    // A deleted document keeps its history and still answers.
    const deleted = await s.client.documentHistory(doc.document_ticket);
    expect(byPeople(deleted).map((e) => [e.action, e.details])).toEqual([
      ['created', { name: 'document.pdf', signers: 1, origin: 'b64_doc' }],
      ['deleted', { from: 'pending' }],
    ]);
    await s.client.restoreDocument(doc.document_ticket);
    const h = await s.client.documentHistory(doc.document_ticket);
    expect(byPeople(h).map((e) => [e.action, e.actor, e.details])).toEqual([
      ['created', 'account', { name: 'document.pdf', signers: 1, origin: 'b64_doc' }],
      ['deleted', 'account', { from: 'pending' }],
      ['restored', 'account', { to: 'pending' }],
    ]);
    expectLinked(h);
  });

  it('a document created into a set names the set', async () => {
    const set = await s.client.createDocumentSet({ name: 'Lote' });
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      document_set: set.uuid,
      stickers: [{ authority: 'EMAIL_LINK', data: 'eva@example.com', ...box }],
    });
    const h = await s.client.documentHistory(doc.document_ticket);
    expect(h.entries[0]).toMatchObject({ seq: 1, action: 'created', actor: 'account', details: { document_set: set.uuid, signers: 1 } });
    expectLinked(h);
  });

  it('signers polling at the same instant record one view', async () => {
    now = T0 + 3 * 3600_000;
    const doc = await s.client.createDocument({ b64_doc: pdf, stickers: [{ authority: 'EMAIL_LINK', data: 'fede@example.com', ...box }] });
    const token = tokenOf(doc.stickers[0].signer_url);
    const answers = await Promise.all(Array.from({ length: 6 }, () => call('GET', `/sign/api/${token}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    const h = await s.client.documentHistory(doc.document_ticket);
    expect(h.entries.filter((e) => e.action === 'viewed')).toHaveLength(1);
    expectLinked(h);
  });

  it('an entry written in a transaction that fails is not kept', async () => {
    const doc = await s.client.createDocument({ b64_doc: pdf, stickers: [{ authority: 'EMAIL_LINK', data: 'gil@example.com', ...box }] });
    const { id } = await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', doc.document_ticket).executeTakeFirstOrThrow();
    await expect(
      s.deps.db.transaction().execute(async (trx) => {
        await appendHistory(trx, { documentId: id, at: clock.now(), action: 'signer_updated', actor: 'account' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const h = await s.client.documentHistory(doc.document_ticket);
    expect(h.entries.map((e) => e.action)).toEqual(['created']);
    expectLinked(h);
  });
});

describe('GET /api/v1/document/{documentId}/history/json', () => {
  it("another account's document and an unknown ticket are 404 DOCUMENT_NOT_FOUND", async () => {
    const doc = await s.client.createDocument({ b64_doc: pdf, stickers: [{ authority: 'EMAIL_LINK', data: 'hugo@example.com', ...box }] });
    const other = await s.newAccount('Other');
    const foreign = await apiError(other.client.documentHistory(doc.document_ticket));
    expect([foreign.status, foreign.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    const unknown = await apiError(s.client.documentHistory('00000000-0000-4000-8000-000000000000'));
    expect([unknown.status, unknown.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    // Unsigned: 401 with an empty body, as every /api route.
    const res = await fetch(`${s.baseUrl}/api/v1/document/${doc.document_ticket}/history/json`);
    expect([res.status, await res.text()]).toEqual([401, '']);
  });

  it('is in the OpenAPI document', async () => {
    const spec = (await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as { paths: Record<string, { get?: unknown }> };
    expect(spec.paths['/api/v1/document/{documentId}/history/json']?.get).toBeDefined();
  });
});

describe('tampering', () => {
  it('a changed, a removed middle and a removed last entry break the chain; the API and the CLI say where', async () => {
    now = T0 + 4 * 3600_000;
    const [intact, altered, rehashed, middle, last] = await Promise.all([
      fiveEntries(),
      fiveEntries(),
      fiveEntries(),
      fiveEntries(),
      fiveEntries(),
    ]);
    const db = s.deps.db;

    // Entry 3's details changed: its own hash no longer matches.
    await sql`update document_history set details = '{"to": "completed"}' where ${onEntry(altered, 3)}`.execute(db);
    // Entry 3 changed and re-hashed consistently: entry 4 no longer links to it.
    const e3 = (await s.client.documentHistory(rehashed)).entries[2];
    const forged = { ...e3, details: { to: 'completed' } };
    const forgedHash = entryHash({ document: rehashed, ...forged, at: new Date(forged.at) });
    await sql`update document_history set details = ${JSON.stringify(forged.details)}::jsonb, hash = ${forgedHash} where ${onEntry(rehashed, 3)}`.execute(
      db,
    );
    // A middle entry, and the last one, removed.
    await sql`delete from document_history where ${onEntry(middle, 3)}`.execute(db);
    await sql`delete from document_history where ${onEntry(last, 5)}`.execute(db);

    const chains = await Promise.all([intact, altered, rehashed, middle, last].map(async (t) => (await s.client.documentHistory(t)).chain));
    expect(chains).toEqual([
      { valid: true, entries: 5, first_broken_seq: null },
      { valid: false, entries: 5, first_broken_seq: 3 },
      { valid: false, entries: 5, first_broken_seq: 4 },
      { valid: false, entries: 4, first_broken_seq: 3 },
      { valid: false, entries: 4, first_broken_seq: 5 },
    ]);

    // The command checks with the same code as the API (verify-history.ts): one run per verdict.
    const unknownTicket = '00000000-0000-4000-8000-000000000000';
    const runs = await Promise.all([intact, altered, middle, last, unknownTicket].map((t) => selloHistory([t])));
    const show = (r: { code: number | null; stdout: string; stderr: string }) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
    expect(runs[0].code, show(runs[0])).toBe(0);
    expect(runs[0].stdout).toBe(`history of ${intact}: 5 entries, chain intact\n`);
    const broken: [number, RegExp][] = [
      [1, /^history of \S+: 5 entries, chain broken at entry 3: entry 3 was altered/],
      [2, /^history of \S+: 4 entries, chain broken at entry 3: entry 3 is missing/],
      [3, /^history of \S+: 4 entries, chain broken at entry 5: entry 5 is missing/],
    ];
    for (const [i, re] of broken) {
      expect(runs[i].code, show(runs[i])).toBe(1);
      expect(runs[i].stdout).toMatch(re);
    }
    expect(runs[4].code, show(runs[4])).toBe(2);
    expect(runs[4].stderr).toContain(`no document with ticket ${unknownTicket}`);
    expect(runs[4].stdout).toBe('');
  }, 120_000);
});

describe('concurrent appends', () => {
  it('twenty transactions appending to one document at once make one chain, seq without gaps', async () => {
    const doc = await s.client.createDocument({ b64_doc: pdf, stickers: [{ authority: 'EMAIL_LINK', data: 'ines@example.com', ...box }] });
    const { id } = await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', doc.document_ticket).executeTakeFirstOrThrow();
    // Twenty connections, so all twenty transactions are open together; each holds its append
    // a moment before committing, so the others queue behind it.
    const wide = openDb(s.connectionString, 20);
    try {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          wide.db.transaction().execute(async (trx) => {
            await sql`select 1`.execute(trx);
            await appendHistory(trx, { documentId: id, at: clock.now(), action: 'signer_updated', actor: 'account', details: { n: i } });
            await sql`select pg_sleep(0.01)`.execute(trx);
          }),
        ),
      );
    } finally {
      await wide.close();
    }
    const h = await s.client.documentHistory(doc.document_ticket);
    expect(h.entries.map((e) => e.seq)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(new Set(h.entries.slice(1).map((e) => (e.details as { n: number }).n)).size).toBe(20);
    expectLinked(h);
    const row = await s.deps.db
      .selectFrom('documents')
      .select(['history_head', 'history_count'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ history_head: h.entries[20].hash, history_count: 21 });
  });
});
