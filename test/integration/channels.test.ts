// SMS and WhatsApp signers end to end against a simulated Twilio and Meta on loopback: exact counts
// of invitations, reminders and codes per channel, the personal link they carry, an SMS signer who
// signs with a code received by SMS, bad phone numbers and authorities, the messages piece each
// message takes, and the outbox when no provider is configured.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addPackage } from '../../src/domain/packages/manage-packages.js';
import { apiError } from '../helpers/api-error.js';
import { startChannelSimulator, type ChannelSimulator } from '../helpers/channel-simulator.js';
import { DAY, movableClock, releaseScheduledJobs } from '../helpers/flow-clock.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signaturePng } from '../helpers/validators.js';

const clock = movableClock();
let sim: ChannelSimulator;
let s: TestServer;
let jobs: JobRunner;
let pdf: string;

beforeAll(async () => {
  sim = await startChannelSimulator();
  s = await startTestServer({ clock, env: sim.env() });
  jobs = jobRunner(s.connectionString, s.deps);
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  await sim?.close();
});
beforeEach(() => {
  sim.messages.length = 0;
});

const box = (i: number) => ({ page: 0, rect: { lx: 40 + i * 170, ly: 60, tx: 190 + i * 170, ty: 120 } });
let seq = 0;
/** A fresh phone number per signer, so counts never mix between tests. */
const phone = () => `+52155${String(1_000_000 + ++seq * 7).padStart(7, '0')}`;

type Phoned = { authority: 'SMS' | 'WHATSAPP'; data: string; name?: string };
async function createWith(stickers: Phoned[], workflow?: Record<string, unknown>) {
  const name = `Contrato ${++seq}`;
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name,
    stickers: stickers.map((x, i) => ({ ...x, ...box(i) })),
    ...(workflow ? { workflow } : {}),
  });
  await jobs.runDue();
  return { ...doc, name };
}

const to = (number: string) => sim.messages.filter((m) => m.to === number);
const tokenOf = (url: string) => url.split('/sign/')[1];

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

async function history(ticket: string) {
  return (await s.client.request('GET', `/api/v1/document/${ticket}/history/json`)) as { entries: { action: string; details: any }[] };
}

describe('invitations and reminders on the signer channel', () => {
  it('invites an SMS signer by SMS through Twilio, with their own link, once', async () => {
    const ana = phone();
    const doc = await createWith([{ authority: 'SMS', data: ana, name: 'Ana' }], { remind_every: 2 });
    expect(to(ana)).toHaveLength(1);
    const [m] = to(ana);
    expect(m).toMatchObject({ provider: 'twilio', channel: 'sms' });
    expect(m.text).toContain(doc.stickers[0].signer_url);
    expect(m.text).toContain('le pide firmar');
    expect(m.callback).toMatch(/\/channels\/twilio\/status\?message_id=/);
    const invited = (await history(doc.document_ticket)).entries.find((e) => e.action === 'invited');
    expect(invited?.details).toMatchObject({ channel: 'sms', recipient: ana });
  });

  it('invites a WHATSAPP signer through Meta with the approved template in the workflow language', async () => {
    const bruno = phone();
    const doc = await createWith([{ authority: 'WHATSAPP', data: bruno }], { language: 'en' });
    expect(to(bruno)).toHaveLength(1);
    expect(to(bruno)[0]).toMatchObject({ provider: 'meta', template: 'sello_invitation', language: 'en_US' });
    // The document as the signer sees it everywhere: its stored file name.
    expect(to(bruno)[0].params).toEqual(['Test account', `${doc.name}.pdf`, doc.stickers[0].signer_url]);
  });

  it('sends one reminder per signer per period, on each one channel, and none to a signer who signed', async () => {
    const carla = phone();
    const dario = phone();
    await createWith(
      [
        { authority: 'SMS', data: carla },
        { authority: 'WHATSAPP', data: dario },
      ],
      { remind_every: 2 },
    );
    expect([to(carla).length, to(dario).length]).toEqual([1, 1]);
    clock.advance(2 * DAY + 60_000);
    await releaseScheduledJobs(s.deps.db, clock);
    await jobs.runDue();
    await jobs.runDue();
    expect(to(carla).map((m) => m.text.startsWith('Recordatorio'))).toEqual([false, true]);
    expect(to(dario).map((m) => m.template)).toEqual(['sello_invitation', 'sello_reminder']);
  });

  it('sends the personal link by SMS through document_url when the phone matches, the same answer otherwise', async () => {
    const eva = phone();
    const doc = await createWith([{ authority: 'SMS', data: eva }]);
    expect(to(eva)).toHaveLength(0); // no workflow: no invitation
    const wrong = await call('POST', `/sign/api/document/${doc.document_ticket}/link`, {
      sticker_id: doc.stickers[0].sticker_id,
      data: '+525500000000',
    });
    const right = await call('POST', `/sign/api/document/${doc.document_ticket}/link`, {
      sticker_id: doc.stickers[0].sticker_id,
      data: eva,
    });
    expect(wrong).toEqual(right);
    expect(right.status).toBe(200);
    await jobs.runDue();
    expect(to(eva)).toHaveLength(1);
    expect(to(eva)[0].text).toContain(doc.stickers[0].signer_url);
  });
});

describe('one-time codes by SMS and WhatsApp, and signing', () => {
  it('an SMS signer asks for a code, receives it by SMS, verifies it and signs', async () => {
    const fer = phone();
    const doc = await createWith([{ authority: 'SMS', data: fer, name: 'Fer' }], {});
    const token = tokenOf(doc.stickers[0].signer_url);
    const info = await call('GET', `/sign/api/${token}`);
    expect(info.json.signer).toMatchObject({ proof: 'sms_code', verified: false });
    const early = await call('POST', `/sign/api/${token}/sign`, { signature: { type: 'typed', text: 'Fer' }, consent: true });
    expect([early.status, early.json.error.code]).toEqual([409, 'VERIFICATION_REQUIRED']);
    const sent = await call('POST', `/sign/api/${token}/otp`);
    expect(sent.status).toBe(200);
    expect(sent.json.to).toMatch(/^\+52\*+\d\d$/);
    await jobs.runDue();
    const codes = to(fer).filter((m) => /código/.test(m.text));
    expect(codes).toHaveLength(1);
    const code = /\b(\d{6})\b/.exec(codes[0].text)![1];
    expect((await call('POST', `/sign/api/${token}/otp/verify`, { code })).json.status).toBe('verified');
    const signed = await call('POST', `/sign/api/${token}/sign`, {
      signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` },
      consent: true,
    });
    expect(signed.status, JSON.stringify(signed.json) + s.logs.filter((l) => /"level":50/.test(l)).join('\n')).toBe(200);
    expect(signed.json).toMatchObject({ status: 'signed', document_status: 'completed' });
  });

  it('a WHATSAPP code goes through the approved code template; the same resend limit as email', async () => {
    const gil = phone();
    const doc = await createWith([{ authority: 'WHATSAPP', data: gil }]);
    const token = tokenOf(doc.stickers[0].signer_url);
    expect((await call('POST', `/sign/api/${token}/otp`)).status).toBe(200);
    expect((await call('POST', `/sign/api/${token}/otp`)).json.error.code).toBe('RATE_LIMITED');
    await jobs.runDue();
    expect(to(gil)).toHaveLength(1);
    expect(to(gil)[0]).toMatchObject({ template: 'sello_code', language: 'es_MX' });
    expect(to(gil)[0].params[0]).toMatch(/^\d{6}$/);
  });
});

describe('bad input', () => {
  it('a phone number not in E.164 form is a 400 naming the sticker and field', async () => {
    const err = await apiError(
      s.client.createDocument({ b64_doc: pdf, name: 'x', stickers: [{ authority: 'SMS', data: '55 1234 5678', ...box(0) }] }),
    );
    expect([err.status, err.code]).toEqual([400, 'INVALID_STICKER']);
    expect(err.details).toMatchObject({ sticker_index: 0, field: 'data' });
    expect(err.message).toMatch(/E\.164/);
  });

  it('an unknown channel is a 400 naming the authority field', async () => {
    const err = await apiError(
      s.client.createDocument({
        b64_doc: pdf,
        name: 'x',
        stickers: [{ authority: 'TELEGRAM' as never, data: '+525512345678', ...box(0) }],
      }),
    );
    expect([err.status, err.code]).toEqual([400, 'INVALID_STICKER']);
    expect(err.details).toMatchObject({ sticker_index: 0, field: 'authority' });
  });
});

describe('messages pieces', () => {
  it('each message takes a piece; without one an invitation is recorded failed with sms_error, a code is 402', async () => {
    const other = await s.newAccount('Packaged');
    await addPackage(s.deps, { webId: other.creds.webId, kind: 'messages', pieces: 1, days: 30 });
    const [h, i] = [phone(), phone()];
    const doc = await other.client.createDocument({
      b64_doc: pdf,
      name: 'Two by SMS',
      stickers: [
        { authority: 'SMS', data: h, ...box(0) },
        { authority: 'SMS', data: i, ...box(1) },
      ],
      workflow: {},
    });
    await jobs.runDue();
    expect([to(h).length, to(i).length]).toEqual([1, 0]);
    expect((await other.client.request('GET', '/api/account')) as any).toMatchObject({ remaining: { messages: 0 } });
    const events = await s.deps.db.selectFrom('notifications').select(['kind', 'meta']).where('kind', '=', 'sms_error').execute();
    expect(events.filter((e) => (e.meta as any).recipient === i)).toEqual([
      { kind: 'sms_error', meta: expect.objectContaining({ channel: 'sms', recipient: i, code: 'PACKAGE_EXHAUSTED' }) },
    ]);
    const otp = await call('POST', `/sign/api/${tokenOf(doc.stickers[0].signer_url)}/otp`);
    expect([otp.status, otp.json.error.code, otp.json.error.details]).toEqual([402, 'PACKAGE_EXHAUSTED', { kind: 'messages' }]);
    // The movable clock stands still: the span ends just after it.
    const report = (await other.client.request('GET', `/api/account/consumption?to=${clock.now().getTime() + 1}`)) as any;
    expect(report.consumption.messages).toEqual({ total: 1, channels: { sms: 1 } });
  });
});

describe('without a provider', () => {
  it('keeps SMS and WhatsApp messages in the outbox, readable at /dev/outbox', async () => {
    const bare = await startTestServer();
    const bareJobs = jobRunner(bare.connectionString, bare.deps);
    try {
      const j = phone();
      const doc = await bare.client.createDocument({
        b64_doc: pdf,
        name: 'Outbox',
        stickers: [{ authority: 'WHATSAPP', data: j, ...box(0) }],
        workflow: {},
      });
      await bareJobs.runDue();
      const outbox = (await (await fetch(`${bare.baseUrl}/dev/outbox`)).json()) as { texts: any[] };
      expect(outbox.texts).toEqual([
        expect.objectContaining({
          channel: 'whatsapp',
          kind: 'invitation',
          to: j,
          status: 'outbox',
          text: expect.stringContaining(doc.stickers[0].signer_url),
        }),
      ]);
      expect(sim.messages).toHaveLength(0);
    } finally {
      await bareJobs.close();
      await bare.close();
    }
  });
});
