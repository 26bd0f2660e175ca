// Delivery of SMS and WhatsApp messages: the providers' status callbacks with valid, forged and
// missing signatures (Twilio's X-Twilio-Signature, Meta's X-Hub-Signature-256 and its verify-token
// challenge), permanent failures (one sms_error / whatsapp_error per message, with the provider's
// code, in the history too) and transient ones (retried with backoff, sent once).
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { META, postMetaStatus, postTwilioStatus, startChannelSimulator, type ChannelSimulator } from '../helpers/channel-simulator.js';
import { movableClock, releaseScheduledJobs } from '../helpers/flow-clock.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

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

let seq = 0;
const phone = () => `+52166${String(1_000_000 + ++seq * 13).padStart(7, '0')}`;

async function invite(authority: 'SMS' | 'WHATSAPP', data: string) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: `Aviso ${++seq}`,
    stickers: [{ authority, data, page: 0, rect: { lx: 40, ly: 60, tx: 190, ty: 120 } }],
    workflow: {},
  });
  await jobs.runDue();
  return doc;
}

async function messageOf(recipient: string) {
  const r = await sql<{ status: string; error_code: string | null; attempts: number }>`
    select status, error_code, attempts from channel_messages where recipient = ${recipient} order by id desc limit 1`.execute(s.deps.db);
  return r.rows[0];
}

async function errorsFor(recipient: string) {
  const rows = await s.deps.db
    .selectFrom('notifications')
    .select(['kind', 'meta'])
    .where('kind', 'in', ['sms_error', 'whatsapp_error'])
    .execute();
  return rows.filter((r) => (r.meta as { recipient: string }).recipient === recipient);
}

async function historyActions(ticket: string) {
  const h = (await s.client.request('GET', `/api/v1/document/${ticket}/history/json`)) as { entries: { action: string; details: any }[] };
  return h.entries;
}

describe('Twilio status callbacks', () => {
  it('a signed delivery report marks the message delivered; forged or unsigned ones are 403 and change nothing', async () => {
    const ana = phone();
    await invite('SMS', ana);
    const [m] = sim.messages.filter((x) => x.to === ana);
    expect((await messageOf(ana)).status).toBe('sent');
    const forged = await postTwilioStatus(m, { MessageStatus: 'delivered' }, { token: 'not-the-token' });
    const unsigned = await postTwilioStatus(m, { MessageStatus: 'delivered' }, { unsigned: true });
    expect([forged.status, unsigned.status]).toEqual([403, 403]);
    expect(((await forged.json()) as any).error.code).toBe('CALLBACK_SIGNATURE_INVALID');
    expect((await messageOf(ana)).status).toBe('sent');
    const ok = await postTwilioStatus(m, { MessageStatus: 'delivered' });
    expect(ok.status).toBe(200);
    expect((await messageOf(ana)).status).toBe('delivered');
  });

  it('a permanent failure emits sms_error once, with the provider code, and the history shows it', async () => {
    const bruno = phone();
    const doc = await invite('SMS', bruno);
    const [m] = sim.messages.filter((x) => x.to === bruno);
    const forged = await postTwilioStatus(m, { MessageStatus: 'undelivered', ErrorCode: '30003' }, { token: 'x' });
    expect(forged.status).toBe(403);
    expect(await errorsFor(bruno)).toEqual([]);
    for (let i = 0; i < 2; i++) {
      expect((await postTwilioStatus(m, { MessageStatus: 'undelivered', ErrorCode: '30003' })).status).toBe(200);
    }
    expect(await errorsFor(bruno)).toEqual([
      { kind: 'sms_error', meta: { channel: 'sms', recipient: bruno, code: '30003', reply: expect.stringContaining('undelivered 30003') } },
    ]);
    expect(await messageOf(bruno)).toMatchObject({ status: 'failed', error_code: '30003' });
    const failed = (await historyActions(doc.document_ticket)).filter((e) => e.action === 'message_failed');
    expect(failed).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ channel: 'sms', kind: 'invitation', code: '30003' }) }),
    ]);
    // The document listing shows it on the signer's entry.
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
    expect(listed.signers[0].delivery_error).toEqual({
      channel: 'sms',
      kind: 'invitation',
      code: '30003',
      reply: expect.stringContaining('undelivered 30003'),
      failed_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });
});

describe('Meta webhook', () => {
  it('answers the verification challenge only with the right verify token', async () => {
    const q = (token: string) => `${s.baseUrl}/channels/meta/webhook?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`;
    const ok = await fetch(q(META.verify));
    expect([ok.status, await ok.text()]).toEqual([200, '1158201444']);
    expect((await fetch(q('wrong'))).status).toBe(403);
  });

  it('a signed failed status emits whatsapp_error once; forged is 403', async () => {
    const carla = phone();
    await invite('WHATSAPP', carla);
    const [m] = sim.messages.filter((x) => x.to === carla);
    const failure = { status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable' }] };
    expect((await postMetaStatus(s.baseUrl, m, failure, { secret: 'nope' })).status).toBe(403);
    expect((await postMetaStatus(s.baseUrl, m, failure, { unsigned: true })).status).toBe(403);
    expect(await errorsFor(carla)).toEqual([]);
    expect((await postMetaStatus(s.baseUrl, m, failure)).status).toBe(200);
    expect((await postMetaStatus(s.baseUrl, m, failure)).status).toBe(200);
    expect(await errorsFor(carla)).toEqual([
      { kind: 'whatsapp_error', meta: expect.objectContaining({ channel: 'whatsapp', recipient: carla, code: '131026' }) },
    ]);
  });

  it('a delivered status marks the message delivered', async () => {
    const dario = phone();
    await invite('WHATSAPP', dario);
    const [m] = sim.messages.filter((x) => x.to === dario);
    expect((await postMetaStatus(s.baseUrl, m, { status: 'delivered' })).status).toBe(200);
    expect((await messageOf(dario)).status).toBe('delivered');
  });
});

describe('failures when sending', () => {
  it('a number the provider refuses for good fails at once with its code, sent never', async () => {
    const eva = phone();
    sim.refuse.add(eva);
    await invite('SMS', eva);
    expect(sim.messages.filter((x) => x.to === eva)).toEqual([]);
    expect(await messageOf(eva)).toMatchObject({ status: 'failed', error_code: '21211', attempts: 1 });
    const listed = (await s.client.listDocuments()).documents.flatMap((d) => d.signers).find((x) => x.data === eva)!;
    expect(listed.delivery_error).toMatchObject({ channel: 'sms', kind: 'invitation', code: '21211' });
    expect(await errorsFor(eva)).toEqual([{ kind: 'sms_error', meta: expect.objectContaining({ code: '21211', recipient: eva }) }]);
  });

  it('a provider briefly unavailable is retried with backoff, and the message is sent exactly once, no event', async () => {
    const fer = phone();
    sim.unavailable.set(fer, 2);
    await invite('WHATSAPP', fer);
    expect(await messageOf(fer)).toMatchObject({ status: 'queued', attempts: 1 });
    for (let i = 0; i < 2; i++) {
      clock.advance(10 * 60_000);
      await releaseScheduledJobs(s.deps.db, clock, ['send_message']);
      await jobs.runDue();
    }
    expect(sim.messages.filter((x) => x.to === fer)).toHaveLength(1);
    expect(await messageOf(fer)).toMatchObject({ status: 'sent', attempts: 3 });
    // A late retry of a sent message sends nothing.
    await jobs.runDue();
    expect(sim.messages.filter((x) => x.to === fer)).toHaveLength(1);
    expect(await errorsFor(fer)).toEqual([]);
  });
});
