// document_url: the public page's API. Every box with its signer masked (never the PDF), the personal
// link emailed (caught by a real SMTP server) to a signer who gives their own address; the same
// answer for any other address, an hourly limit per signer, and the refusals.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { movableClock } from '../helpers/flow-clock.js';
import type { JobRunner } from '../helpers/jobs.js';
import { startMailFlow, type MailFlow } from '../helpers/mail-flow.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { SmtpCatcher } from '../helpers/smtp-catcher.js';
import { signaturePng } from '../helpers/validators.js';
import { publicCall } from '../helpers/public-call.js';

const clock = movableClock();
let flow: MailFlow;
let s: TestServer;
let smtp: SmtpCatcher;
let jobs: JobRunner;
let pdf: string;

beforeAll(async () => {
  flow = await startMailFlow({ clock });
  ({ s, smtp, jobs } = flow);
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(() => flow?.close());
beforeEach(() => {
  smtp.messages.length = 0;
});

const box = (page: number, x = 60) => ({ page, rect: { lx: x, ly: 60, tx: x + 200, ty: 130 } });

let seq = 0;
/** Ana (named, EMAIL_LINK, two boxes), an unnamed EMAIL_LINK signer, an EMAIL signer and an SMS signer. */
async function newDocument(workflow?: Record<string, unknown>) {
  const tag = ++seq;
  const ana = `ana.${tag}@example.com`;
  const juan = `juan.${tag}@example.com`;
  const eva = `eva.${tag}@example.com`;
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: `Contrato ${tag}`,
    stickers: [
      { authority: 'EMAIL_LINK', data: ana, name: 'Ana García', ...box(0) },
      { authority: 'EMAIL_LINK', data: ana, ...box(1) },
      { authority: 'EMAIL_LINK', data: juan, ...box(0, 320) },
      { authority: 'EMAIL', data: eva, ...box(1, 320) },
      { authority: 'SMS', data: '+525512345678', ...box(1, 60 + 200) },
    ],
    ...(workflow ? { workflow } : {}),
  });
  // A workflow's own invitations go out now, so each test counts only the emails it causes.
  await jobs.runDue();
  smtp.messages.length = 0;
  const sticker = (i: number) => doc.stickers[i].sticker_id;
  return { doc, ticket: doc.document_ticket, ana, juan, eva, sticker, url: (i: number) => doc.stickers[i].signer_url };
}

const call = (method: string, path: string, body?: unknown) => publicCall(s.baseUrl, method, path, body);

const page = (ticket: string) => call('GET', `/sign/api/document/${ticket}`);
const askLink = (ticket: string, stickerId: string, data: unknown) =>
  call('POST', `/sign/api/document/${ticket}/link`, { sticker_id: stickerId, data });
const mailsTo = (addr: string) => smtp.messages.filter((m) => m.to.map((t) => t.toLowerCase()).includes(addr));

async function linkHistory(ticket: string) {
  return (await s.client.documentHistory(ticket)).entries.filter((e) => e.action === 'link_requested');
}

const drawn = { signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` }, consent: true };
const sign = (signerUrl: string) => call('POST', `${new URL(signerUrl).pathname.replace('/sign/', '/sign/api/')}/sign`, drawn);

describe('GET /sign/api/document/{ticket}', () => {
  it('shows every box with its signer labelled, addresses and phones masked, never in full', async () => {
    const d = await newDocument();
    const r = await page(d.ticket);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.json.document).toEqual({ ticket: d.ticket, name: `Contrato ${seq}.pdf`, status: 'pending' });
    expect(r.json.pages).toEqual([
      { page: 0, width: A4.width, height: A4.height, rotation: 0 },
      { page: 1, width: A4.width, height: A4.height, rotation: 0 },
    ]);
    expect(r.json.language).toBeNull();
    expect(r.json.boxes).toEqual([
      {
        sticker_id: d.sticker(0),
        page: 0,
        rect: { lx: 60, ly: 60, tx: 260, ty: 130 },
        signer: { label: 'A*** G*** · a***@example.com', authority: 'EMAIL_LINK', status: 'pending', link_by: 'email' },
      },
      {
        sticker_id: d.sticker(1),
        page: 1,
        rect: { lx: 60, ly: 60, tx: 260, ty: 130 },
        signer: { label: 'A*** G*** · a***@example.com', authority: 'EMAIL_LINK', status: 'pending', link_by: 'email' },
      },
      {
        sticker_id: d.sticker(2),
        page: 0,
        rect: { lx: 320, ly: 60, tx: 520, ty: 130 },
        signer: { label: 'j***@example.com', authority: 'EMAIL_LINK', status: 'pending', link_by: 'email' },
      },
      {
        sticker_id: d.sticker(3),
        page: 1,
        rect: { lx: 320, ly: 60, tx: 520, ty: 130 },
        signer: { label: 'e***@example.com', authority: 'EMAIL', status: 'pending', link_by: 'email' },
      },
      {
        sticker_id: d.sticker(4),
        page: 1,
        rect: { lx: 260, ly: 60, tx: 460, ty: 130 },
        signer: { label: '+52********78', authority: 'SMS', status: 'pending', link_by: 'phone' },
      },
    ]);
    for (const secret of [d.ana, d.juan, d.eva, '5512345678', 'García', d.url(0).split('/').pop()!]) {
      expect(r.text).not.toContain(secret);
    }
  });

  it('speaks the workflow language when it sets one', async () => {
    const d = await newDocument({ language: 'en' });
    expect((await page(d.ticket)).json.language).toBe('en');
  });

  it('never serves the PDF: the ticket is printed in the verification QR code', async () => {
    const d = await newDocument();
    const r = await call('GET', `/sign/api/document/${d.ticket}/pdf`);
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('the page itself answers like the signing page', async () => {
    const d = await newDocument();
    const [doc, signer] = await Promise.all([fetch(`${s.baseUrl}/document/${d.ticket}`), fetch(d.url(0))]);
    expect(doc.status).toBe(signer.status);
    expect(doc.headers.get('content-type')).toBe(signer.headers.get('content-type'));
    expect(doc.headers.get('content-security-policy')).toBe(signer.headers.get('content-security-policy'));
    expect(await doc.text()).toBe(await signer.text());
  });

  it('the two operations are in the OpenAPI description, without authentication', async () => {
    const spec = (await call('GET', '/openapi.json')).json;
    expect(spec.paths['/sign/api/document/{ticket}'].get.responses['200']).toBeDefined();
    expect(spec.paths['/sign/api/document/{ticket}/pdf']).toBeUndefined();
    const link = spec.paths['/sign/api/document/{ticket}/link'].post;
    expect(Object.keys(link.requestBody.content['application/json'].schema.properties)).toEqual(['sticker_id', 'data']);
    expect(link.security).toEqual([]); // public: no authentication
  });

  it('404 for an unknown ticket and for a deleted document', async () => {
    for (const path of ['/sign/api/document/no-such-ticket', `/sign/api/document/${'x'.repeat(100)}`]) {
      const r = await call('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.json.error.code).toBe('DOCUMENT_NOT_FOUND');
    }
    const d = await newDocument();
    await s.client.deleteDocument(d.ticket);
    expect((await page(d.ticket)).status).toBe(404);
    expect((await askLink(d.ticket, d.sticker(0), d.ana)).status).toBe(404);
  });
});

describe('POST /sign/api/document/{ticket}/link', () => {
  it("the box's own address gets exactly one email: the signer's personal link, which opens their signing session", async () => {
    const d = await newDocument();
    const r = await askLink(d.ticket, d.sticker(1), `  ${d.ana.toUpperCase()} `);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 'sent_if_matching', message: expect.any(String) });
    await jobs.runDue();
    expect(smtp.messages).toHaveLength(1);
    const [mail] = mailsTo(d.ana);
    expect(mail.text).toContain(d.url(0));
    expect(mail.html).toContain(d.url(0));
    expect(mail.text).toContain('Test account');
    expect(mail.subject).toBe(`Firma solicitada: Contrato ${seq}.pdf`);

    const link = mail.text.match(/https?:\/\/\S+\/sign\/[A-Za-z0-9_-]{43}/)![0];
    expect(link).toBe(d.url(0));
    const info = await call('GET', new URL(link).pathname.replace('/sign/', '/sign/api/'));
    expect(info.status).toBe(200);
    expect(info.json.signer).toMatchObject({ name: 'Ana García', email: d.ana, proof: 'link' });
    expect(info.json.document.ticket).toBe(d.ticket);

    const [entry] = await linkHistory(d.ticket);
    expect(entry).toMatchObject({
      action: 'link_requested',
      actor: 'public',
      details: { signer_id: d.doc.stickers[1].signer_id, sticker_id: d.sticker(1), sent: true },
    });
    expect(entry.ip).toBe('127.0.0.1');
  });

  it('an EMAIL signer gets their link too (the page then asks for a code); English when the workflow says so', async () => {
    const d = await newDocument({ language: 'en' });
    expect((await askLink(d.ticket, d.sticker(3), d.eva)).status).toBe(200);
    await jobs.runDue();
    const mails = mailsTo(d.eva);
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toContain(d.url(3));
    expect(mails[0].text).toContain('Review and sign');
  });

  it('another address gets the same answer and no email', async () => {
    const d = await newDocument();
    const hit = await askLink(d.ticket, d.sticker(2), d.juan);
    const miss = await askLink(d.ticket, d.sticker(2), d.ana);
    const nobody = await askLink(d.ticket, d.sticker(0), 'intruder@example.org');
    expect([miss.status, nobody.status]).toEqual([200, 200]);
    expect(miss.text).toBe(hit.text);
    expect(nobody.text).toBe(hit.text);
    await jobs.runDue();
    expect(smtp.messages.map((m) => m.to[0].toLowerCase())).toEqual([d.juan]);
    expect((await linkHistory(d.ticket)).map((e) => e.details.sent)).toEqual([true, false, false]);
  });

  it('a signer who already signed is sent nothing, with the same answer', async () => {
    const d = await newDocument();
    expect((await sign(d.url(2))).status).toBe(200);
    const r = await askLink(d.ticket, d.sticker(2), d.juan);
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('sent_if_matching');
    await jobs.runDue();
    expect(mailsTo(d.juan)).toHaveLength(0);
  });

  it('at most three requests for one signer an hour, matching or not: the fourth is 429 with Retry-After', async () => {
    const d = await newDocument();
    // Wrong guesses count as much as the right address: a 429 tells nothing about a guess.
    for (const data of ['guess@example.org', d.ana, 'other@example.org']) {
      expect((await askLink(d.ticket, d.sticker(0), data)).status).toBe(200);
      clock.advance(60_000);
    }
    await jobs.runDue();
    expect(mailsTo(d.ana)).toHaveLength(1);
    for (const data of [d.ana, 'someone@example.org']) {
      const r = await askLink(d.ticket, d.sticker(1), data);
      expect(r.status).toBe(429);
      expect(r.json.error.code).toBe('RATE_LIMITED');
      // The first request frees its place an hour after it was made, three minutes ago.
      expect(Number(r.headers.get('retry-after'))).toBe(57 * 60);
    }
    // Another signer of the same document is counted apart.
    expect((await askLink(d.ticket, d.sticker(2), d.juan)).status).toBe(200);

    clock.advance(57 * 60_000);
    expect((await askLink(d.ticket, d.sticker(0), d.ana)).status).toBe(200);
    await jobs.runDue();
    expect(mailsTo(d.ana)).toHaveLength(2);
  });

  it('SAT boxes without an email on file: 409 AUTHORITY_NOT_AVAILABLE; an SMS box takes a phone number, not an email', async () => {
    const d = await newDocument();
    const sat = await s.client.createDocument({ b64_doc: pdf, stickers: [{ authority: 'SAT', data: 'GODE561231GR8', ...box(0) }] });
    const r = await askLink(sat.document_ticket, sat.stickers[0].sticker_id, 'GODE561231GR8');
    expect(r.status).toBe(409);
    expect(r.json.error).toMatchObject({ code: 'AUTHORITY_NOT_AVAILABLE', details: { authority: 'SAT' } });
    expect(r.json.error.message).toContain('no email address on file');
    const sms = await askLink(d.ticket, d.sticker(4), '+52 55 1234 5678');
    expect(sms.status).toBe(200);
    await jobs.runDue();
    expect(smtp.messages).toHaveLength(0);
  });

  it('a document that can no longer be signed: 409 DOCUMENT_NOT_SIGNABLE, and the page shows its state', async () => {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      stickers: [{ authority: 'EMAIL_LINK', data: 'solo@example.com', ...box(0) }],
    });
    expect((await sign(doc.stickers[0].signer_url)).status).toBe(200);
    const r = await askLink(doc.document_ticket, doc.stickers[0].sticker_id, 'solo@example.com');
    expect(r.status).toBe(409);
    expect(r.json.error).toMatchObject({
      code: 'DOCUMENT_NOT_SIGNABLE',
      message: 'the document is already signed by everyone',
      details: { status: 'completed' },
    });
    const p = await page(doc.document_ticket);
    expect(p.json.document.status).toBe('completed');
    expect(p.json.boxes[0].signer.status).toBe('signed');
    await jobs.runDue();
    expect(smtp.messages).toHaveLength(0);
  });

  it('404 for an unknown ticket or sticker, 400 naming a missing or invalid field', async () => {
    const d = await newDocument();
    const other = await newDocument();
    expect((await askLink('no-such-ticket', d.sticker(0), d.ana)).json.error.code).toBe('DOCUMENT_NOT_FOUND');
    for (const sticker of ['no-such-sticker', other.sticker(0)]) {
      const r = await askLink(d.ticket, sticker, d.ana);
      expect(r.status).toBe(404);
      expect(r.json.error).toMatchObject({ code: 'SIGNER_NOT_FOUND', details: { field: 'sticker_id' } });
    }
    const bad: [unknown, string][] = [
      [{ data: d.ana }, 'sticker_id'],
      [{ sticker_id: 7, data: d.ana }, 'sticker_id'],
      [{ sticker_id: d.sticker(0) }, 'data'],
      [{ sticker_id: d.sticker(0), data: '   ' }, 'data'],
      [{ sticker_id: d.sticker(0), data: `${'a'.repeat(250)}@example.com` }, 'data'],
      [[1, 2], 'body'],
    ];
    for (const [body, field] of bad) {
      const r = await call('POST', `/sign/api/document/${d.ticket}/link`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error.code).toBe('INVALID_INPUT');
      expect(r.json.error.details.field).toBe(field);
      expect(r.json.error.message.startsWith(field)).toBe(true);
    }
    await jobs.runDue();
    expect(smtp.messages).toHaveLength(0);
    expect(await linkHistory(d.ticket)).toHaveLength(0);
  });
});

describe('reads of one document', () => {
  it('are bounded per minute (the ticket is public): 429 with Retry-After beyond the limit', async () => {
    const small = await startTestServer({ env: { SELLO_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const doc = await small.client.createDocument({
        b64_doc: pdf,
        stickers: [{ authority: 'EMAIL_LINK', data: 'a@example.com', ...box(0) }],
      });
      const read = () => fetch(`${small.baseUrl}/sign/api/document/${doc.document_ticket}`);
      for (let i = 0; i < 3; i++) {
        expect((await read()).status).toBe(200);
      }
      const refused = await read();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await small.close();
    }
  });
});
