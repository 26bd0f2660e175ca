// The account panel's API with a session: documents (search, filters, paging, the document page and
// its downloads), webhook URL, secret and delivery log, API keys, usage; and the wall between
// accounts: a session of account A reaches none of account B's objects and changes nothing of B.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloClient } from '../../src/client/index.js';
import { setAccountWebhook } from '../../src/domain/accounts/set-webhook.js';
import { emitEvent } from '../../src/domain/events/emit-event.js';
import { findAccountByWebId } from '../../src/store/accounts-repo.js';
import { apiError } from '../helpers/api-error.js';
import { panelSession, type PanelSessionForTest } from '../helpers/panel.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let a: PanelSessionForTest;
let other: { client: SelloClient; creds: { webId: string; apiKey: string } };
const tickets: Record<string, string> = {};
let otherTicket = '';
let otherDelivery = '';

async function newDocument(client: SelloClient, name: string, signer: { email: string; name: string }) {
  const r = await client.createDocument({
    b64_doc: (await makePdf([A4])).toString('base64'),
    name,
    stickers: [{ authority: 'EMAIL_LINK', data: signer.email, name: signer.name, page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
  });
  return r.document_ticket;
}

async function emitFor(webId: string, ticket: string) {
  const account = (await findAccountByWebId(s.deps.db, webId))!;
  const doc = await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', ticket).executeTakeFirstOrThrow();
  return s.deps.db
    .transaction()
    .execute((trx) => emitEvent(trx, s.deps, { accountId: account.id, documentId: doc.id, kind: 'document_completed', meta: {} }));
}

beforeAll(async () => {
  s = await startTestServer();
  tickets.lease = await newDocument(s.client, 'Lease 2026', { email: 'carla@example.com', name: 'Carla Ruiz' });
  tickets.nda = await newDocument(s.client, 'NDA', { email: 'dan@example.com', name: 'Dan Smith' });
  tickets.offer = await newDocument(s.client, 'Offer 50%', { email: 'eva@example.com', name: 'Eva Luna' });
  await s.client.deleteDocument(tickets.nda);
  other = await s.newAccount('Other account');
  otherTicket = await newDocument(other.client, 'Secret plan', { email: 'carla@example.com', name: 'Carla Ruiz' });
  await setAccountWebhook(s.deps, { webId: other.creds.webId, url: 'http://192.0.2.1/hooks' });
  await setAccountWebhook(s.deps, { webId: s.creds.webId, url: 'http://192.0.2.1/mine' });
  await emitFor(other.creds.webId, otherTicket);
  await emitFor(s.creds.webId, tickets.lease);
  otherDelivery = (await other.client.listWebhookDeliveries()).deliveries[0].id;
  a = await panelSession(s, s.creds.webId, 'owner@example.com');
});
afterAll(() => s?.close());

const json = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
};
// Names keep the .pdf the service gives a document created from bytes; the list shows them without it.
const names = (r: { documents: { name: string }[] }) => r.documents.map((d) => d.name.replace(/\.pdf$/, ''));

describe('documents', () => {
  it('lists newest first with progress, searches by name and by signer, filters by state and dates, pages', async () => {
    const all = await json(await a.call('GET', '/panel/api/documents'));
    expect(names(all)).toEqual(['Offer 50%', 'NDA', 'Lease 2026']);
    expect(all.documents[2]).toMatchObject({
      status: 'pending',
      signed_count: 0,
      signers: [{ email: 'carla@example.com', status: 'pending' }],
    });
    expect(names(await json(await a.call('GET', '/panel/api/documents?q=lease')))).toEqual(['Lease 2026']);
    expect(names(await json(await a.call('GET', '/panel/api/documents?q=CARLA%40example')))).toEqual(['Lease 2026']);
    expect(names(await json(await a.call('GET', '/panel/api/documents?q=smith')))).toEqual(['NDA']);
    // The search's wildcards are literal: "50%" finds the one name with "50%".
    expect(names(await json(await a.call('GET', '/panel/api/documents?q=50%25')))).toEqual(['Offer 50%']);
    expect(names(await json(await a.call('GET', '/panel/api/documents?status=deleted')))).toEqual(['NDA']);
    const created = (await json(await a.call('GET', '/panel/api/documents'))).documents.map((d: { created_at: string }) =>
      Date.parse(d.created_at),
    );
    expect(names(await json(await a.call('GET', `/panel/api/documents?from=${created[1]}&to=${created[1]}`)))).toEqual(['NDA']);
    expect(names(await json(await a.call('GET', `/panel/api/documents?to=${created[2]}`)))).toEqual(['Lease 2026']);

    const first = await json(await a.call('GET', '/panel/api/documents?limit=2'));
    expect(names(first)).toEqual(['Offer 50%', 'NDA']);
    const second = await json(await a.call('GET', `/panel/api/documents?limit=2&nextToken=${first.nextToken}`));
    expect(names(second)).toEqual(['Lease 2026']);
    expect(second.nextToken).toBeUndefined();
  });

  it('a bad filter is a 400 naming it', async () => {
    for (const [q, field] of [
      ['status=sideways', 'status'],
      ['from=yesterday', 'from'],
      ['limit=0', 'limit'],
      [`q=${'x'.repeat(201)}`, 'q'],
    ]) {
      const res = await a.call('GET', `/panel/api/documents?${q}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toMatch(new RegExp(`^(querystring\\.)?${field}`));
    }
  });

  it("a document's page: its signers, its history with the chain's verdict; its downloads", async () => {
    const page = await json(await a.call('GET', `/panel/api/documents/${tickets.lease}`));
    expect(page.document).toMatchObject({ document_ticket: tickets.lease, name: 'Lease 2026.pdf', signers: [{ name: 'Carla Ruiz' }] });
    expect(page.history.chain).toMatchObject({ valid: true, first_broken_seq: null });
    expect(page.history.entries[0].action).toBe('created');

    const original = await a.call('GET', `/panel/api/documents/${tickets.lease}/files/original`);
    expect(original.headers.get('content-type')).toBe('application/pdf');
    expect(original.headers.get('content-disposition')).toBe(
      `attachment; filename="Lease 2026-original.pdf"; filename*=UTF-8''Lease%202026-original.pdf`,
    );
    const bytes = Buffer.from(await original.arrayBuffer());
    const viaApi = await s.client.downloadDocument('original', tickets.lease);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(viaApi.hash);
    expect((await a.call('GET', `/panel/api/documents/${tickets.lease}/files/source`)).status).toBe(200);
    const universal = await a.call('GET', `/panel/api/documents/${tickets.lease}/files/universal`);
    expect([universal.status, (await universal.json()).error.code]).toEqual([409, 'NOT_YET_AVAILABLE']);

    const report = await a.call('GET', `/panel/api/documents/${tickets.lease}/report`);
    expect(report.headers.get('content-disposition')).toContain(`report-${tickets.lease}.json`);
    expect(await report.json()).toEqual(await s.client.signatureReport(tickets.lease));
    const historyPdf = await a.call('GET', `/panel/api/documents/${tickets.lease}/history.pdf`);
    expect(historyPdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await historyPdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    // In the panel's language, es or en: another is a 400 naming it, as in the API.
    const french = await a.call('GET', `/panel/api/documents/${tickets.lease}/history.pdf?lang=fr`);
    expect(french.status).toBe(400);
    expect((await french.json()).error.message).toMatch(/^querystring\.lang: /);
  });
});

describe('webhook', () => {
  it('shows the URL, sets a new one with a new secret, rotates the secret (shown once)', async () => {
    expect(await json(await a.call('GET', '/panel/api/webhook'))).toEqual({ url: 'http://192.0.2.1/mine', secret_set: true });
    const set = await json(await a.call('POST', '/panel/api/webhook', { body: { url: 'https://hooks.example.com/sello' } }));
    expect(set).toEqual({ url: 'https://hooks.example.com/sello', secret: expect.stringMatching(/^whsec_/) });
    const rotated = await json(await a.call('POST', '/panel/api/webhook/secret'));
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(set.secret);
    const sealed = (
      await s.deps.db.selectFrom('accounts').select('webhook_secret_enc').where('web_id', '=', s.creds.webId).executeTakeFirstOrThrow()
    ).webhook_secret_enc!;
    expect(s.deps.secrets.open(sealed).toString()).toBe(rotated.secret);
    expect(JSON.stringify(await json(await a.call('GET', '/panel/api/webhook')))).not.toContain('whsec_');
    const bad = await a.call('POST', '/panel/api/webhook', { body: { url: 'ftp://x' } });
    expect([bad.status, (await bad.json()).error.message]).toEqual([400, 'url: expected an absolute http(s) URL']);
  });

  it('a test event to an address the service refuses to reach says so, and is not logged', async () => {
    await json(await a.call('POST', '/panel/api/webhook', { body: { url: 'http://192.0.2.1/mine' } }));
    const r = await json(await a.call('POST', '/panel/api/webhook/test'));
    expect(r).toMatchObject({
      url: 'http://192.0.2.1/mine',
      delivered: false,
      status: null,
      error: expect.stringMatching(/^ADDRESS_NOT_ALLOWED/),
    });
    expect((await json(await a.call('GET', '/panel/api/webhook/deliveries'))).deliveries).toHaveLength(1);
  });

  it('lists its deliveries and sends one again', async () => {
    const log = await json(await a.call('GET', '/panel/api/webhook/deliveries'));
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]).toMatchObject({ event: 'document_completed', document_ticket: tickets.lease, state: 'pending' });
    const again = await json(await a.call('POST', `/panel/api/webhook/deliveries/${log.deliveries[0].id}/retry`));
    expect(again).toMatchObject({ id: log.deliveries[0].id, state: 'pending' });
  });
});

describe('API keys', () => {
  it('lists keys without secrets; creates one; rotates one (the old refused at once); revokes', async () => {
    const listed = await json(await a.call('GET', '/panel/api/keys'));
    expect(listed.max_active).toBe(2);
    expect(JSON.stringify(listed)).not.toContain(s.creds.apiKey);
    const active = listed.keys.filter((k: { active: boolean }) => k.active);
    expect(active).toHaveLength(1);

    const rotated = await json(await a.call('POST', `/panel/api/keys/${active[0].id}/rotate`));
    expect(rotated).toMatchObject({ replaced: active[0].id, api_key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const oldClient = s.client;
    expect((await apiError(oldClient.getAccount())).status).toBe(401);
    const newClient = new SelloClient({ baseUrl: s.baseUrl, webId: s.creds.webId, apiKey: rotated.api_key });
    expect((await newClient.getAccount()).web_id).toBe(s.creds.webId);

    const created = await json(await a.call('POST', '/panel/api/keys'));
    const third = new SelloClient({ baseUrl: s.baseUrl, webId: s.creds.webId, apiKey: created.api_key });
    expect((await third.getAccount()).web_id).toBe(s.creds.webId);
    await json(await a.call('POST', `/panel/api/keys/${created.id}/revoke`));
    expect((await apiError(third.getAccount())).status).toBe(401);
    expect((await newClient.getAccount()).web_id).toBe(s.creds.webId);
    const revokedAgain = await a.call('POST', `/panel/api/keys/${created.id}/revoke`);
    expect([revokedAgain.status, (await revokedAgain.json()).error.code]).toEqual([404, 'API_KEY_NOT_FOUND']);
    s.client = newClient;
  });
});

describe('usage', () => {
  it('reports what is left, the packages and six months of consumption, as /api/account does', async () => {
    const usage = await json(await a.call('GET', '/panel/api/usage'));
    expect(usage.remaining).toEqual((await s.client.getAccount()).remaining);
    expect(usage.packages).toEqual(await s.client.listPackages());
    expect(usage.months).toHaveLength(6);
    expect(usage.months[5].consumption.documents.total).toBe(3);
    expect(Date.parse(usage.months[5].from)).toBe(Date.parse(usage.months[4].to));
  });
});

describe('another account', () => {
  it("a session of account A gets a 404 for every one of account B's objects, and B is unchanged", async () => {
    const keyOfOther = (
      await s.deps.db
        .selectFrom('api_keys as k')
        .innerJoin('accounts as c', 'c.id', 'k.account_id')
        .select('k.id')
        .where('c.web_id', '=', other.creds.webId)
        .executeTakeFirstOrThrow()
    ).id;
    const before = await snapshot();
    const probes: [string, string, string][] = [
      ['GET', `/panel/api/documents/${otherTicket}`, 'DOCUMENT_NOT_FOUND'],
      ['GET', `/panel/api/documents/${otherTicket}/files/original`, 'DOCUMENT_NOT_FOUND'],
      ['GET', `/panel/api/documents/${otherTicket}/files/source`, 'DOCUMENT_NOT_FOUND'],
      ['GET', `/panel/api/documents/${otherTicket}/files/universal`, 'DOCUMENT_NOT_FOUND'],
      ['GET', `/panel/api/documents/${otherTicket}/report`, 'DOCUMENT_NOT_FOUND'],
      ['GET', `/panel/api/documents/${otherTicket}/history.pdf`, 'DOCUMENT_NOT_FOUND'],
      ['POST', `/panel/api/webhook/deliveries/${otherDelivery}/retry`, 'DELIVERY_NOT_FOUND'],
      ['POST', `/panel/api/keys/${keyOfOther}/rotate`, 'API_KEY_NOT_FOUND'],
      ['POST', `/panel/api/keys/${keyOfOther}/revoke`, 'API_KEY_NOT_FOUND'],
    ];
    for (const [method, path, code] of probes) {
      const res = await a.call(method, path);
      expect({ path, status: res.status, code: (await res.json()).error.code }).toEqual({ path, status: 404, code });
    }
    // The lists and the account-wide endpoints show only A's.
    const listed = await json(await a.call('GET', '/panel/api/documents?q=carla'));
    expect(listed.documents.map((d: { document_ticket: string }) => d.document_ticket)).toEqual([tickets.lease]);
    const deliveries = await json(await a.call('GET', '/panel/api/webhook/deliveries'));
    expect(deliveries.deliveries.map((d: { id: string }) => d.id)).not.toContain(otherDelivery);
    const keys = await json(await a.call('GET', '/panel/api/keys'));
    expect(keys.keys.map((k: { id: string }) => k.id)).not.toContain(keyOfOther);
    await json(await a.call('POST', '/panel/api/webhook/secret'));
    await json(await a.call('POST', '/panel/api/webhook', { body: { url: 'https://mine.example.com/' } }));
    await json(await a.call('POST', '/panel/api/keys'));
    expect((await json(await a.call('GET', '/panel/api/session'))).account.web_id).toBe(s.creds.webId);

    expect(await snapshot()).toEqual(before);
    expect((await other.client.getAccount()).web_id).toBe(other.creds.webId);
  });
});

/** Everything of account B a panel change could touch. */
async function snapshot() {
  const r = await sql<Record<string, unknown>>`
    select c.webhook_url, encode(c.webhook_secret_enc, 'hex') as secret,
      (select json_agg(json_build_object('id', k.id, 'active', k.active) order by k.id) from api_keys k where k.account_id = c.id) as keys,
      (select json_agg(json_build_object('ticket', d.ticket, 'status', d.status, 'original', d.original_sha256) order by d.id)
         from documents d where d.account_id = c.id) as documents,
      (select json_agg(json_build_object('id', n.id, 'state', n.state, 'attempts', n.attempts, 'next', n.next_attempt_at) order by n.id)
         from notification_deliveries n join notifications nn on nn.id = n.notification_id where nn.account_id = c.id) as deliveries
    from accounts c where c.web_id = ${other.creds.webId}`.execute(s.deps.db);
  return r.rows[0];
}
