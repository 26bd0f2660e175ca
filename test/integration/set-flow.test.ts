// Document sets end to end: preloaded signers, closing (one invitation per set signer for all their
// documents, caught by a real SMTP server), signing a whole set through the set signing API, the
// set's state following its documents (completed, rejected, expired, cancelled), restarts with
// workflowSet, and ordered flows — with a clock the test moves and scheduled jobs released by it.
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listMessages } from '../../src/store/mail-repo.js';
import { apiError } from '../helpers/api-error.js';
import { DAY, HOUR, movableClock, scheduledJobs } from '../helpers/flow-clock.js';
import type { JobRunner } from '../helpers/jobs.js';
import { mailKind, startMailFlow, type MailFlow } from '../helpers/mail-flow.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import type { TestServer } from '../helpers/server.js';
import type { SmtpCatcher } from '../helpers/smtp-catcher.js';
import { pdfsig, signaturePng } from '../helpers/validators.js';

const clock = movableClock();
let flow: MailFlow;
let s: TestServer;
let smtp: SmtpCatcher;
let jobs: JobRunner;
let pdf: string;
let rootPem: string;

beforeAll(async () => {
  flow = await startMailFlow({ clock });
  ({ s, smtp, jobs } = flow);
  pdf = (await makePdf([A4])).toString('base64');
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
});
afterAll(() => flow?.close());
beforeEach(() => {
  smtp.messages.length = 0;
});

const box = (x: number) => ({ page: 0, rect: { lx: x, ly: 60, tx: x + 150, ty: 120 } });
const drawn = { signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` }, consent: true };

let seq = 0;
/** An OPEN set of `docs` documents, each with a box for every one of `signers` (EMAIL_LINK). */
async function newSet(o: { docs?: number; signers?: string[]; authority?: 'EMAIL_LINK' | 'EMAIL' } = {}) {
  const tag = ++seq;
  const names = o.signers ?? ['ana', 'bruno'];
  const set = await s.client.createDocumentSet({ name: `Alta ${tag}` });
  const tickets: string[] = [];
  for (let i = 0; i < (o.docs ?? 3); i++) {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      name: `Doc ${tag}-${i + 1}`,
      document_set: set.uuid,
      stickers: names.map((n, k) => ({
        authority: o.authority ?? 'EMAIL_LINK',
        data: `${n}.${tag}@example.com`,
        name: n,
        ...box(40 + k * 170),
      })),
    });
    tickets.push(doc.document_ticket);
  }
  const email = Object.fromEntries(names.map((n) => [n, `${n}.${tag}@example.com`]));
  return { uuid: set.uuid, tickets, email };
}

/** Closes the set, delivers the emails, and returns each signer's set link by name. */
async function close(set: { uuid: string; email: Record<string, string> }, workflow?: Record<string, unknown>) {
  const r = await s.client.closeDocumentSet(set.uuid, workflow);
  await jobs.runDue();
  const url = Object.fromEntries(Object.entries(set.email).map(([n, e]) => [n, r.signers.find((x) => x.data === e)!.signer_url]));
  return { r, url };
}

const passTime = (ms: number) => flow.passTime(ms);

const to = (addr: string) => smtp.messages.filter((m) => m.to.includes(addr));
const kindOf = mailKind;
const count = (addr: string, kind: string) => to(addr).filter((m) => kindOf(m) === kind).length;

/** The set signing API behind a set link: /sign/set/{token} → /sign/api/set/{token}{suffix}. */
async function api(url: string, suffix = '', body?: unknown) {
  const res = await fetch(url.replace('/sign/set/', '/sign/api/set/') + suffix, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as Record<string, any> };
}
const signAll = (url: string) => api(url, '/sign', drawn);

async function statuses(tickets: string[]) {
  const rows = await s.deps.db.selectFrom('documents').select(['ticket', 'status']).where('ticket', 'in', tickets).execute();
  return tickets.map((t) => rows.find((r) => r.ticket === t)!.status);
}

async function setId(uuid: string) {
  return (await s.deps.db.selectFrom('document_sets').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
}

/** The scheduled jobs (expiration, reminders) of one set, by key. */
async function setJobKeys(uuid: string) {
  const id = await setId(uuid);
  const signers = (await sql<{ id: string }>`select id::text as id from set_signers where set_id = ${id}`.execute(s.deps.db)).rows;
  const mine = new Set([`expire:set:${id}`, ...signers.map((x) => `remind:set-signer:${x.id}`)]);
  return (await scheduledJobs(s.deps.db)).map((j) => j.key).filter((k): k is string => k !== null && mine.has(k));
}

describe('closing a set', () => {
  it('sends exactly one invitation per set signer, naming every document; preloaded signers come first', async () => {
    const set = await newSet();
    const preloaded = await s.client.addSetSigner(set.uuid, { authority: 'EMAIL_LINK', data: set.email.bruno, name: 'Bruno Díaz' });
    const { r, url } = await close(set, { attachFiles: true, remind_every: 3 });
    expect(r).toMatchObject({ status: 'success', uuid: set.uuid, set_status: 'CLOSED', ignored_keys: ['attachFiles'] });
    expect(r.signers.map((x) => x.data)).toEqual([set.email.bruno, set.email.ana]);
    expect(r.signers[0]).toMatchObject({ signer_id: preloaded.signer_id, name: 'Bruno Díaz' });
    expect(url.ana).toMatch(/\/sign\/set\/[A-Za-z0-9_-]{43}$/);

    expect(smtp.messages).toHaveLength(2);
    for (const name of ['ana', 'bruno']) {
      const [mail] = to(set.email[name]);
      expect(mail.text).toContain('3 documentos');
      expect(mail.text).toContain(url[name]);
    }
    expect(await statuses(set.tickets)).toEqual(['pending', 'pending', 'pending']);
    const got = await s.client.getDocumentSet(set.uuid);
    expect(got.status).toBe('CLOSED');
    expect(got.expires_at).not.toBeNull();
    expect(got.signers.map((x) => [x.data, x.status, x.position])).toEqual([
      [set.email.bruno, 'invited', 0],
      [set.email.ana, 'invited', 1],
    ]);
    // Each document records the start and both invitations; one reminder job per set signer.
    const history = await s.client.documentHistory(set.tickets[2]);
    expect(history.entries.filter((e) => e.action === 'invited')).toHaveLength(2);
    expect(history.entries.some((e) => e.action === 'flow_started')).toBe(true);
    const keys = await setJobKeys(set.uuid);
    expect(keys).toHaveLength(3);
    expect(keys).toContain(`expire:set:${await setId(set.uuid)}`);
  });

  it('refuses a second close, documents added after it, unknown sets, and sets that are not ready', async () => {
    const set = await newSet({ docs: 1 });
    await close(set);
    const twice = await apiError(s.client.closeDocumentSet(set.uuid));
    expect([twice.status, twice.code]).toEqual([409, 'DOCUMENT_SET_CLOSED']);
    const late = await apiError(s.client.createDocument({ b64_doc: pdf, document_set: set.uuid }));
    expect([late.status, late.code]).toEqual([409, 'DOCUMENT_SET_CLOSED']);
    expect((await apiError(s.client.closeDocumentSet('00000000-0000-4000-8000-000000000000'))).status).toBe(404);

    const empty = await s.client.createDocumentSet();
    const none = await apiError(s.client.closeDocumentSet(empty.uuid));
    expect([none.status, none.code]).toEqual([409, 'SET_NOT_READY']);
    expect(none.message).toContain('no document');

    const bare = await s.client.createDocumentSet();
    const unsigned = await s.client.createDocument({ b64_doc: pdf, document_set: bare.uuid });
    const noSigners = await apiError(s.client.closeDocumentSet(bare.uuid));
    expect(noSigners.code).toBe('SET_NOT_READY');
    expect(noSigners.message).toContain(unsigned.document_ticket);

    const boxless = await newSet({ docs: 1 });
    await s.client.addSetSigner(boxless.uuid, { authority: 'EMAIL', data: 'nobox@example.com' });
    const noBox = await apiError(s.client.closeDocumentSet(boxless.uuid));
    expect(noBox.code).toBe('SET_NOT_READY');
    expect(noBox.message).toContain('nobox@example.com');

    const past = await apiError(s.client.closeDocumentSet(boxless.uuid, { expiration_date: '01/01/2020' }));
    expect(past.status).toBe(400);
    expect(past.message).toContain('workflow.expiration_date');
    expect((await s.client.getDocumentSet(boxless.uuid)).status).toBe('OPEN');
  });
});

describe('preloaded signers', () => {
  it('one per (authority, data), removable while OPEN; fixed once closed', async () => {
    const set = await newSet({ docs: 1, signers: ['ana'] });
    const carla = await s.client.addSetSigner(set.uuid, { authority: 'EMAIL_LINK', data: 'Carla@Example.com', name: 'Carla' });
    expect(carla).toMatchObject({
      authority: 'EMAIL_LINK',
      data: 'carla@example.com',
      email: 'carla@example.com',
      name: 'Carla',
      position: 0,
    });
    const again = await s.client.addSetSigner(set.uuid, { authority: 'EMAIL_LINK', data: 'carla@example.com', name: 'Other' });
    expect(again).toEqual(carla);
    const ana = await s.client.addSetSigner(set.uuid, { authority: 'EMAIL_LINK', data: set.email.ana });
    expect(ana.position).toBe(1);
    expect((await s.client.getDocumentSet(set.uuid)).signers.map((x) => x.signer_id)).toEqual([carla.signer_id, ana.signer_id]);

    const bad = await apiError(s.client.addSetSigner(set.uuid, { authority: 'FAX' as 'EMAIL', data: 'x' }));
    expect([bad.status, bad.message]).toEqual([400, expect.stringContaining('authority')]);
    const badData = await apiError(s.client.addSetSigner(set.uuid, { authority: 'SMS', data: '12345' }));
    expect([badData.status, badData.message]).toEqual([400, expect.stringContaining('E.164')]);
    expect((await apiError(s.client.addSetSigner('no-such-set', { authority: 'EMAIL', data: 'a@example.com' }))).status).toBe(404);

    expect((await apiError(s.client.removeSetSigner(set.uuid, 'no-such-signer'))).status).toBe(404);
    expect(await s.client.removeSetSigner(set.uuid, carla.signer_id)).toEqual({ status: 'deleted', signer_id: carla.signer_id });
    expect((await s.client.getDocumentSet(set.uuid)).signers.map((x) => x.signer_id)).toEqual([ana.signer_id]);

    await close(set);
    const closed = await apiError(s.client.addSetSigner(set.uuid, { authority: 'EMAIL', data: 'late@example.com' }));
    expect([closed.status, closed.code]).toEqual([409, 'DOCUMENT_SET_CLOSED']);
    expect((await apiError(s.client.removeSetSigner(set.uuid, ana.signer_id))).status).toBe(409);
  });
});

describe('signing a set', () => {
  it('each signer signs every document in one call: set COMPLETED, one conclusion per recipient with every PDF', async () => {
    const set = await newSet();
    const { url } = await close(set, { attach_files: true, conclusion_emails: ['legal@example.com'] });

    const info = await api(url.ana);
    expect(info.status).toBe(200);
    expect(info.json.set).toMatchObject({ uuid: set.uuid, status: 'CLOSED' });
    expect(info.json.signer).toMatchObject({ name: 'ana', authority: 'EMAIL_LINK', status: 'viewed', due: true, verified: true });
    expect(info.json.documents.map((d: { document_ticket: string }) => d.document_ticket)).toEqual(set.tickets);
    expect(info.json.documents[0]).toMatchObject({
      status: 'pending',
      signer_status: 'viewed',
      pages: [{ page: 0 }],
      boxes: [{ page: 0 }],
    });
    const file = await fetch(s.baseUrl + info.json.documents[1].pdf_url);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect((await fetch(`${s.baseUrl}${info.json.documents[1].pdf_url.replace(set.tickets[1], 'other')}`)).status).toBe(404);

    const a = await signAll(url.ana);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ status: 'signed', set_status: 'CLOSED' });
    expect(a.json.documents.map((d: { signer_status: string }) => d.signer_status)).toEqual(['signed', 'signed', 'signed']);
    expect((await signAll(url.ana)).json.error.code).toBe('ALREADY_SIGNED');

    const b = await signAll(url.bruno);
    expect(b.json).toMatchObject({ status: 'signed', set_status: 'COMPLETED' });
    expect(await statuses(set.tickets)).toEqual(['completed', 'completed', 'completed']);
    await jobs.runDue();
    for (const addr of [set.email.ana, set.email.bruno, 'legal@example.com']) {
      expect(count(addr, 'conclusion')).toBe(1);
    }
    const conclusion = to('legal@example.com')[0];
    expect(conclusion.subject).toContain(`Alta ${seq}`);
    expect(conclusion.attachments.map((x) => x.filename).sort()).toEqual([1, 2, 3].map((i) => `Doc ${seq}-${i}.pdf`));
    const second = await s.client.downloadDocument('original', set.tickets[1]);
    expect(conclusion.attachments.find((x) => x.filename === `Doc ${seq}-2.pdf`)!.content.equals(second.bytes)).toBe(true);

    // One document of the set, judged by pdfsig: both signatures valid and trusted.
    const report = await pdfsig(second.bytes, rootPem);
    expect(report.signatures, report.output).toHaveLength(2);
    for (const sig of report.signatures) {
      expect(sig).toMatchObject({ valid: true, trusted: true });
    }
    expect((await s.client.getDocumentSet(set.uuid)).signers.map((x) => x.status)).toEqual(['signed', 'signed']);
    expect(await setJobKeys(set.uuid)).toEqual([]);
    const after = await api(url.ana, '/sign', drawn);
    expect([after.status, after.json.error.code]).toEqual([409, 'DOCUMENT_NOT_SIGNABLE']);
  });

  it('EMAIL signers prove one code for all their documents', async () => {
    const set = await newSet({ docs: 2, signers: ['carla'], authority: 'EMAIL' });
    const { url } = await close(set);
    const refused = await signAll(url.carla);
    expect(refused.json.error.code).toBe('VERIFICATION_REQUIRED');
    expect((await api(url.carla, '/otp', {})).status).toBe(200);
    const code = /\b(\d{6})\b/.exec((await listMessages(s.deps, 1))[0].body_text)![1];
    expect((await api(url.carla, '/otp/verify', { code })).json.status).toBe('verified');
    expect((await api(url.carla)).json.signer.verified).toBe(true);
    const r = await signAll(url.carla);
    expect(r.json).toMatchObject({ status: 'signed', set_status: 'COMPLETED' });
  });

  it('a rejection rejects the set: its other documents are cancelled and nobody else can sign', async () => {
    const set = await newSet();
    const { url } = await close(set);
    const r = await api(url.bruno, '/reject', { reason: 'Las condiciones no son las acordadas' });
    expect(r.json).toMatchObject({ status: 'rejected', set_status: 'REJECTED', rejected_document: set.tickets[0] });
    expect(await statuses(set.tickets)).toEqual(['rejected', 'cancelled', 'cancelled']);
    const got = await s.client.getDocumentSet(set.uuid);
    expect(got.status).toBe('REJECTED');
    expect(got.signers.find((x) => x.data === set.email.bruno)!.status).toBe('rejected');
    const refused = await signAll(url.ana);
    expect([refused.status, refused.json.error.code]).toEqual([409, 'DOCUMENT_NOT_SIGNABLE']);
    expect((await api(url.ana)).json.set.status).toBe('REJECTED');
    expect(await setJobKeys(set.uuid)).toEqual([]);
    expect((await apiError(s.client.updateSetWorkflow(set.uuid, {}))).status).toBe(409);
  });

  it('a rejection while another signer is signing the set: REJECTED, and no document is left pending', async () => {
    const set = await newSet({ docs: 3 });
    const { url } = await close(set);
    const [signed, rejected] = await Promise.all([signAll(url.ana), api(url.bruno, '/reject', { reason: 'No' })]);
    expect(rejected.status).toBe(200);
    // A lost race is a retry inside the service, never a 500; on failure the server's log says why.
    expect([200, 409], s.logs.filter((l) => /"level":(40|50)/.test(l)).join('\n')).toContain(signed.status);
    // A document the signature held when the set was rejected is cancelled by the job scheduled for it.
    await jobs.runDue();
    expect((await s.client.getDocumentSet(set.uuid)).status).toBe('REJECTED');
    expect(await statuses(set.tickets)).not.toContain('pending');
    expect(await setJobKeys(set.uuid)).toEqual([]);
  });

  it('ordered: the second signer is invited only after the first signed everything, and cannot act before', async () => {
    const set = await newSet();
    const { url } = await close(set, { ordered: true });
    expect(smtp.messages.map((m) => m.to[0])).toEqual([set.email.ana]);
    const early = await signAll(url.bruno);
    expect([early.status, early.json.error.code]).toEqual([409, 'NOT_YOUR_TURN']);
    expect(early.json.error.message).toContain('not your turn');
    expect((await api(url.bruno)).json.signer.due).toBe(false);

    expect((await signAll(url.ana)).json.set_status).toBe('CLOSED');
    await jobs.runDue();
    await jobs.runDue();
    expect(smtp.messages.map((m) => m.to[0])).toEqual([set.email.ana, set.email.bruno]);
    expect(to(set.email.bruno)[0].text).toContain(url.bruno);
    expect((await signAll(url.bruno)).json.set_status).toBe('COMPLETED');
  });
});

describe('workflowSet', () => {
  it('an empty body restarts the flow: the invitation goes again at once and the old reminder never fires', async () => {
    const set = await newSet({ docs: 2 });
    const { url } = await close(set);
    expect(count(set.email.ana, 'invitation')).toBe(1);
    await passTime(DAY);
    const r = await s.client.updateSetWorkflow(set.uuid, {});
    expect(r).toMatchObject({ status: 'success', set_status: 'CLOSED', invitations_sent: 2, ignored_keys: [] });
    await jobs.runDue();
    expect(count(set.email.ana, 'invitation')).toBe(2);
    expect(count(set.email.bruno, 'invitation')).toBe(2);
    expect(to(set.email.ana)[1].text).toContain(url.ana);

    // The reminder first due 2 days after closing was replaced by one 2 days after the restart.
    await passTime(DAY);
    expect(count(set.email.ana, 'reminder')).toBe(0);
    await passTime(DAY - HOUR);
    expect(count(set.email.ana, 'reminder')).toBe(0);
    await passTime(HOUR);
    expect(count(set.email.ana, 'reminder')).toBe(1);
    expect(count(set.email.bruno, 'reminder')).toBe(1);

    // Once a signer has signed everything, a restart does not invite them again.
    await signAll(url.ana);
    const again = await s.client.updateSetWorkflow(set.uuid, { remindEvery: 1, attach_files: true, signers: [] });
    expect(again.ignored_keys).toEqual(['remindEvery', 'signers']);
    expect(again.invitations_sent).toBe(1);
    await jobs.runDue();
    expect(count(set.email.ana, 'invitation')).toBe(2);
    expect(count(set.email.bruno, 'invitation')).toBe(3);
    expect((await s.client.getDocumentSet(set.uuid)).workflow).toMatchObject({ attach_files: true });
  });

  it('a new expiration_date moves the expiration; at it the set EXPIRES once, with one workflow_expired', async () => {
    const set = await newSet({ docs: 2 });
    const { url } = await close(set, { remind_every: 0 });
    await signAll(url.ana);
    const at = new Date(clock.now().getTime() + 3 * DAY).toISOString();
    expect((await s.client.updateSetWorkflow(set.uuid, { expiration_date: at })).expires_at).toBe(at);
    await passTime(3 * DAY - HOUR);
    expect((await s.client.getDocumentSet(set.uuid)).status).toBe('CLOSED');
    await passTime(HOUR);
    await passTime(HOUR);
    const got = await s.client.getDocumentSet(set.uuid);
    expect(got.status).toBe('EXPIRED');
    expect(await statuses(set.tickets)).toEqual(['expired', 'expired']);
    const events = await s.deps.db
      .selectFrom('notifications')
      .select(['kind', 'document_id', 'meta'])
      .where('set_id', '=', await setId(set.uuid))
      .where('kind', '=', 'workflow_expired')
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0].document_id).toBeNull();
    expect(events[0].meta).toMatchObject({ expired_at: at, pending_signers: [{ email: set.email.bruno }] });
    const refused = await signAll(url.bruno);
    expect([refused.status, refused.json.error.code]).toEqual([409, 'DOCUMENT_NOT_SIGNABLE']);
    expect(refused.json.error.message).toContain('ended');
    expect((await api(url.bruno, '/reject', { reason: 'tarde' })).status).toBe(409);
  });

  it('cancel: the set and its pending documents are cancelled, reminders and expiration removed', async () => {
    const set = await newSet({ docs: 2 });
    const { url } = await close(set);
    expect(await s.client.updateSetWorkflow(set.uuid, { cancel: true })).toMatchObject({ status: 'success', set_status: 'CANCELLED' });
    expect((await s.client.getDocumentSet(set.uuid)).status).toBe('CANCELLED');
    expect(await statuses(set.tickets)).toEqual(['cancelled', 'cancelled']);
    expect(await setJobKeys(set.uuid)).toEqual([]);
    expect((await signAll(url.ana)).status).toBe(409);
    const finished = await apiError(s.client.updateSetWorkflow(set.uuid, {}));
    expect([finished.status, finished.code]).toEqual([409, 'WORKFLOW_NOT_CHANGEABLE']);
  });

  it('takes a set uuid only: a document ticket or unknown uuid is 404, an OPEN set 409, a bad signature 401 with an empty body', async () => {
    const set = await newSet({ docs: 1 });
    const open = await apiError(s.client.updateSetWorkflow(set.uuid, {}));
    expect([open.status, open.code]).toEqual([409, 'WORKFLOW_NOT_CHANGEABLE']);
    expect(open.message).toContain('close');
    expect((await apiError(s.client.updateSetWorkflow(set.tickets[0], {}))).status).toBe(404);
    expect((await apiError(s.client.updateSetWorkflow('00000000-0000-4000-8000-000000000000', {}))).status).toBe(404);
    await close(set);
    const past = await apiError(s.client.updateSetWorkflow(set.uuid, { expiration_date: '01/01/2020' }));
    expect(past.status).toBe(400);
    const res = await fetch(`${s.baseUrl}/api/${set.uuid}/workflowSet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `svc ${s.creds.webId}:${Buffer.alloc(32).toString('base64')}` },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('');
    const other = await s.newAccount('Other');
    expect((await apiError(other.client.updateSetWorkflow(set.uuid, {}))).status).toBe(404);
  });

  it('the set operations are in the OpenAPI document, and set links never reach the logs', async () => {
    const doc = (await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, method] of [
      ['/api/documentset/{uuid}/signer', 'post'],
      ['/api/documentset/{uuid}/signer/{signerId}', 'delete'],
      ['/api/documentset/close', 'post'],
      ['/api/{uuid}/workflowSet', 'post'],
      ['/sign/api/set/{token}', 'get'],
      ['/sign/api/set/{token}/sign', 'post'],
      ['/sign/api/set/{token}/reject', 'post'],
    ]) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    const set = await newSet({ docs: 1, signers: ['ana'] });
    const { url } = await close(set);
    const token = url.ana.split('/').pop()!;
    await api(url.ana);
    await fetch(`${s.baseUrl}/sign/set/${token}`);
    expect(s.logs.join('')).not.toContain(token);
    expect(s.logs.join('')).toContain('/sign/api/set/…');
  });
});

describe('deleting documents of a set', () => {
  it('not while the set flow runs; after it ends a document may go, but not come back into a flow', async () => {
    const set = await newSet({ docs: 2, signers: ['ana'] });
    await close(set);
    const running = await apiError(s.client.deleteDocument(set.tickets[0]));
    expect(running.status).toBe(409);
    expect(running.message).toContain('cancel');
    await s.client.updateSetWorkflow(set.uuid, { cancel: true });
    expect((await s.client.deleteDocument(set.tickets[0])).status).toBe('deleted');
    expect((await s.client.restoreDocument(set.tickets[0])).status).toBe('cancelled');

    const open = await newSet({ docs: 2, signers: ['ana'] });
    await s.client.deleteDocument(open.tickets[1]);
    await close(open);
    const back = await apiError(s.client.restoreDocument(open.tickets[1]));
    expect(back.status).toBe(409);
    expect(back.message).toContain('CLOSED');
  });
});
