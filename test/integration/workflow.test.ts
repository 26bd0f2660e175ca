// Document workflows end to end: invitations caught by a real SMTP server, reminders and
// expirations driven by a clock the test moves (scheduled jobs released by that clock), exact
// counts of every email, the links they carry, and the states and events the flow leaves.
import { listChannelMessages } from '../../src/store/channel-messages-repo.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiError } from '../helpers/api-error.js';
import { ddmmyyyy } from '../helpers/dates.js';
import { DAY, HOUR, movableClock, releaseScheduledJobs, scheduledJobs } from '../helpers/flow-clock.js';
import type { JobRunner } from '../helpers/jobs.js';
import { mailKind, startMailFlow, type MailFlow } from '../helpers/mail-flow.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import type { TestServer } from '../helpers/server.js';
import type { SmtpCatcher } from '../helpers/smtp-catcher.js';
import { signaturePng } from '../helpers/validators.js';
import { documentEvents } from '../helpers/events.js';

const clock = movableClock();
let flow: MailFlow;
let s: TestServer;
let smtp: SmtpCatcher;
let jobs: JobRunner;
let pdf: string;

beforeAll(async () => {
  flow = await startMailFlow({ clock });
  ({ s, smtp, jobs } = flow);
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(() => flow?.close());
beforeEach(() => {
  smtp.messages.length = 0;
});

const box = (x: number) => ({ page: 0, rect: { lx: x, ly: 60, tx: x + 150, ty: 120 } });
const drawn = { signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` }, consent: true };

let seq = 0;
async function newDocument(workflow?: Record<string, unknown>, signers = ['ana', 'bruno']) {
  const tag = ++seq;
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: `Contrato ${tag}`,
    stickers: signers.map((n, i) => ({ authority: 'EMAIL_LINK', data: `${n}.${tag}@example.com`, name: n, ...box(40 + i * 170) })),
    ...(workflow ? { workflow } : {}),
  });
  await jobs.runDue();
  const byName = Object.fromEntries(signers.map((n, i) => [n, { email: `${n}.${tag}@example.com`, url: doc.stickers[i].signer_url }]));
  return { doc, ticket: doc.document_ticket, ...byName } as { doc: typeof doc; ticket: string } & Record<
    string,
    { email: string; url: string }
  >;
}

const passTime = (ms: number) => flow.passTime(ms);

const to = (addr: string) => smtp.messages.filter((m) => m.to.includes(addr));
const kindOf = mailKind;
const count = (addr: string, kind: string) => to(addr).filter((m) => kindOf(m) === kind).length;

async function call(method: string, url: string, body?: unknown) {
  const res = await fetch(url.replace('/sign/', '/sign/api/') + (method === 'POST' ? '/sign' : ''), {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}
const sign = (url: string) => call('POST', url, drawn);

async function statusOf(ticket: string) {
  return (await s.deps.db.selectFrom('documents').select('status').where('ticket', '=', ticket).executeTakeFirstOrThrow()).status;
}

const eventsOf = (ticket: string) => documentEvents(s.deps.db, ticket);

describe('invitations', () => {
  it('unordered: every signer is invited at once, with the link the create response handed out', async () => {
    const d = await newDocument({});
    expect(count(d.ana.email, 'invitation')).toBe(1);
    expect(count(d.bruno.email, 'invitation')).toBe(1);
    expect(smtp.messages).toHaveLength(2);
    const mail = to(d.ana.email)[0];
    expect(mail.subject).toBe(`Firma solicitada: Contrato ${seq}.pdf`);
    expect(mail.text).toContain(d.ana.url);
    expect(mail.html).toContain(d.ana.url);
    expect((await s.client.documentHistory(d.ticket)).entries.filter((e) => e.action === 'invited')).toHaveLength(2);
  });

  it('without a workflow nobody is emailed: the client distributes the links', async () => {
    await newDocument();
    expect(smtp.messages).toHaveLength(0);
  });

  it('the workflow language, subject and message shape the invitation', async () => {
    const d = await newDocument({ language: 'en', subject: 'Please sign the lease', message: 'Thanks, <b>Acme</b>' }, ['ana']);
    const [mail] = to(d.ana.email);
    expect(mail.subject).toBe('Please sign the lease');
    expect(mail.text).toContain('Thanks, <b>Acme</b>');
    expect(mail.html).toContain('Thanks, &lt;b&gt;Acme&lt;/b&gt;');
    expect(mail.text).toContain('Review and sign');
  });

  it('ordered: one signer at a time in sticker order; conclusion to every signer and conclusion_emails, PDF attached', async () => {
    const d = await newDocument({ ordered: true, attachFiles: true, conclusionEmails: ['legal@example.com'] }, ['ana', 'bruno', 'carla']);
    expect(smtp.messages.map((m) => m.to[0])).toEqual([d.ana.email]);
    // A later signer holding their link early may look, not sign.
    expect((await call('GET', d.bruno.url)).status).toBe(200);
    const early = await sign(d.bruno.url);
    expect(early.status).toBe(409);
    expect(early.json.error.code).toBe('NOT_YOUR_TURN');

    expect((await sign(d.ana.url)).status).toBe(200);
    await jobs.runDue();
    expect(smtp.messages.map((m) => m.to[0])).toEqual([d.ana.email, d.bruno.email]);
    expect(to(d.bruno.email)[0].text).toContain(d.bruno.url);

    await sign(d.bruno.url);
    await jobs.runDue();
    expect(count(d.carla.email, 'invitation')).toBe(1);
    expect(smtp.messages).toHaveLength(3);

    await sign(d.carla.url);
    await jobs.runDue();
    expect(await statusOf(d.ticket)).toBe('completed');
    for (const addr of [d.ana.email, d.bruno.email, d.carla.email, 'legal@example.com']) {
      expect(count(addr, 'conclusion')).toBe(1);
    }
    expect(smtp.messages).toHaveLength(3 + 4);
    const conclusion = to('legal@example.com')[0];
    expect(conclusion.subject).toBe(`Documento firmado: Contrato ${seq}.pdf`);
    expect(conclusion.attachments).toHaveLength(1);
    const signed = await s.client.downloadDocument('original', d.ticket);
    expect(conclusion.attachments[0].content.equals(signed.bytes)).toBe(true);
    expect(conclusion.attachments[0].filename).toBe(`Contrato ${seq}.pdf`);
    // Nothing left scheduled for a finished flow.
    expect((await scheduledJobs(s.deps.db)).filter((j) => j.key?.includes(d.ticket))).toHaveLength(0);
  });

  it('a signed PDF over the attachment limit is sent as a download link, and the email says so', async () => {
    const limits = s.deps.config.limits as { mailAttachmentBytes: number };
    const before = limits.mailAttachmentBytes;
    limits.mailAttachmentBytes = 1024;
    try {
      const d = await newDocument({ attach_files: true }, ['ana']);
      await sign(d.ana.url);
      await jobs.runDue();
      const [mail] = to(d.ana.email).filter((m) => kindOf(m) === 'conclusion');
      expect(mail.attachments).toHaveLength(0);
      const link = /(http\S+\/download\/[A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
      expect(mail.text).toContain('demasiado grande');
      const res = await fetch(link!);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      const signed = await s.client.downloadDocument('original', d.ticket);
      expect(Buffer.from(await res.arrayBuffer()).equals(signed.bytes)).toBe(true);
      // Valid 30 days.
      clock.advance(31 * DAY);
      expect((await fetch(link!)).status).toBe(409);
      expect((await fetch(`${s.baseUrl}/download/${'x'.repeat(43)}`)).status).toBe(404);
    } finally {
      limits.mailAttachmentBytes = before;
    }
  });
});

describe('reminders', () => {
  it('every remind_every days to each signer still pending, until they sign', async () => {
    const d = await newDocument({ remind_every: 2 });
    await passTime(2 * DAY - HOUR);
    expect(smtp.messages.filter((m) => kindOf(m) === 'reminder')).toHaveLength(0);
    await passTime(HOUR);
    expect(count(d.ana.email, 'reminder')).toBe(1);
    expect(count(d.bruno.email, 'reminder')).toBe(1);
    const reminder = to(d.ana.email).find((m) => kindOf(m) === 'reminder')!;
    expect(reminder.text).toContain(d.ana.url);

    await sign(d.ana.url);
    await passTime(2 * DAY);
    expect(count(d.ana.email, 'reminder')).toBe(1);
    expect(count(d.bruno.email, 'reminder')).toBe(2);
    expect((await s.client.documentHistory(d.ticket)).entries.filter((e) => e.action === 'reminded')).toHaveLength(3);
  });

  it('remind_every 0 never reminds; the default is every 2 days', async () => {
    const none = await newDocument({ remind_every: 0 }, ['ana']);
    const dflt = await newDocument({}, ['ana']);
    await passTime(2 * DAY);
    expect(count(none.ana.email, 'reminder')).toBe(0);
    expect(count(dflt.ana.email, 'reminder')).toBe(1);
  });

  it('a reminder scheduled before a restart fires exactly once after it', async () => {
    const d = await newDocument({ remind_every: 1 }, ['ana']);
    await flow.restart();
    ({ s, jobs } = flow);
    await passTime(DAY);
    await passTime(HOUR);
    expect(count(d.ana.email, 'reminder')).toBe(1);
    // And the link it carries still opens the signer's page (the new server listens on a new port).
    const link = new URL(d.ana.url);
    expect((await call('GET', `${s.baseUrl}${link.pathname}`)).status).toBe(200);
  });
});

describe('expiration', () => {
  it('at the end of the dd/mm/yyyy day in the account time zone: expired, workflow_expired, links refused', async () => {
    // The account's zone is America/Mexico_City (UTC-6, no daylight saving since 2022). The flow
    // starts at the next noon UTC (never before now: the service's certificates were made now) and
    // expires at the end of the day after the next, Mexico City time.
    const noon = Math.ceil((clock.now().getTime() - 12 * HOUR) / DAY) * DAY + 12 * HOUR;
    const lastDay = noon + 2 * DAY;
    const endUtc = Math.floor(lastDay / DAY) * DAY + DAY + 6 * HOUR - 1; // 23:59:59.999 in Mexico City
    clock.set(new Date(noon));
    const d = await newDocument({ expiration_date: ddmmyyyy(lastDay, 'America/Mexico_City'), remind_every: 0 }, ['ana', 'bruno']);
    await sign(d.ana.url);
    clock.set(new Date(endUtc - 59_999)); // 23:59 of that day in Mexico City
    await releaseScheduledJobs(s.deps.db, clock);
    await jobs.runDue();
    expect(await statusOf(d.ticket)).toBe('pending');
    await passTime(60_000);
    expect(await statusOf(d.ticket)).toBe('expired');
    const events = await eventsOf(d.ticket);
    expect(events.map((e) => e.kind)).toEqual(['original_signed', 'workflow_expired']);
    expect(events[1].meta).toMatchObject({ expired_at: new Date(endUtc).toISOString(), pending_signers: [{ email: d.bruno.email }] });
    const refused = await sign(d.bruno.url);
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toContain('ended');
  });

  it('defaults to 30 days after the start; a later expiration_date extends a running flow', async () => {
    const d = await newDocument({ remind_every: 0 }, ['ana']);
    const jobsOf = async () => (await scheduledJobs(s.deps.db)).filter((j) => j.task === 'workflow_expire');
    const start = clock.now().getTime();
    const expire = (await jobsOf()).find((j) => Math.abs(j.run_at.getTime() - (start + 30 * DAY)) < 1000);
    expect(expire).toBeDefined();
    await passTime(29 * DAY);
    const later = new Date(start + 40 * DAY).toISOString();
    const r = await s.client.updateWorkflow(d.ticket, { expirationDate: later });
    expect(r).toMatchObject({ status: 'success', expires_at: later, document_status: 'pending' });
    await passTime(2 * DAY);
    expect(await statusOf(d.ticket)).toBe('pending');
    await passTime(10 * DAY);
    expect(await statusOf(d.ticket)).toBe('expired');
  });

  it('an expiration already past is refused and nothing is created', async () => {
    const e = await apiError(s.client.createDocument({ b64_doc: pdf, workflow: { expiration_date: '01/01/2020' } }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('workflow.expiration_date');
  });
});

describe('changing and cancelling a running flow', () => {
  it('cancel: state cancelled, reminders stop, links say it was cancelled', async () => {
    const d = await newDocument({ remind_every: 1 }, ['ana']);
    const r = await s.client.updateWorkflow(d.ticket, { cancel: true });
    expect(r.document_status).toBe('cancelled');
    expect(await statusOf(d.ticket)).toBe('cancelled');
    await passTime(2 * DAY);
    expect(count(d.ana.email, 'reminder')).toBe(0);
    const refused = await sign(d.ana.url);
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toContain('cancelled');
    // A finished flow cannot change.
    expect((await apiError(s.client.updateWorkflow(d.ticket, { remind_every: 3 }))).status).toBe(409);
  });

  it('deleting stops reminders and the expiration; restoring resumes them from now', async () => {
    const d = await newDocument({ remind_every: 1, expiration_date: new Date(clock.now().getTime() + 3 * DAY).toISOString() }, ['ana']);
    await s.client.deleteDocument(d.ticket);
    await passTime(4 * DAY);
    expect(count(d.ana.email, 'reminder')).toBe(0);
    await s.client.restoreDocument(d.ticket);
    expect(await statusOf(d.ticket)).toBe('pending');
    // The expiration passed while it was deleted: it comes at once after the restore.
    await passTime(1000);
    expect(await statusOf(d.ticket)).toBe('expired');
    expect(count(d.ana.email, 'reminder')).toBe(0);
  });

  it('a restored flow keeps reminding from the restore on', async () => {
    const d = await newDocument({ remind_every: 1 }, ['ana']);
    await s.client.deleteDocument(d.ticket);
    await passTime(2 * DAY);
    await s.client.restoreDocument(d.ticket);
    await passTime(DAY - HOUR);
    expect(count(d.ana.email, 'reminder')).toBe(0);
    await passTime(HOUR);
    expect(count(d.ana.email, 'reminder')).toBe(1);
  });

  it('ordered cannot change once someone signed (409); before that it can, and unordering invites the rest', async () => {
    const d = await newDocument({ ordered: true }, ['ana', 'bruno']);
    expect(count(d.bruno.email, 'invitation')).toBe(0);
    await s.client.updateWorkflow(d.ticket, { ordered: false });
    await jobs.runDue();
    expect(count(d.bruno.email, 'invitation')).toBe(1);
    await sign(d.ana.url);
    const e = await apiError(s.client.updateWorkflow(d.ticket, { ordered: true }));
    expect(e.status).toBe(409);
    expect(e.code).toBe('WORKFLOW_ORDER_LOCKED');
  });

  it('a document created without a workflow gets one: invitations go out; unknown keys are listed', async () => {
    const d = await newDocument(undefined, ['ana']);
    expect(smtp.messages).toHaveLength(0);
    const r = await s.client.updateWorkflow(d.ticket, { remindEvery: 3, colour: 'blue' });
    expect(r.ignored_keys).toEqual(['colour']);
    expect(r.workflow).toMatchObject({ remind_every: 3 });
    await jobs.runDue();
    expect(count(d.ana.email, 'invitation')).toBe(1);
  });

  it('bad values are 400 naming the key; unknown or foreign documents 404', async () => {
    const d = await newDocument(undefined, ['ana']);
    const bad = await apiError(s.client.updateWorkflow(d.ticket, { remind_every: 'often' }));
    expect(bad.status).toBe(400);
    expect(bad.message).toContain('workflow.remind_every');
    expect((await apiError(s.client.updateWorkflow('no-such-ticket', {}))).status).toBe(404);
    const other = await s.newAccount('Other');
    expect((await apiError(other.client.updateWorkflow(d.ticket, {}))).status).toBe(404);
  });
});

describe('editing a signer', () => {
  it('before signing: the old link dies, the corrected signer is invited with a new one that works', async () => {
    const d = await newDocument({}, ['ana', 'bruno']);
    const signerId = d.doc.stickers[1].signer_id;
    const r = await s.client.updateSigner(d.ticket, signerId, { data: 'bruno.new@example.com', name: 'Bruno Nuevo' });
    expect(r.signer).toMatchObject({
      signer_id: signerId,
      data: 'bruno.new@example.com',
      email: 'bruno.new@example.com',
      name: 'Bruno Nuevo',
    });
    expect(r.invited).toBe(true);
    await jobs.runDue();
    expect((await call('GET', d.bruno.url)).status).toBe(404);
    const [mail] = to('bruno.new@example.com');
    expect(mail.text).toContain(r.signer.signer_url);
    expect((await sign(r.signer.signer_url)).status).toBe(200);
    const history = await s.client.documentHistory(d.ticket);
    const edit = history.entries.find((e) => e.action === 'signer_updated')!;
    expect(edit.details).toMatchObject({ signer_id: signerId, before: { data: d.bruno.email }, after: { data: 'bruno.new@example.com' } });
    // Once signed: 409.
    const e = await apiError(s.client.updateSigner(d.ticket, signerId, { name: 'Otro' }));
    expect(e.status).toBe(409);
    expect(e.code).toBe('SIGNER_NOT_EDITABLE');
  });

  it('an email authority is invited at its data; a correction away from an address sends nothing to it', async () => {
    const tag = ++seq;
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      stickers: [{ authority: 'EMAIL_LINK', data: `data.${tag}@example.com`, email: `other.${tag}@example.com`, ...box(40) }],
      workflow: {},
    });
    await jobs.runDue();
    expect(count(`data.${tag}@example.com`, 'invitation')).toBe(1);
    expect(to(`other.${tag}@example.com`)).toHaveLength(0);
    // The sticker's own email stays (a contact the client gave); the corrected-away data does not.
    // An SMS signer is invited by SMS (here kept in the outbox: no provider), not at the sticker's email.
    const r = await s.client.updateSigner(doc.document_ticket, doc.stickers[0].signer_id, { authority: 'SMS', data: '+525512345678' });
    expect(r.signer.email).toBe(`other.${tag}@example.com`);
    await jobs.runDue();
    expect(count(`data.${tag}@example.com`, 'invitation')).toBe(1);
    expect(to(`other.${tag}@example.com`)).toHaveLength(0);
    const texts = (await listChannelMessages(s.deps, 500)).filter((m) => m.recipient === '+525512345678');
    expect(texts[0]).toMatchObject({ status: 'outbox', body_text: expect.stringContaining(r.signer.signer_url) });

    const plain = await newDocument({}, ['ana']);
    const r2 = await s.client.updateSigner(plain.ticket, plain.doc.stickers[0].signer_id, { authority: 'SMS', data: '+525512345679' });
    expect(r2.signer.email).toBeNull();
    await jobs.runDue();
    expect(count(plain.ana.email, 'invitation')).toBe(1);
  });

  it('refuses a duplicate identity, a bad address, and an unknown signer', async () => {
    const d = await newDocument(undefined, ['ana', 'bruno']);
    const bruno = d.doc.stickers[1].signer_id;
    expect((await apiError(s.client.updateSigner(d.ticket, bruno, { data: d.ana.email }))).code).toBe('SIGNER_CONFLICT');
    const bad = await apiError(s.client.updateSigner(d.ticket, bruno, { data: 'not-an-email' }));
    expect(bad.status).toBe(400);
    expect(bad.message).toContain('data');
    expect((await apiError(s.client.updateSigner(d.ticket, 'nobody', { name: 'X' }))).status).toBe(404);
    // The sticker_id of a signer is accepted in place of the signer_id.
    const r = await s.client.updateSigner(d.ticket, d.doc.stickers[1].sticker_id, { name: 'Bruno B.' });
    expect(r.signer.name).toBe('Bruno B.');
    expect(r.invited).toBe(false);
  });
});
