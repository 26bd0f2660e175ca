// The account panel's actions on a document, each through the HMAC API's use case: resend an
// invitation, extend the expiration, cancel the workflow, correct a signer (its authority too),
// delete and restore; a document's NOM-151 stamps with the bytes each covers; the webhook's
// per-event subscriptions. Each works for the session's account, is a 404 for another account's
// object (which stays as it was), and each change is refused without the session's CSRF token
// (nothing changes).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelloClient } from '../../src/client/index.js';
import { stampDocumentRendition } from '../../src/domain/nom151/stamp-document.js';
import { derToPem } from '../../src/pki/index.js';
import { listChannelMessages } from '../../src/store/channel-messages-repo.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { DAY, ddmmyyyy } from '../helpers/dates.js';
import { opensslTsVerify } from '../helpers/openssl-ts.js';
import { panelSession, type PanelSessionForTest } from '../helpers/panel.js';
import { publicCall } from '../helpers/public-call.js';
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
  (await listMessages(s.deps, 500)).filter((m) => m.recipient === to && m.kind === kind).length;
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
    expect(page.workflow).toEqual({
      started: true,
      in_set: false,
      expires_at: (await stateOf(running.ticket)).expires_at!.toISOString(),
      // The account's (the default for a new one): a new expiration date ends a day there.
      time_zone: 'America/Mexico_City',
    });
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

  it("changes a signer's authority with its data, as the API does; data that breaks the authority's rule changes nothing", async () => {
    const d = await newDocument(s.client, {});
    const signer = async () => (await json(await a.call('GET', `/panel/api/documents/${d.ticket}`))).document.signers[0];
    const update = (body: unknown) => a.call('POST', `/panel/api/documents/${d.ticket}/signers/${d.signerId}/update`, { body });
    for (const [body, message] of [
      [{ authority: 'SMS' }, /^data: required when the authority changes/],
      [{ authority: 'SMS', data: d.email }, /^data: data must be a phone number in E\.164 form/],
      [{ authority: 'WHATSAPP', data: '5512345678' }, /^data: data must be a phone number in E\.164 form/],
      [{ authority: 'EMAIL', data: '+525512345678' }, /^data: data must be an email address for EMAIL/],
      [{ authority: 'SAT', data: 'XYZ' }, /^data: data must be a Mexican RFC/],
      [{ authority: 'FAX', data: '+525512345678' }, /^authority: expected one of EMAIL_LINK, EMAIL, SMS, WHATSAPP, SAT/],
    ] as const) {
      const res = await update(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).error.message).toMatch(message);
    }
    expect(await signer()).toMatchObject({ authority: 'EMAIL_LINK', data: d.email, email: d.email });

    const r = await json(await update({ authority: 'SMS', data: '+525512345678' }));
    // The email was the identity corrected away, so it goes with it.
    expect(r).toMatchObject({ invited: true, signer: { authority: 'SMS', data: '+525512345678', email: null, name: 'Ana' } });
    expect(await signer()).toMatchObject({ authority: 'SMS', data: '+525512345678', email: null });
    const sms = (await listChannelMessages(s.deps, 500)).filter((m) => m.recipient === '+525512345678');
    expect(sms.map((m) => [m.channel, m.kind])).toEqual([['sms', 'invitation']]);
    const history = (await json(await a.call('GET', `/panel/api/documents/${d.ticket}`))).history.entries;
    expect(history.find((e: { action: string }) => e.action === 'signer_updated').details).toMatchObject({
      before: { authority: 'EMAIL_LINK', data: d.email },
      after: { authority: 'SMS', data: '+525512345678' },
    });

    // And to an RFC, given in lower case, kept as the service writes it.
    const sat = await json(await update({ authority: 'SAT', data: 'gomh800101ab1' }));
    expect(sat.signer).toMatchObject({ authority: 'SAT', data: 'GOMH800101AB1' });
  });

  it('a signer moved to another phone or address starts afresh: the old code does not open it, and a code can be asked for at once', async () => {
    const d = await newDocument(s.client, {});
    const update = async (body: unknown) =>
      json(await a.call('POST', `/panel/api/documents/${d.ticket}/signers/${d.signerId}/update`, { body }));
    const sign = (url: string, path: string, body?: unknown) =>
      publicCall(s.baseUrl, 'POST', `/sign/api/${url.split('/').pop()}${path}`, body);
    // The person at the email address asks for a code, and has it.
    const byEmail = await update({ authority: 'EMAIL', data: d.email });
    expect((await sign(byEmail.signer.signer_url, '/otp')).status).toBe(200);
    const mail = (await listMessages(s.deps, 500)).find((m) => m.recipient === d.email && m.kind === 'otp')!;
    const oldCode = /\b(\d{6})\b/.exec(mail.body_text)![1];

    // Moved to a phone a moment later: that code proves nothing, and the phone gets its own code now
    // (the wait between two codes was the other person's).
    const byPhone = await update({ authority: 'SMS', data: '+525511112222' });
    const stale = await sign(byPhone.signer.signer_url, '/otp/verify', { code: oldCode });
    expect([stale.status, stale.json.error.code]).toEqual([409, 'OTP_EXPIRED']);
    const asked = await sign(byPhone.signer.signer_url, '/otp');
    expect([asked.status, asked.json.error?.code]).toEqual([200, undefined]);
    const sms = (await listChannelMessages(s.deps, 500)).filter((m) => m.recipient === '+525511112222').map((m) => m.kind);
    expect(sms.sort()).toEqual(['invitation', 'otp']);
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

/** A one-signer document of `client`, signed (so completed) and its original stamped. */
async function stampedDocument(client: SelloClient): Promise<string> {
  const doc = await client.createDocument({
    b64_doc: pdf,
    name: 'Contrato sellado',
    stickers: [{ authority: 'EMAIL_LINK', data: 'eva@example.com', name: 'Eva', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
  });
  const token = doc.stickers[0].signer_url.split('/').pop()!;
  const signed = await fetch(`${s.baseUrl}/sign/api/${token}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signature: { type: 'typed', text: 'Eva' }, consent: true }),
  });
  expect((await signed.json()).document_status).toBe('completed');
  const { id } = await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', doc.document_ticket).executeTakeFirstOrThrow();
  expect(await stampDocumentRendition(s.deps, { documentId: String(id), rendition: 'original' })).toBe('stamped');
  return doc.document_ticket;
}

describe("a document's NOM-151 stamps", () => {
  it('lists the stamps as the API does, and downloads the exact bytes a stamp covers, which openssl verifies', async () => {
    const ticket = await stampedDocument(s.client);
    const listed = await json(await a.call('GET', `/panel/api/documents/${ticket}/stamps`));
    expect(listed).toEqual(await s.client.listStamps(ticket));
    expect(listed.stamps).toHaveLength(1);
    const stamp = listed.stamps[0];
    expect(stamp).toMatchObject({ rendition: 'original', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const res = await a.call('GET', `/panel/api/documents/${ticket}/stamps/${stamp.hash}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="Contrato sellado-original-stamped-[0-9a-f]{12}\.pdf"/);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(stamp.hash);
    expect(bytes.equals(Buffer.from((await s.client.downloadDocument('original', ticket)).bytes))).toBe(true);
    const rootPem = derToPem(s.deps.pki.pki.root.certificateDer, 'CERTIFICATE');
    const verdict = await opensslTsVerify(Buffer.from(stamp.stamp, 'base64'), { data: bytes }, rootPem);
    expect(verdict.ok, verdict.output).toBe(true);
    expect(verdict.output).toMatch(/Verification: OK/);
  });

  it('a document without stamps lists none; a hash it has no stamp over is a 404, a malformed one a 400 naming the field', async () => {
    const d = await newDocument(s.client);
    expect(await json(await a.call('GET', `/panel/api/documents/${d.ticket}/stamps`))).toEqual({ stamps: [] });
    expect(await failure(await a.call('GET', `/panel/api/documents/${d.ticket}/stamps/${'a'.repeat(64)}/pdf`))).toEqual({
      status: 404,
      code: 'DOCUMENT_NOT_FOUND',
    });
    const bad = await a.call('GET', `/panel/api/documents/${d.ticket}/stamps/xyz/pdf`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/stampHash/);
  });

  it("another account's stamped document is a 404, for its list and for its bytes", async () => {
    const ticket = await stampedDocument(other.client);
    const [stamp] = (await other.client.listStamps(ticket)).stamps;
    expect(await failure(await a.call('GET', `/panel/api/documents/${ticket}/stamps`))).toEqual({
      status: 404,
      code: 'DOCUMENT_NOT_FOUND',
    });
    expect(await failure(await a.call('GET', `/panel/api/documents/${ticket}/stamps/${stamp.hash}/pdf`))).toEqual({
      status: 404,
      code: 'DOCUMENT_NOT_FOUND',
    });
  });
});

describe('webhook subscriptions per event', () => {
  const subscriptionsOf = async (client: SelloClient) => (await client.listSubscriptions()).subscriptions;

  it("lists, adds and deletes the subscriptions of the session's account, as the API sees them", async () => {
    const first = await json(await a.call('GET', '/panel/api/webhook/subscriptions'));
    expect(first.event_kinds).toContain('document_completed');
    expect(first.subscriptions).toEqual(await subscriptionsOf(s.client));

    const created = await json(
      await a.call('POST', '/panel/api/webhook/subscriptions', {
        body: { event: 'document_completed', url: 'https://hooks.example.com/done' },
      }),
    );
    expect(created).toMatchObject({ id: expect.any(String), event: 'document_completed', url: 'https://hooks.example.com/done' });
    expect(created.secret).toMatch(/\S{16,}/);
    const listed = await json(await a.call('GET', '/panel/api/webhook/subscriptions'));
    expect(listed.subscriptions).toEqual(await subscriptionsOf(s.client));
    expect(listed.subscriptions.find((x: { id: string }) => x.id === created.id)).toMatchObject({ status: 'active' });

    expect(await json(await a.call('DELETE', `/panel/api/webhook/subscriptions/${created.id}`))).toEqual({
      id: created.id,
      status: 'deleted',
    });
    expect((await subscriptionsOf(s.client)).find((x) => x.id === created.id)).toBeUndefined();
    expect(await failure(await a.call('DELETE', `/panel/api/webhook/subscriptions/${created.id}`))).toEqual({
      status: 404,
      code: 'SUBSCRIPTION_NOT_FOUND',
    });
  });

  it('refuses an unknown event kind or a bad URL naming the field, and adds nothing', async () => {
    const before = await subscriptionsOf(s.client);
    const kind = await a.call('POST', '/panel/api/webhook/subscriptions', {
      body: { event: 'nothing_happened', url: 'https://x.example.com' },
    });
    expect(kind.status).toBe(400);
    expect((await kind.json()).error.message).toMatch(/^event/);
    const url = await a.call('POST', '/panel/api/webhook/subscriptions', { body: { event: 'document_completed', url: 'ftp://x' } });
    expect(url.status).toBe(400);
    expect((await url.json()).error.message).toMatch(/^url/);
    expect(await subscriptionsOf(s.client)).toEqual(before);
  });

  it("another account's subscription is not listed, and deleting it is a 404 that leaves it", async () => {
    const theirs = await other.client.createSubscription('document_completed', 'https://other.example.com/hook');
    const mine = await json(await a.call('GET', '/panel/api/webhook/subscriptions'));
    expect(mine.subscriptions.map((x: { id: string }) => x.id)).not.toContain(theirs.id);
    expect(await failure(await a.call('DELETE', `/panel/api/webhook/subscriptions/${theirs.id}`))).toEqual({
      status: 404,
      code: 'SUBSCRIPTION_NOT_FOUND',
    });
    expect((await subscriptionsOf(other.client)).find((x) => x.id === theirs.id)).toMatchObject({ status: 'active' });
  });

  it('adding or deleting without the CSRF token, or with a wrong one, is refused and changes nothing', async () => {
    const kept = await json(
      await a.call('POST', '/panel/api/webhook/subscriptions', {
        body: { event: 'document_rejected', url: 'https://hooks.example.com/kept' },
      }),
    );
    const before = await subscriptionsOf(s.client);
    for (const csrf of [false, 'x'.repeat(43)] as const) {
      const add = await a.call('POST', '/panel/api/webhook/subscriptions', {
        body: { event: 'document_completed', url: 'https://hooks.example.com/csrf' },
        csrf,
      });
      expect(await failure(add)).toEqual({ status: 403, code: 'CSRF_TOKEN_INVALID' });
      const del = await a.call('DELETE', `/panel/api/webhook/subscriptions/${kept.id}`, { csrf });
      expect(await failure(del)).toEqual({ status: 403, code: 'CSRF_TOKEN_INVALID' });
    }
    expect(await subscriptionsOf(s.client)).toEqual(before);
  });
});
