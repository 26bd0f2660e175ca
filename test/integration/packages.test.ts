// Packages and consumption (decisions.md "Accounts and packages"): the operator's commands, the
// account's three operations, and exact consumption under concurrency.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelloApiError, SelloClient } from '../../src/client/index.js';
import { parseAccountCommand, runAccountCommand } from '../../src/cli/account.js';
import { UsageError } from '../../src/cli/args.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { apiError } from '../helpers/api-error.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let pdf: string;
const DAY = 86_400_000;

beforeAll(async () => {
  s = await startTestServer();
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(() => s?.close());

const input = () => ({
  b64_doc: pdf,
  name: 'Contrato',
  stickers: [{ authority: 'EMAIL_LINK' as const, data: 'ana@example.com', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
});

/** The operator's command line, in process, on the test server's database. */
async function operator(...argv: string[]): Promise<string> {
  const out: string[] = [];
  const log = console.log;
  console.log = (line: unknown) => out.push(String(line));
  try {
    await runAccountCommand(s.deps, parseAccountCommand(['package', ...argv]));
  } finally {
    console.log = log;
  }
  return out.join('\n');
}

async function packageFor(webId: string, kind: string, pieces: number, days = 30, from?: Date): Promise<{ id: string; used: number }> {
  const args = ['add', '--web-id', webId, '--kind', kind, '--pieces', String(pieces), '--days', String(days), '--json'];
  return JSON.parse(await operator(...args, ...(from ? ['--from', from.toISOString()] : [])));
}

async function documentsOf(client: SelloClient): Promise<number> {
  return (await client.listDocuments({ limit: 500 })).documents.length;
}

describe('an account without packages', () => {
  it('has no limit of any kind, and its documents are counted by origin', async () => {
    const a = await s.newAccount('sin paquetes');
    expect(await a.client.getAccount()).toEqual({
      web_id: a.creds.webId,
      name: 'sin paquetes',
      remaining: { documents: null, verifications: null, messages: null, stamps: null },
    });
    expect(await a.client.listPackages()).toEqual([]);
    await a.client.createDocument(input());
    await a.client.createDocument(input());
    const r = await a.client.consumption();
    expect(r.consumption.documents).toEqual({ total: 2, channels: { b64_doc: 2 } });
    expect(r.consumption.stamps).toEqual({ total: 0, channels: {} });
  });
});

describe('consumption', () => {
  it('50 creates at once against 10 pieces: exactly 10 documents, 40 answers 402 PACKAGE_EXHAUSTED naming the kind', async () => {
    const a = await s.newAccount('diez');
    const pkg = await packageFor(a.creds.webId, 'documents', 10);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => a.client.createDocument(input())));
    const created = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as SelloApiError] : []));
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const e of refused) {
      expect([e.status, e.code, e.details]).toEqual([402, 'PACKAGE_EXHAUSTED', { kind: 'documents' }]);
      expect(e.message).toContain('no documents left');
    }
    expect(await documentsOf(a.client)).toBe(10);
    expect((await a.client.getAccount()).remaining.documents).toBe(0);
    expect(await a.client.listPackages()).toEqual([expect.objectContaining({ id: pkg.id, kind: 'documents', pieces: 10, used: 10 })]);
    expect((await a.client.consumption()).consumption.documents.total).toBe(10);
    // Other kinds stay unlimited.
    expect((await a.client.getAccount()).remaining.messages).toBeNull();
  });

  it('takes from the valid package that expires first, skips expired, future and ended ones, and says what is left', async () => {
    const a = await s.newAccount('orden');
    const now = Date.now();
    const late = await packageFor(a.creds.webId, 'documents', 5, 365);
    const soon = await packageFor(a.creds.webId, 'documents', 2, 10);
    await packageFor(a.creds.webId, 'documents', 100, 10, new Date(now - 20 * DAY)); // expired 10 days ago
    await packageFor(a.creds.webId, 'documents', 100, 10, new Date(now + 5 * DAY)); // not yet valid
    expect((await a.client.getAccount()).remaining.documents).toBe(7);
    await a.client.createDocument(input());
    await a.client.createDocument(input());
    await a.client.createDocument(input());
    const used = Object.fromEntries((await a.client.listPackages()).map((p) => [p.id, p.used]));
    expect([used[soon.id], used[late.id]]).toEqual([2, 1]);
    expect((await a.client.getAccount()).remaining.documents).toBe(4);

    // Ended by the operator: it gives nothing more, and what it gave stays counted.
    expect(await operator('end', '--web-id', a.creds.webId, '--id', late.id)).toMatch(
      new RegExp(`^ended ${late.id}\\tdocuments\\t1/5 used\\tended `),
    );
    expect((await a.client.getAccount()).remaining.documents).toBe(0);
    const e = await apiError(a.client.createDocument(input()));
    expect([e.status, e.code]).toEqual([402, 'PACKAGE_EXHAUSTED']);
    expect(await documentsOf(a.client)).toBe(3);
    expect((await a.client.consumption()).consumption.documents.total).toBe(3);
  });

  it('a refused create changes nothing: no document, no piece, no consumption', async () => {
    const a = await s.newAccount('nada');
    await packageFor(a.creds.webId, 'documents', 1);
    await a.client.createDocument(input());
    const before = (await a.client.consumption()).consumption;
    await apiError(a.client.createDocument(input()));
    await apiError(a.client.createDocument({ ...input(), b64_doc: 'not a pdf' }));
    expect((await a.client.consumption()).consumption).toEqual(before);
    expect((await a.client.listPackages())[0].used).toBe(1);
    expect(await documentsOf(a.client)).toBe(1);
  });
});

describe('stamps', () => {
  it('a NOM-151 stamp takes a stamps piece: the second of one is 402, nothing stored, and the report counts it by channel', async () => {
    const a = await s.newAccount('sellos');
    await packageFor(a.creds.webId, 'stamps', 1);
    const hash = createHash('sha256').update('contrato').digest('hex');
    expect((await a.client.stampHash(hash)).hash).toBe(hash);
    const e = await apiError(a.client.stampHash(hash));
    expect([e.status, e.code, e.details]).toEqual([402, 'PACKAGE_EXHAUSTED', { kind: 'stamps' }]);
    expect((await a.client.consumption()).consumption.stamps).toEqual({ total: 1, channels: { hash: 1 } });
    const stored = await sql<{ n: string }>`select count(*) as n from stamps s join accounts a on a.id = s.account_id
                                            where a.web_id = ${a.creds.webId}`.execute(s.deps.db);
    expect(Number(stored.rows[0].n)).toBe(1);
    // Documents stay unlimited: the account has no documents package.
    expect((await a.client.getAccount()).remaining).toMatchObject({ documents: null, stamps: 0 });
  });
});

describe('GET /api/account/consumption', () => {
  it('counts between from (inclusive) and to (exclusive), and names a bad bound', async () => {
    const a = await s.newAccount('fechas');
    const t0 = Date.now();
    await a.client.createDocument(input());
    const t1 = Date.now() + 1;
    expect((await a.client.consumption({ from: t0 - 1000, to: t1 })).consumption.documents.total).toBe(1);
    expect((await a.client.consumption({ from: t1, to: t1 + DAY })).consumption.documents.total).toBe(0);
    expect((await a.client.consumption({ from: t0 - 2 * DAY, to: t0 - DAY })).consumption.documents.total).toBe(0);
    const bad = await a.client.raw('GET', '/api/account/consumption?from=yesterday');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(JSON.parse(bad.text).error.message).toMatch(/^from: /);
    const reversed = await a.client.raw('GET', `/api/account/consumption?from=${t1}&to=${t0}`);
    expect([reversed.status, JSON.parse(reversed.text).error.message]).toEqual([400, 'from: must be before to']);
  });

  it("another account's consumption and packages are not seen", async () => {
    const a = await s.newAccount('uno');
    const b = await s.newAccount('dos');
    await packageFor(a.creds.webId, 'stamps', 3);
    await a.client.createDocument(input());
    expect(await b.client.listPackages()).toEqual([]);
    expect((await b.client.consumption()).consumption.documents.total).toBe(0);
  });
});

describe('sello account package', () => {
  it('add, list and end, in text and JSON; mistakes are named before the database is touched', async () => {
    const a = await s.newAccount('cli');
    const added = await packageFor(a.creds.webId, 'messages', 250, 90);
    const listed = await operator('list', '--web-id', a.creds.webId);
    expect(listed).toMatch(new RegExp(`^${added.id}\\tmessages\\t0/250 used\\t\\S+ \\.\\. \\S+$`));
    expect(JSON.parse(await operator('list', '--web-id', a.creds.webId, '--json'))).toEqual([
      expect.objectContaining({ id: added.id, pieces: 250 }),
    ]);
    const b = await s.newAccount('vacía');
    expect(await operator('list', '--web-id', b.creds.webId)).toBe('no packages: every kind is unlimited for this account');

    expect(() => parseAccountCommand(['package', 'add', '--web-id', 'x', '--kind', 'documents', '--pieces', '5'])).toThrow(
      /--days N or --to DATE/,
    );
    expect(() =>
      parseAccountCommand(['package', 'add', '--web-id', 'x', '--kind', 'documents', '--pieces', 'many', '--days', '5']),
    ).toThrow(/--pieces: expected a whole number/);
    expect(() =>
      parseAccountCommand(['package', 'add', '--web-id', 'x', '--kind', 'documents', '--pieces', '5', '--to', 'tomorrow']),
    ).toThrow(/--to: expected an ISO 8601 date/);
    expect(() => parseAccountCommand(['package', 'frobnicate'])).toThrow(UsageError);
    await expect(operator('add', '--web-id', a.creds.webId, '--kind', 'pages', '--pieces', '5', '--days', '5')).rejects.toThrow(
      /kind: expected one of documents, verifications, messages, stamps/,
    );
    await expect(operator('add', '--web-id', 'no-such-account', '--kind', 'stamps', '--pieces', '5', '--days', '5')).rejects.toThrow(
      /no account with web id no-such-account/,
    );
    await expect(operator('end', '--web-id', a.creds.webId, '--id', 'no-such-package')).rejects.toThrow(/no package no-such-package/);
  });
});
