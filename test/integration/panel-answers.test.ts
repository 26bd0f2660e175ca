// Every answer of the panel's API carries every field its handler returned. Fastify serialises a
// JSON answer through the route's response schema and silently drops what the schema does not name,
// so a field the page reads (web/src/panel/, whose types are the same schemas') would vanish if a
// schema forgot it. The panel's routes are mounted here as the service mounts them, with one hook
// that keeps what each handler returned before serialisation; every route is called with data that
// fills its arrays, and each answer must equal, as JSON, what the handler returned. Every route must
// have a response schema for its success and for client errors, and every route must be called.
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountWebhook } from '../../src/domain/accounts/set-webhook.js';
import { emitEvent } from '../../src/domain/events/emit-event.js';
import { stampDocumentRendition } from '../../src/domain/nom151/stamp-document.js';
import { addPackage } from '../../src/domain/packages/manage-packages.js';
import { runBulk } from '../../src/domain/bulk/run-bulk.js';
import { invitePanelUser } from '../../src/domain/panel/invite-panel-user.js';
import { handleError } from '../../src/http/errors.js';
import { panelApiRoutes } from '../../src/http/panel/index.js';
import { validatorCompiler } from '../../src/http/validation.js';
import { findAccountByWebId } from '../../src/store/accounts-repo.js';
import { signInTokenFor } from '../helpers/panel.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { holdUntilFloor } from '../../src/http/answer-floor.js';
import { SharedRequestCounts } from '../../src/http/rate-limit.js';

const HTML = `<!doctype html><html><body>
<p>Cliente: <span class="svc-template-field" id="client">CLIENT</span></p>
<table class="svc-template-table" id="items"><tr><td class="svc-template-field" id="item">ITEM</td></tr></table>
</body></html>`;

let s: TestServer;
let panel: FastifyInstance;
/** Each panel route (`METHOD url`) and its schema, as registered. */
const routes = new Map<string, { response?: Record<string, unknown> }>();
/** What the handler of the last request returned, before serialisation; absent for a file sent as bytes. */
let returned: { value: unknown } | undefined;
const called = new Set<string>();
let cookie = '';
let csrf = '';

async function mountPanel(): Promise<FastifyInstance> {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(handleError);
  // As app.ts does; the floor itself is the sign-in tests' subject, not this one's.
  app.decorate(
    'answerFloor',
    holdUntilFloor(async () => {}),
  );
  // The sign-in links' limit counts here, as app.ts decorates it (not exchanged: one process).
  app.decorate('requestCounts', new SharedRequestCounts({ db: s.deps.db, nowMs: () => Date.now() }));
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) {
      if (method !== 'HEAD') {
        routes.set(`${method} ${r.url}`, (r.schema ?? {}) as { response?: Record<string, unknown> });
      }
    }
  });
  app.addHook('onRequest', async (req) => {
    returned = undefined;
    called.add(`${req.method} ${req.routeOptions.url}`);
  });
  app.addHook('preSerialization', async (_req, _reply, payload) => {
    returned = { value: payload };
    return payload;
  });
  await app.register(panelApiRoutes(s.deps));
  await app.ready();
  return app;
}

/** Calls the panel; the answer must be what the handler returned, field for field. */
async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { cookie, ...extra };
  if (method !== 'GET') {
    headers['x-csrf-token'] = csrf;
  }
  const res = await panel.inject({ method, url, headers, ...(method === 'GET' ? {} : { payload: (body ?? {}) as object }) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  if ((res.headers['content-type'] ?? '').toString().startsWith('application/json') && returned) {
    expect(res.json(), `${method} ${url}`).toEqual(JSON.parse(JSON.stringify(returned.value)));
  }
  return res;
}

async function documentId(ticket: string): Promise<string> {
  const d = await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', ticket).executeTakeFirstOrThrow();
  return String(d.id);
}

async function seed() {
  const pdf = (await makePdf([A4])).toString('base64');
  const sticker = (email: string) => ({
    authority: 'EMAIL_LINK' as const,
    data: email,
    name: 'Ana',
    page: 0,
    rect: { lx: 50, ly: 50, tx: 250, ty: 120 },
  });
  const running = await s.client.createDocument({ b64_doc: pdf, name: 'Running', stickers: [sticker('ana@example.com')], workflow: {} });
  const signed = await s.client.createDocument({ b64_doc: pdf, name: 'Signed', stickers: [sticker('eva@example.com')] });
  const token = signed.stickers[0].signer_url.split('/').pop()!;
  const signing = await fetch(`${s.baseUrl}/sign/api/${token}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signature: { type: 'typed', text: 'Eva' }, consent: true }),
  });
  expect(signing.status).toBe(200);
  expect(await stampDocumentRendition(s.deps, { documentId: await documentId(signed.document_ticket), rendition: 'original' })).toBe(
    'stamped',
  );
  const set = await s.client.createDocumentSet({ name: 'Onboarding' });
  await s.client.createDocument({ b64_doc: pdf, document_set: set.uuid, stickers: [sticker('bob@example.com')] });
  await s.client.saveTemplate({ template_type: 'html', template_name: 'contrato', template_data: Buffer.from(HTML).toString('base64') });
  await addPackage(s.deps, { webId: s.creds.webId, kind: 'documents', pieces: 100, days: 30 });
  await setAccountWebhook(s.deps, { webId: s.creds.webId, url: 'http://192.0.2.1/hooks' });
  const account = (await findAccountByWebId(s.deps.db, s.creds.webId))!;
  const id = await documentId(signed.document_ticket);
  await s.deps.db
    .transaction()
    .execute((trx) => emitEvent(trx, s.deps, { accountId: account.id, documentId: id, kind: 'document_completed', meta: {} }));
  return { running, signed: signed.document_ticket, set: set.uuid };
}

let data: Awaited<ReturnType<typeof seed>>;
beforeAll(async () => {
  s = await startTestServer();
  data = await seed();
  panel = await mountPanel();
  await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'owner@example.com' });
}, 120_000);
afterAll(async () => {
  await panel?.close();
  await s?.close();
});

const json = async (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, extra?: Record<string, string>) =>
  (await call(method, url, body, extra)).json();

describe('the panel answers every field its handler returned', () => {
  it('signing in, and the session', async () => {
    // The operator's brand, shown on the sign-in page before anyone signs in.
    expect((await call('GET', '/panel/api/operator-brand')).statusCode).toBe(200);
    await call('POST', '/panel/api/sign-in/request', { email: 'owner@example.com', language: 'en' });
    const signedIn = await call('POST', '/panel/api/sign-in', { token: await signInTokenFor(s, 'owner@example.com') });
    cookie = String(signedIn.headers['set-cookie']).split(';')[0];
    csrf = (await json('GET', '/panel/api/session')).csrf_token;
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('documents: the list, one document, its files, report, history and stamps', async () => {
    const t = data.running.document_ticket;
    expect((await json('GET', '/panel/api/documents?limit=1')).nextToken).toBeDefined();
    expect(Object.keys((await json('GET', `/panel/api/documents/${t}`)).people)).toHaveLength(1);
    expect((await call('GET', `/panel/api/documents/${data.signed}/files/original`)).headers['content-type']).toBe('application/pdf');
    expect((await call('GET', `/panel/api/documents/${data.signed}/report`)).json().firmas).toHaveLength(1);
    expect((await call('GET', `/panel/api/documents/${t}/history.pdf?lang=en`)).headers['content-type']).toBe('application/pdf');
    const stamps = (await json('GET', `/panel/api/documents/${data.signed}/stamps`)).stamps;
    expect(stamps).toHaveLength(1);
    await call('GET', `/panel/api/documents/${data.signed}/stamps/${stamps[0].hash}/pdf`);
  });

  it('document actions', async () => {
    const t = data.running.document_ticket;
    const signerId = data.running.stickers[0].signer_id;
    await call('POST', `/panel/api/documents/${t}/signers/${signerId}/resend`);
    await call('POST', `/panel/api/documents/${t}/signers/${signerId}/update`, { name: 'Ana María' });
    await call('POST', `/panel/api/documents/${t}/workflow`, { remind_every: 2 });
    await call('POST', `/panel/api/documents/${t}/delete`);
    await call('POST', `/panel/api/documents/${t}/restore`);
  });

  it('sets and templates', async () => {
    expect((await json('GET', '/panel/api/sets')).sets).toHaveLength(1);
    expect((await json('GET', `/panel/api/sets/${data.set}`)).documents).toHaveLength(1);
    expect((await json('GET', '/panel/api/templates')).templates).toHaveLength(1);
    expect((await json('GET', '/panel/api/templates/contrato/fields')).tables).toHaveLength(1);
    const trial = await json('POST', '/panel/api/templates/contrato/try', {
      fields: [{ id: 'client', value: 'Ana' }],
      tables: [{ id: 'items', rows: [{ item: 'one' }] }],
    });
    expect(trial.pdf.length).toBeGreaterThan(0);
  });

  it('a document prepared in the panel, sent', async () => {
    const created = await json('POST', '/panel/api/documents', {
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Prepared',
      stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }],
      workflow: { remind_every: 0 },
    });
    expect(created.stickers).toHaveLength(1);
  });

  it('API keys', async () => {
    const created = await json('POST', '/panel/api/keys');
    expect((await json('GET', '/panel/api/keys')).keys.length).toBeGreaterThan(1);
    const rotated = await json('POST', `/panel/api/keys/${created.id}/rotate`);
    await call('POST', `/panel/api/keys/${rotated.id}/revoke`);
  });

  it('the webhook, its deliveries and the subscriptions', async () => {
    await call('GET', '/panel/api/webhook');
    await call('POST', '/panel/api/webhook/secret');
    await call('POST', '/panel/api/webhook/test');
    const deliveries = (await json('GET', '/panel/api/webhook/deliveries')).deliveries;
    expect(deliveries).toHaveLength(1);
    await call('POST', `/panel/api/webhook/deliveries/${deliveries[0].id}/retry`);
    const sub = await json('POST', '/panel/api/webhook/subscriptions', { event: 'document_completed', url: 'https://hooks.example.com/a' });
    expect((await json('GET', '/panel/api/webhook/subscriptions')).subscriptions).toHaveLength(1);
    await call('DELETE', `/panel/api/webhook/subscriptions/${sub.id}`);
    await call('POST', '/panel/api/webhook', { url: 'https://hooks.example.com/mine' });
  });

  it('usage', async () => {
    expect((await json('GET', '/panel/api/usage')).packages).toHaveLength(1);
  });

  it('the brand', async () => {
    expect((await call('GET', '/panel/api/brand')).statusCode).toBe(200);
    expect((await json('POST', '/panel/api/brand', { brand_name: 'Notaría 12' })).brand_name).toBe('Notaría 12');
  });

  it('bulk send: a run started, one run and its rows, the list of runs', async () => {
    const pdf = (await makePdf([A4])).toString('base64');
    const body = {
      b64_doc: pdf,
      stickers: [
        { authority: 'EMAIL_LINK', data: '{{row.email}}', name: '{{row.name}}', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } },
      ],
      rows: [
        { name: 'Ana', email: 'ana@example.com' },
        { name: 'Bob', email: 'not an address' },
      ],
    };
    const started = await json('POST', '/panel/api/bulk', body, { 'idempotency-key': 'panel-answers-1' });
    const run = await s.deps.db.selectFrom('bulk_runs').select('id').where('bulk_id', '=', started.bulk_id).executeTakeFirstOrThrow();
    expect(await runBulk(s.deps, { runId: run.id })).toBe('finished');
    const one = await json('GET', `/panel/api/bulk/${started.bulk_id}`);
    expect(one.rows.map((r: { document_ticket?: string; error?: unknown }) => Boolean(r.document_ticket))).toEqual([true, false]);
    const list = await json('GET', '/panel/api/bulk');
    expect(list.runs.map((r: { bulk_id: string; created: number; refused: number }) => [r.bulk_id, r.created, r.refused])).toEqual([
      [started.bulk_id, 1, 1],
    ]);
    expect(list.max_rows).toBe(s.deps.config.limits.bulkRows);
  });

  it('signing out', async () => {
    expect((await call('POST', '/panel/api/sign-out')).statusCode).toBe(204);
  });

  it('every panel route has response schemas, and was called above', () => {
    expect(routes.size).toBeGreaterThan(30);
    const withoutSchemas = [...routes]
      .filter(([, schema]) => {
        const statuses = Object.keys(schema.response ?? {});
        return !statuses.some((x) => /^2/.test(x)) || !statuses.includes('4xx');
      })
      .map(([route]) => route);
    expect(withoutSchemas).toEqual([]);
    expect([...routes.keys()].filter((r) => !called.has(r))).toEqual([]);
  });
});
