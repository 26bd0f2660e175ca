// The account panel's document sets and templates: the lists (the sets' filters and pages, a bad
// filter a 400 naming it), one set as the API shows it, a template's fields, and a trial generation
// with sample values that answers the PDF (read back with pdftotext and checked with qpdf) and
// stores nothing. Another account's set or template is a 404;
// the trial without the CSRF token is refused.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelloClient } from '../../src/client/index.js';
import { panelSession, type PanelSessionForTest } from '../helpers/panel.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const HTML = `<!doctype html><html><head><style>body{font-family:sans-serif}</style></head><body>
<h1>Contrato</h1>
<p>Cliente: <span class="svc-template-field" id="client">CLIENT_PLACEHOLDER</span></p>
<p>Fecha: <span class="svc-template-field" id="date">DATE_PLACEHOLDER</span></p>
</body></html>`;

let s: TestServer;
let a: PanelSessionForTest;
let other: { client: SelloClient };
let mySet = '';
let otherSet = '';

const json = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
};
const failure = async (res: Response) => ({ status: res.status, code: (await res.json()).error?.code });
const template = (name: string) => ({
  template_type: 'html' as const,
  template_name: name,
  template_data: Buffer.from(HTML).toString('base64'),
});
const counts = async () => {
  const [docs, blobs] = await Promise.all([
    s.deps.db
      .selectFrom('documents')
      .select((e) => e.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
    s.deps.db
      .selectFrom('templates')
      .select((e) => e.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { documents: Number(docs.n), templates: Number(blobs.n) };
};

function tool(cmd: string, args: (f: string) => string[], bytes: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'sello-try-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), bytes);
    return execFileSync(cmd, args(join(dir, 'f.pdf')), { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  s = await startTestServer();
  other = await s.newAccount('Other account');
  const pdf = (await makePdf([A4])).toString('base64');
  const set = await s.client.createDocumentSet({ name: 'Onboarding' });
  mySet = set.uuid;
  await s.client.createDocument({
    b64_doc: pdf,
    document_set: set.uuid,
    stickers: [{ authority: 'EMAIL_LINK', data: 'a@example.com', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
  });
  await s.client.createDocumentSet({ name: 'Empty' });
  otherSet = (await other.client.createDocumentSet({ name: 'Their set' })).uuid;
  await s.client.saveTemplate(template('contrato'));
  await other.client.saveTemplate(template('theirs'));
  a = await panelSession(s, s.creds.webId, 'owner@example.com');
});
afterAll(() => s?.close());

describe('document sets', () => {
  it("lists the account's sets newest first with their documents; one set as the API shows it", async () => {
    const list = await json(await a.call('GET', '/panel/api/sets'));
    expect(list.sets.map((x: { name: string; documents: number; status: string }) => [x.name, x.documents, x.status])).toEqual([
      ['Empty', 0, 'OPEN'],
      ['Onboarding', 1, 'OPEN'],
    ]);
    expect(list.nextToken).toBeUndefined();
    const first = await json(await a.call('GET', '/panel/api/sets?limit=1'));
    expect(first.sets.map((x: { name: string }) => x.name)).toEqual(['Empty']);
    const older = await json(await a.call('GET', `/panel/api/sets?limit=1&nextToken=${first.nextToken}`));
    expect(older.sets.map((x: { name: string }) => x.name)).toEqual(['Onboarding']);
    expect(older.nextToken).toBeUndefined();
    expect(await json(await a.call('GET', `/panel/api/sets/${mySet}`))).toEqual(await s.client.getDocumentSet(mySet));
  });

  it('filters by state, by text in the name or the whole uuid, and by creation dates', async () => {
    const closed = await s.client.createDocumentSet({ name: 'Lease 50% batch' });
    await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      document_set: closed.uuid,
      stickers: [{ authority: 'EMAIL_LINK', data: 'b@example.com', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
    });
    await s.client.closeDocumentSet(closed.uuid);
    const names = async (query: string) =>
      (await json(await a.call('GET', `/panel/api/sets?${query}`))).sets.map((x: { name: string }) => x.name);

    expect(await names('')).toEqual(['Lease 50% batch', 'Empty', 'Onboarding']);
    expect(await names('status=CLOSED')).toEqual(['Lease 50% batch']);
    expect(await names('status=OPEN')).toEqual(['Empty', 'Onboarding']);
    expect(await names('status=')).toEqual(['Lease 50% batch', 'Empty', 'Onboarding']);
    expect(await names('status=COMPLETED')).toEqual([]);
    // Case does not matter; the wildcards of SQL are taken as the characters they are.
    expect(await names('q=BOARD')).toEqual(['Onboarding']);
    expect(await names('q=50%25')).toEqual(['Lease 50% batch']);
    expect(await names('q=%25')).toEqual(['Lease 50% batch']);
    expect(await names('q=_')).toEqual([]);
    expect(await names(`q=${mySet}`)).toEqual(['Onboarding']);
    expect(await names('q=Their')).toEqual([]);
    expect(await names('q=batch&status=OPEN')).toEqual([]);

    // One set's own creation millisecond as both ends: the window holds it alone.
    const empty = (await json(await a.call('GET', '/panel/api/sets?q=Empty'))).sets[0];
    const ms = new Date(empty.created_at).getTime();
    expect(await names(`from=${ms}&to=${ms}`)).toEqual(['Empty']);
    expect(await names(`from=${ms}`)).toEqual(['Lease 50% batch', 'Empty']);
    expect(await names(`to=${ms}`)).toEqual(['Empty', 'Onboarding']);
    expect(await names(`to=${ms - 1}&status=OPEN`)).toEqual(['Onboarding']);
  });

  it('refuses a bad filter with a 400 naming it, and the list stays as it was', async () => {
    const before = await json(await a.call('GET', '/panel/api/sets'));
    for (const [query, message] of [
      ['status=open', 'status: expected one of OPEN, CLOSED, COMPLETED, REJECTED, EXPIRED, CANCELLED'],
      ['from=yesterday', 'from: expected a time in milliseconds since the Unix epoch'],
      ['to=-5', 'to: expected a time in milliseconds since the Unix epoch'],
      ['from=2000&to=1000', 'from: must not be later than to'],
      ['limit=0', 'limit: expected a whole number from 1 to 100'],
      ['limit=101', 'limit: expected a whole number from 1 to 100'],
      ['nextToken=not-a-token', 'nextToken: not a token returned by this operation'],
      [`q=${'x'.repeat(201)}`, 'q: at most 200 characters'],
    ]) {
      const res = await a.call('GET', `/panel/api/sets?${query}`);
      expect({ query, status: res.status, message: (await res.json()).error?.message }).toEqual({ query, status: 400, message });
    }
    expect(await json(await a.call('GET', '/panel/api/sets'))).toEqual(before);
  });

  it('pages through sets created in the same instant without skipping or repeating one', async () => {
    const third = await s.newAccount('Paging account');
    const uuids: string[] = [];
    for (const name of ['P1', 'P2', 'P3', 'P4', 'P5']) {
      uuids.push((await third.client.createDocumentSet({ name })).uuid);
    }
    // The same created_at, to the microsecond, for all five: only the id orders them.
    await sql`update document_sets set created_at = (select min(created_at) from document_sets where uuid in (${sql.join(uuids)}))
      where uuid in (${sql.join(uuids)})`.execute(s.deps.db);
    const b = await panelSession(s, third.creds.webId, 'pager@example.com');
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await json(await b.call('GET', `/panel/api/sets?limit=2${token ? `&nextToken=${token}` : ''}`));
      seen.push(...page.sets.map((x: { name: string }) => x.name));
      token = page.nextToken;
      pages++;
    } while (token && pages < 10);
    expect([pages, seen]).toEqual([3, ['P5', 'P4', 'P3', 'P2', 'P1']]);
    // Another account's position is not a place in this list.
    const mine = await json(await a.call('GET', '/panel/api/sets?limit=1'));
    expect((await json(await b.call('GET', `/panel/api/sets?nextToken=${mine.nextToken}`))).sets).toEqual([]);
  });
});

describe('templates', () => {
  it("lists the account's templates and one template's fields, as the API does", async () => {
    expect(await json(await a.call('GET', '/panel/api/templates'))).toEqual(await s.client.listTemplates());
    const fields = await json(await a.call('GET', '/panel/api/templates/contrato/fields'));
    expect(fields).toEqual(await s.client.templateFields('contrato'));
    expect(fields.fields.map((f: { id: string }) => f.id)).toEqual(['client', 'date']);
  });

  it('tries a generation with sample values: the PDF comes back with its warnings, and nothing is stored', async () => {
    const before = await counts();
    const r = await json(
      await a.call('POST', '/panel/api/templates/contrato/try', {
        body: {
          fields: [
            { id: 'client', value: 'Ana Sample' },
            { id: 'extra', value: 'x' },
          ],
        },
      }),
    );
    expect(r.name).toBe('contrato');
    expect(r.warnings).toEqual([
      'fields.date: declared by the template but not sent; left empty',
      'fields.extra: not a field of template "contrato"; ignored',
    ]);
    const pdf = Buffer.from(r.pdf, 'base64');
    expect(tool('pdftotext', (f) => [f, '-'], pdf)).toMatch(/Cliente: Ana Sample/);
    expect(tool('qpdf', (f) => ['--check', f], pdf)).toMatch(/No syntax or stream encoding errors found/);
    expect(await counts()).toEqual(before);

    const badValue = await a.call('POST', '/panel/api/templates/contrato/try', { body: { fields: [{ id: '', value: 'x' }] } });
    expect([badValue.status, (await badValue.json()).error.message]).toEqual([400, 'fields[0].id: required: the field id']);
  });
});

describe('the wall between accounts, and CSRF', () => {
  it("another account's set and template are 404s; the trial needs the CSRF token", async () => {
    for (const [method, path, code] of [
      ['GET', `/panel/api/sets/${otherSet}`, 'DOCUMENT_SET_NOT_FOUND'],
      ['GET', '/panel/api/templates/theirs/fields', 'TEMPLATE_NOT_FOUND'],
      ['POST', '/panel/api/templates/theirs/try', 'TEMPLATE_NOT_FOUND'],
    ]) {
      expect({ path, ...(await failure(await a.call(method, path))) }).toEqual({ path, status: 404, code });
    }
    expect((await json(await a.call('GET', '/panel/api/sets'))).sets.map((x: { uuid: string }) => x.uuid)).not.toContain(otherSet);
    expect(JSON.stringify(await json(await a.call('GET', '/panel/api/templates')))).not.toContain('theirs');
    for (const csrf of [false, 'x'.repeat(43)] as const) {
      const res = await a.call('POST', '/panel/api/templates/contrato/try', { body: {}, csrf });
      expect(await failure(res)).toEqual({ status: 403, code: 'CSRF_TOKEN_INVALID' });
    }
  });
});
