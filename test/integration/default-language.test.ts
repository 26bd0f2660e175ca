// The operator's default language is the workflow's when it sets none (decisions.md "Workflow
// keys": `language` defaults to SELLO_DEFAULT_LANGUAGE, Spanish unless configured): on a server
// configured in English, a document or set whose workflow names no language invites, reminds,
// sends codes, texts and personal links, and concludes in English; a workflow's own `language`
// still wins.
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY, HOUR, movableClock } from '../helpers/flow-clock.js';
import { mailKind, startMailFlow, type MailFlow } from '../helpers/mail-flow.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { signaturePng } from '../helpers/validators.js';

const clock = movableClock();
let flow: MailFlow;
let pdf: string;

beforeAll(async () => {
  flow = await startMailFlow({ clock, env: { SELLO_DEFAULT_LANGUAGE: 'en' } });
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(() => flow?.close());
beforeEach(() => {
  flow.smtp.messages.length = 0;
});

const box = (x: number) => ({ page: 0, rect: { lx: x, ly: 60, tx: x + 150, ty: 120 } });
const drawn = { signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` }, consent: true };
const mailTo = (addr: string) => flow.smtp.messages.filter((m) => m.to.includes(addr));
const subjects = (addr: string) => mailTo(addr).map((m) => m.subject);

let seq = 0;
async function newDocument(
  workflow: Record<string, unknown>,
  signers: { authority: 'EMAIL_LINK' | 'EMAIL' | 'SMS'; data: string; name: string }[],
) {
  const tag = ++seq;
  const doc = await flow.s.client.createDocument({
    b64_doc: pdf,
    name: `Contract ${tag}.pdf`,
    stickers: signers.map((x, i) => ({ ...x, ...box(40 + i * 170) })),
    workflow,
  });
  await flow.jobs.runDue();
  return { name: `Contract ${tag}.pdf`, ticket: doc.document_ticket, urls: doc.stickers.map((x) => x.signer_url) };
}

async function post(url: string, body?: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

/** The languages the SMS and WhatsApp outbox recorded for a phone, oldest first. */
async function textLanguages(phone: string): Promise<string[]> {
  const r = await sql<{ language: string }>`select language from channel_messages where recipient = ${phone} order by id`.execute(
    flow.s.deps.db,
  );
  return r.rows.map((x) => x.language);
}

describe('a server whose default language is English', () => {
  it('a document whose workflow sets no language: invitation, reminder, code and SMS in English', async () => {
    const doc = await newDocument({ remind_every: 1 }, [
      { authority: 'EMAIL_LINK', data: 'ana.en@example.com', name: 'Ana' },
      { authority: 'EMAIL', data: 'bruno.en@example.com', name: 'Bruno' },
      { authority: 'SMS', data: '+525512340001', name: 'Carla' },
    ]);
    expect(subjects('ana.en@example.com')).toEqual([`Signature requested: ${doc.name}`]);
    expect(mailTo('ana.en@example.com')[0].text).not.toMatch(/firma/i);
    expect(subjects('bruno.en@example.com')).toEqual([`Signature requested: ${doc.name}`]);
    expect(await textLanguages('+525512340001')).toEqual(['en']);

    await flow.passTime(DAY + HOUR);
    expect(
      mailTo('ana.en@example.com')
        .filter((m) => mailKind(m) === 'reminder')
        .map((m) => m.subject),
    ).toEqual([`Reminder: your signature on ${doc.name} is pending`]);

    flow.smtp.messages.length = 0;
    await post(`${doc.urls[1].replace('/sign/', '/sign/api/')}/otp`);
    await flow.jobs.runDue();
    expect(subjects('bruno.en@example.com')).toEqual(['Your signing code']);
  });

  it('the conclusion email of a document whose workflow sets no language is in English', async () => {
    const doc = await newDocument({ remind_every: 0 }, [{ authority: 'EMAIL_LINK', data: 'dora.en@example.com', name: 'Dora' }]);
    await post(`${doc.urls[0].replace('/sign/', '/sign/api/')}/sign`, drawn);
    await flow.jobs.runDue();
    await flow.jobs.runDue();
    expect(
      mailTo('dora.en@example.com')
        .filter((m) => mailKind(m) === 'conclusion')
        .map((m) => m.subject),
    ).toEqual([`Document signed: ${doc.name}`]);
  });

  it('a set closed with a workflow that sets no language invites in English', async () => {
    const set = await flow.s.client.createDocumentSet({ name: 'Onboarding' });
    await flow.s.client.createDocument({
      b64_doc: pdf,
      name: 'Set document.pdf',
      document_set: set.uuid,
      stickers: [{ authority: 'EMAIL_LINK', data: 'eva.en@example.com', name: 'Eva', ...box(40) }],
    });
    await flow.s.client.closeDocumentSet(set.uuid, { remind_every: 2 });
    await flow.jobs.runDue();
    expect(subjects('eva.en@example.com')).toEqual(['Signature requested: Set document.pdf']);
  });

  it('a personal link asked for through document_url, of a document with no workflow, is emailed in English', async () => {
    const doc = await flow.s.client.createDocument({
      b64_doc: pdf,
      name: 'Offer.pdf',
      stickers: [{ authority: 'EMAIL_LINK', data: 'ines.en@example.com', name: 'Inés', ...box(40) }],
    });
    await post(`${flow.s.baseUrl}/sign/api/document/${doc.document_ticket}/link`, {
      sticker_id: doc.stickers[0].sticker_id,
      data: 'ines.en@example.com',
    });
    await flow.jobs.runDue();
    expect(subjects('ines.en@example.com')).toEqual(['Signature requested: Offer.pdf']);
  });

  it('an explicit language "es" still wins, for a document and for a set', async () => {
    const doc = await newDocument({ language: 'es' }, [
      { authority: 'EMAIL_LINK', data: 'fede.es@example.com', name: 'Fede' },
      { authority: 'SMS', data: '+525512340002', name: 'Gil' },
    ]);
    expect(subjects('fede.es@example.com')).toEqual([`Firma solicitada: ${doc.name}`]);
    expect(await textLanguages('+525512340002')).toEqual(['es']);

    const set = await flow.s.client.createDocumentSet({ name: 'Alta' });
    await flow.s.client.createDocument({
      b64_doc: pdf,
      name: 'Documento del conjunto.pdf',
      document_set: set.uuid,
      stickers: [{ authority: 'EMAIL_LINK', data: 'hugo.es@example.com', name: 'Hugo', ...box(40) }],
    });
    await flow.s.client.closeDocumentSet(set.uuid, { language: 'es' });
    await flow.jobs.runDue();
    expect(subjects('hugo.es@example.com')).toEqual(['Firma solicitada: Documento del conjunto.pdf']);
  });
});
