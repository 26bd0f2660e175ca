// The account panel's actions on a document, each through the HMAC API's use case: resend an
// invitation, extend the expiration, cancel the workflow, correct a signer, delete and restore. Each
// works for the session's account, is a 404 for another account's document (which stays as it was),
// and is refused without the session's CSRF token (nothing changes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelloClient } from '../../src/client/index.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { DAY, ddmmyyyy } from '../helpers/dates.js';
import { panelSession, type PanelSessionForTest } from '../helpers/panel.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let a: PanelSessionForTest;
let other: { client: SelloClient };
let otherDoc: { ticket: string; signerId: string; email: string };
let pdf: string;
let seq = 0;

async function newDocument(client: SelloClient, workflow?: Record<string, unknown>) {
  const tag = ++seq;
  const r = await client.createDocument({
    b64_doc: pdf,
    name: `Contract ${tag}`,
    stickers: [
      { authority: 'EMAIL_LINK', data: `ana.${tag}@example.com`, name: 'Ana', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } },
    ],
    ...(workflow ? { workflow } : {}),
  });
  return { ticket: r.document_ticket, signerId: r.stickers[0].signer_id, email: `ana.${tag}@example.com` };
}

const json = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
};
const failure = async (res: Response) => ({ status: res.status, code: (await res.json()).error?.code });
const mailsTo = async (to: string, kind: string) =>
  (await listMessages(s.deps.db, 500)).filter((m) => m.recipient === to && m.kind === kind).length;
const stateOf = async (ticket: string) =>
  s.deps.db.selectFrom('documents').select(['status', 'expires_at', 'workflow']).where('ticket', '=', ticket).executeTakeFirstOrThrow();
const later = (days: number) => ddmmyyyy(s.deps.clock.now().getTime() + days * DAY);

beforeAll(async () => {
  s = await startTestServer();
  pdf = (await makePdf([A4])).toString('base64');
  other = await s.newAccount('Other account');
  otherDoc = await newDocument(other.client, {});
  a = await panelSession(s, s.creds.webId, 'owner@example.com');
});
afterAll(() => s?.close());

describe('document actions', () => {
  it('the document page tells whether the service runs the flow and until when', async () => {
    const running = await newDocument(s.client, { expiration_date: later(10) });
    const page = await json(await a.call('GET', `/panel/api/documents/${running.ticket}`));
    expect(page.workflow).toEqual({ started: true, in_set: false, expires_at: (await stateOf(running.ticket)).expires_at!.toISOString() });
    const none = await newDocument(s.client);
    expect((await json(await a.call('GET', `/panel/api/documents/${none.ticket}`))).workflow).toMatchObject({
      started: false,
      expires_at: null,
    });
  });

  it('resends the invitation to a signer who has not signed, as a reminder; a document without a flow says why', async () => {
    const d = await newDocument(s.client, {});
    expect(await mailsTo(d.email, 'invitation')).toBe(1);
    const r = await json(await a.call('POST', `/panel/api/documents/${d.ticket}/signers/${d.signerId}/resend`));
    expect(r).toEqual({ document_ticket: d.ticket, signer_id: d.signerId, sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(await mailsTo(d.email, 'reminder')).toBe(1);
    const history = await json(await a.call('GET', `/panel/api/documents/${d.ticket}`));
    expect(history.history.entries.map((e: { action: string }) => e.action)).toContain('reminded');

    const unknownSigner = await a.call('POST', `/panel/api/documents/${d.ticket}/signers/nobody/resend`);
    expect(await failure(unknownSigner)).toEqual({ status: 404, code: 'SIGNER_NOT_FOUND' });
    const noFlow = await newDocument(s.client);
    const refused = await a.call('POST', `/panel/api/documents/${noFlow.ticket}/signers/${noFlow.signerId}/resend`);
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toMatchObject({ code: 'WORKFLOW_NOT_CHANGEABLE', message: expect.stringMatching(/no workflow/) });
    expect(await mailsTo(noFlow.email, 'reminder')).toBe(0);
  });

  it('extends the expiration, and refuses a date in the past naming the field', async () => {
    const d = await newDocument(s.client, { expiration_date: later(5) });
    const before = (await stateOf(d.ticket)).expires_at!;
    const r = await json(await a.call('POST', `/panel/api/documents/${d.ticket}/workflow`, { body: { expiration_date: later(20) } }));
    expect(r).toMatchObject({ document_ticket: d.ticket, document_status: 'pending' });
    const after = (await stateOf(d.ticket)).expires_at!;
    expect(after.toISOString()).toBe(r.expires_at);
    expect(after.getTime() - before.getTime()).toBe(15 * DAY);

    const past = await a.call('POST', `/panel/api/documents/${d.ticket}/workflow`, { body: { expiration_date: later(-3) } });
    expect(past.status).toBe(400);
    expect((await past.json()).error.message).toMatch(/^workflow\.expiration_date/);
    expect((await stateOf(d.ticket)).expires_at).toEqual(after);
  });

  it('cancels the workflow; a second cancel is refused', async () => {
    const d = await newDocument(s.client, {});
    const r = await json(await a.call('POST', `/panel/api/documents/${d.ticket}/workflow`, { body: { cancel: true } }));
    expect(r.document_status).toBe('cancelled');
    expect((await stateOf(d.ticket)).status).toBe('cancelled');
    expect(await failure(await a.call('POST', `/panel/api/documents/${d.ticket}/workflow`, { body: { cancel: true } }))).toEqual({
      status: 409,
      code: 'WORKFLOW_NOT_CHANGEABLE',
    });
  });

  it('corrects a signer who has not signed: the new address gets the new link', async () => {
    const d = await newDocument(s.client, {});
    const r = await json(
      await a.call('POST', `/panel/api/documents/${d.ticket}/signers/${d.signerId}/update`, {
        body: { data: 'ana.fixed@example.com', name: 'Ana Fixed' },
      }),
    );
    expect(r.signer).toMatchObject({ data: 'ana.fixed@example.com', name: 'Ana Fixed' });
    expect(await mailsTo('ana.fixed@example.com', 'invitation')).toBe(1);
    const page = await json(await a.call('GET', `/panel/api/documents/${d.ticket}`));
    expect(page.document.signers[0]).toMatchObject({ data: 'ana.fixed@example.com', name: 'Ana Fixed' });

    const bad = await a.call('POST', `/panel/api/documents/${d.ticket}/signers/${d.signerId}/update`, { body: { data: 'not an address' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/^data/);
  });

  it('deletes and restores, to the state the document had', async () => {
    const d = await newDocument(s.client, {});
    expect(await json(await a.call('POST', `/panel/api/documents/${d.ticket}/delete`))).toEqual({
      document_ticket: d.ticket,
      status: 'deleted',
    });
    expect((await stateOf(d.ticket)).status).toBe('deleted');
    const resend = await a.call('POST', `/panel/api/documents/${d.ticket}/signers/${d.signerId}/resend`);
    expect(await failure(resend)).toEqual({ status: 409, code: 'DOCUMENT_DELETED' });
    expect(await json(await a.call('POST', `/panel/api/documents/${d.ticket}/restore`))).toEqual({
      document_ticket: d.ticket,
      status: 'pending',
    });
    expect((await stateOf(d.ticket)).status).toBe('pending');
    expect((await a.call('POST', `/panel/api/documents/${d.ticket}/purge`)).status).toBe(400);
  });
});

const actions = (ticket: string, signerId: string): [string, unknown][] => [
  [`/panel/api/documents/${ticket}/signers/${signerId}/resend`, {}],
  [`/panel/api/documents/${ticket}/signers/${signerId}/update`, { name: 'Mallory' }],
  [`/panel/api/documents/${ticket}/workflow`, { cancel: true }],
  [`/panel/api/documents/${ticket}/workflow`, { expiration_date: later(30) }],
  [`/panel/api/documents/${ticket}/delete`, {}],
  [`/panel/api/documents/${ticket}/restore`, {}],
];

describe('the wall between accounts, and CSRF', () => {
  it("every action on another account's document is a 404, and it is unchanged", async () => {
    const before = await stateOf(otherDoc.ticket);
    const signersBefore = await other.client.listDocuments({ from: 0, to: s.deps.clock.now().getTime() + DAY });
    const remindersBefore = await mailsTo(otherDoc.email, 'reminder');
    for (const [path, body] of actions(otherDoc.ticket, otherDoc.signerId)) {
      expect({ path, ...(await failure(await a.call('POST', path, { body }))) }).toEqual({ path, status: 404, code: 'DOCUMENT_NOT_FOUND' });
    }
    expect(await stateOf(otherDoc.ticket)).toEqual(before);
    expect(await other.client.listDocuments({ from: 0, to: s.deps.clock.now().getTime() + DAY })).toEqual(signersBefore);
    expect(await mailsTo(otherDoc.email, 'reminder')).toBe(remindersBefore);
  });

  it('every action without the CSRF token, or with a wrong one, is refused and changes nothing', async () => {
    const d = await newDocument(s.client, {});
    const before = await stateOf(d.ticket);
    for (const [path, body] of actions(d.ticket, d.signerId)) {
      for (const csrf of [false, 'x'.repeat(43)] as const) {
        expect({ path, ...(await failure(await a.call('POST', path, { body, csrf }))) }).toEqual({
          path,
          status: 403,
          code: 'CSRF_TOKEN_INVALID',
        });
      }
    }
    expect(await stateOf(d.ticket)).toEqual(before);
    expect(await mailsTo(d.email, 'reminder')).toBe(0);
    expect((await json(await a.call('GET', `/panel/api/documents/${d.ticket}`))).document.signers[0].name).toBe('Ana');
  });
});
