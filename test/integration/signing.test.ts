// Signing through the signing API: real PAdES signatures, judged by pdfsig (trusting the
// service's root), qpdf and the bytes themselves.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pemCertificates } from '../../src/pki/index.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { A4, makePdf, pdfShownText } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig, qpdfCheckAsync, signaturePng } from '../helpers/validators.js';
import { publicCall } from '../helpers/public-call.js';
import { eventKinds } from '../helpers/events.js';

let s: TestServer;
let rootPem: string;
let pdf: string;

beforeAll(async () => {
  s = await startTestServer();
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(() => s?.close());

const box = (page: number, x = 60) => ({ page, rect: { lx: x, ly: 60, tx: x + 200, ty: 130 } });

async function twoSignerDocument(extra: Record<string, unknown> = {}) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0) },
      { authority: 'EMAIL_LINK', data: 'ana@example.com', ...box(1) },
      { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', ...box(1, 320) },
    ],
    ...extra,
  });
  const tokenOf = (i: number) => doc.stickers[i].signer_url.split('/').pop()!;
  return { doc, ana: tokenOf(0), bruno: tokenOf(2) };
}

const call = (method: string, path: string, body?: unknown) => publicCall(s.baseUrl, method, path, body);

const drawn = () => ({ signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` }, consent: true });
const typed = (text: string) => ({ signature: { type: 'typed', text }, consent: true });

const eventsOf = (ticket: string) => eventKinds(s.deps.db, ticket);

describe('signing end to end', () => {
  it('two signers sign; both signatures are valid and trusted in pdfsig, each revision a prefix of the next', async () => {
    const { doc, ana, bruno } = await twoSignerDocument();
    const info = await call('GET', `/sign/api/${ana}`);
    expect(info.status).toBe(200);
    expect(info.json.document).toMatchObject({ ticket: doc.document_ticket, name: 'Contrato.pdf', status: 'pending' });
    expect(info.json.signer).toMatchObject({ name: 'Ana García', authority: 'EMAIL_LINK', status: 'viewed' });
    expect(info.json.boxes.map((b: { page: number }) => b.page)).toEqual([0, 1]);
    expect(info.json.pages).toHaveLength(2);

    const r1 = await call('POST', `/sign/api/${ana}/sign`, drawn());
    expect(r1.status).toBe(200);
    expect(r1.json).toMatchObject({ status: 'signed', document_status: 'pending' });
    const afterAna = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;

    const r2 = await call('POST', `/sign/api/${bruno}/sign`, typed('Bruno Díaz'));
    expect(r2.json).toMatchObject({ status: 'signed', document_status: 'completed' });
    const final = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;

    const source = Buffer.from(pdf, 'base64');
    expect(afterAna.subarray(0, source.length).equals(source)).toBe(true);
    expect(final.subarray(0, afterAna.length).equals(afterAna)).toBe(true);
    expect((await s.client.downloadDocument('source', doc.document_ticket)).bytes.equals(source)).toBe(true);

    const report = await pdfsig(final, rootPem);
    expect(report.signatures, report.output).toHaveLength(2);
    for (const sig of report.signatures) {
      expect(sig.valid, sig.block).toBe(true);
      expect(sig.trusted, sig.block).toBe(true);
      expect(sig.type).toBe('ETSI.CAdES.detached');
    }
    expect(report.signatures.map((x) => x.commonName)).toEqual(['Ana García', 'Bruno Díaz']);
    expect(report.signatures[1].totalDocumentSigned).toBe(true);
    const check = await qpdfCheckAsync(final);
    expect(check.output).toMatch(/No syntax or stream encoding errors found/);

    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === doc.document_ticket)!;
    expect(listed.status).toBe('completed');
    expect(listed.signed_count).toBe(2);
    expect(await eventsOf(doc.document_ticket)).toEqual(['original_signed', 'original_signed', 'document_completed']);
  });

  it('serializes signers who sign at the same instant: both end up in the file, both valid', async () => {
    const { doc, ana, bruno } = await twoSignerDocument();
    const [a, b] = await Promise.all([call('POST', `/sign/api/${ana}/sign`, drawn()), call('POST', `/sign/api/${bruno}/sign`, drawn())]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const final = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const report = await pdfsig(final, rootPem);
    expect(report.signatures.map((x) => x.valid)).toEqual([true, true]);
    expect(new Set(report.signatures.map((x) => x.commonName))).toEqual(new Set(['Ana García', 'Bruno Díaz']));
  });

  it('refuses to sign twice, a finished document, an unknown link, and missing consent', async () => {
    const { ana, bruno } = await twoSignerDocument();
    expect((await call('POST', `/sign/api/${ana}/sign`, { signature: drawn().signature })).status).toBe(400);
    expect((await call('POST', `/sign/api/${ana}/sign`, drawn())).status).toBe(200);
    const again = await call('POST', `/sign/api/${ana}/sign`, drawn());
    expect([again.status, again.json.error.code]).toEqual([409, 'ALREADY_SIGNED']);
    await call('POST', `/sign/api/${bruno}/sign`, drawn());
    const done = await call('GET', `/sign/api/${bruno}`);
    expect(done.json.document.status).toBe('completed');
    const unknown = await call('GET', `/sign/api/${'x'.repeat(43)}`);
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'SIGNING_LINK_INVALID']);
  });

  it('one signer signing and rejecting at the same instant: exactly one happens, the other is 409', async () => {
    for (let i = 0; i < 5; i++) {
      const { doc, ana } = await twoSignerDocument();
      const [a, b, c] = await Promise.all([
        call('POST', `/sign/api/${ana}/sign`, drawn()),
        call('POST', `/sign/api/${ana}/reject`, { reason: 'No' }),
        call('POST', `/sign/api/${ana}/sign`, drawn()),
      ]);
      expect([a.status, b.status, c.status].filter((x) => x === 200)).toHaveLength(1);
      expect([a.status, b.status, c.status].filter((x) => x === 409)).toHaveLength(2);
      const events = await eventsOf(doc.document_ticket);
      expect(events).toHaveLength(1);
      const revisions = await sql`select r.revision from document_revisions r join documents d on d.id = r.document_id
        where d.ticket = ${doc.document_ticket}`.execute(s.deps.db);
      expect(revisions.rows.length).toBe(events[0] === 'original_signed' ? 1 : 0);
    }
  });

  it('refuses an image that is not a PNG and typed text that is too long', async () => {
    const { ana } = await twoSignerDocument();
    const jpeg = await call('POST', `/sign/api/${ana}/sign`, {
      signature: { type: 'drawn', image: 'data:image/png;base64,/9j/4AAQSkZJRg==' },
      consent: true,
    });
    expect([jpeg.status, jpeg.json.error.code]).toEqual([400, 'SIGNATURE_INVALID']);
    const long = await call('POST', `/sign/api/${ana}/sign`, typed('x'.repeat(101)));
    expect(long.status).toBe(400);
  });

  it('serves the current PDF to the signer', async () => {
    const { ana } = await twoSignerDocument();
    const res = await fetch(`${s.baseUrl}/sign/api/${ana}/pdf`);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(pdf, 'base64'))).toBe(true);
  });
});

describe('who asks, and the language of the legend', () => {
  it('tells the signer the account that asks, its message, and the default language', async () => {
    const { ana } = await twoSignerDocument({ workflow: { message: 'Firma antes del viernes.', remind_every: 0 } });
    const info = await call('GET', `/sign/api/${ana}`);
    expect(info.status).toBe(200);
    const account = await s.deps.db.selectFrom('accounts').select('name').where('web_id', '=', s.creds.webId).executeTakeFirstOrThrow();
    // No brand set: the account's name, no logo, Sello's name shown.
    expect(info.json.sender).toEqual({ name: account.name, logo: null, brand_name: null, brand_colour: null, hide_sello: false });
    expect(info.json.message).toBe('Firma antes del viernes.');
    expect(info.json.default_language).toBe('es');
    const plain = await twoSignerDocument();
    expect((await call('GET', `/sign/api/${plain.ana}`)).json.message).toBeNull();
  });

  it("draws the legend in the page's language, else the workflow's, else the default; refuses another", async () => {
    const english = await twoSignerDocument({ workflow: { language: 'es', remind_every: 0 } });
    expect((await call('POST', `/sign/api/${english.ana}/sign`, { ...typed('Ana'), language: 'en' })).status).toBe(200);
    let text = pdfShownText((await s.client.downloadDocument('original', english.doc.document_ticket)).bytes);
    expect(text).toContain('Signed: ');
    expect(text).not.toContain('Firmado:');

    const workflow = await twoSignerDocument({ workflow: { language: 'en', remind_every: 0 } });
    expect((await call('POST', `/sign/api/${workflow.ana}/sign`, typed('Ana'))).status).toBe(200);
    text = pdfShownText((await s.client.downloadDocument('original', workflow.doc.document_ticket)).bytes);
    expect(text).toContain('Signed: ');

    const none = await twoSignerDocument();
    expect((await call('POST', `/sign/api/${none.ana}/sign`, typed('Ana'))).status).toBe(200);
    text = pdfShownText((await s.client.downloadDocument('original', none.doc.document_ticket)).bytes);
    expect(text).toContain('Firmado: ');
    expect(text).toContain('Enlace por correo: ana@example.com');

    const bad = await call('POST', `/sign/api/${none.bruno}/sign`, { ...typed('Bruno'), language: 'fr' });
    expect(bad.status).toBe(400);
  });

  it('follows SELLO_DEFAULT_LANGUAGE when neither the page nor the workflow names a language', async () => {
    const en = await startTestServer({ env: { SELLO_DEFAULT_LANGUAGE: 'en' } });
    try {
      const doc = await en.client.createDocument({
        b64_doc: pdf,
        name: 'Contract',
        stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0) }],
      });
      const token = doc.stickers[0].signer_url.split('/').pop()!;
      const info = await (await fetch(`${en.baseUrl}/sign/api/${token}`)).json();
      expect([info.language, info.default_language]).toEqual([null, 'en']);
      const res = await fetch(`${en.baseUrl}/sign/api/${token}/sign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(typed('Ana')),
      });
      expect(res.status).toBe(200);
      const text = pdfShownText((await en.client.downloadDocument('original', doc.document_ticket)).bytes);
      expect(text).toContain('Signed: ');
      expect(text).toContain('Email link: ana@example.com');
    } finally {
      await en.close();
    }
  });
});

describe('rejection', () => {
  it('rejects with a reason; the document stops for everyone; the event carries who and why', async () => {
    const { doc, ana, bruno } = await twoSignerDocument();
    const tooLong = await call('POST', `/sign/api/${ana}/reject`, { reason: '👍🏽'.repeat(301) });
    expect(tooLong.status).toBe(400);
    // 300 emoji with skin tones: 600 code points, 300 characters as a person counts them.
    const ok = await call('POST', `/sign/api/${ana}/reject`, { reason: '👍🏽'.repeat(300) });
    expect(ok.json).toMatchObject({ status: 'rejected', document_status: 'rejected' });
    const other = await call('POST', `/sign/api/${bruno}/sign`, drawn());
    expect([other.status, other.json.error.code]).toEqual([409, 'DOCUMENT_NOT_SIGNABLE']);
    expect(other.json.error.message).toMatch(/rejected/);
    expect(await eventsOf(doc.document_ticket)).toEqual(['document_rejected']);
    const n = await s.deps.db
      .selectFrom('notifications as n')
      .innerJoin('documents as d', 'd.id', 'n.document_id')
      .select('n.meta')
      .where('n.kind', '=', 'document_rejected')
      .where('d.ticket', '=', doc.document_ticket)
      .executeTakeFirstOrThrow();
    expect((n.meta as { reason: string }).reason).toBe('👍🏽'.repeat(300));
  });
});

describe('authorities', () => {
  it('answers clearly that SAT signing is not available yet', async () => {
    const doc = await s.client.createDocument({ b64_doc: pdf, stickers: [{ authority: 'SAT', data: 'GODE561231GR8', ...box(0) }] });
    const token = doc.stickers[0].signer_url.split('/').pop()!;
    const r = await call('POST', `/sign/api/${token}/sign`, drawn());
    expect([r.status, r.json.error.code]).toEqual([409, 'AUTHORITY_NOT_AVAILABLE']);
    expect(r.json.error.message).toMatch(/not available on this server yet/);
  });

  it('an SMS signer must verify a code sent by SMS before signing', async () => {
    const doc = await s.client.createDocument({ b64_doc: pdf, stickers: [{ authority: 'SMS', data: '+525512345678', ...box(0) }] });
    const token = doc.stickers[0].signer_url.split('/').pop()!;
    const r = await call('POST', `/sign/api/${token}/sign`, drawn());
    expect([r.status, r.json.error.code]).toEqual([409, 'VERIFICATION_REQUIRED']);
    expect(r.json.error.message).toMatch(/by SMS/);
  });
  it('does not let a deleted document be signed', async () => {
    const { doc, ana } = await twoSignerDocument();
    await s.client.deleteDocument(doc.document_ticket);
    const r = await call('POST', `/sign/api/${ana}/sign`, drawn());
    expect([r.status, r.json.error.code]).toEqual([409, 'DOCUMENT_NOT_SIGNABLE']);
  });
});

describe('EMAIL authority: one-time code', () => {
  async function emailSigner() {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      stickers: [{ authority: 'EMAIL', data: 'carla@example.com', name: 'Carla', ...box(0) }],
    });
    return { doc, token: doc.stickers[0].signer_url.split('/').pop()! };
  }
  async function lastCode() {
    const m = (await listMessages(s.deps, 1))[0];
    expect(m).toMatchObject({ recipient: 'carla@example.com', kind: 'otp' });
    return /\b(\d{6})\b/.exec(m.body_text)![1];
  }

  it('signs only after the code sent by email is verified', async () => {
    const { doc, token } = await emailSigner();
    expect((await call('GET', `/sign/api/${token}`)).json.signer.proof).toBe('email_code');
    const early = await call('POST', `/sign/api/${token}/sign`, drawn());
    expect([early.status, early.json.error.code]).toEqual([409, 'VERIFICATION_REQUIRED']);
    const sent = await call('POST', `/sign/api/${token}/otp`);
    expect(sent.json).toMatchObject({ status: 'sent', to: 'c****@example.com' });
    const code = await lastCode();
    const wrong = await call('POST', `/sign/api/${token}/otp/verify`, { code: code === '000000' ? '111111' : '000000' });
    expect([wrong.status, wrong.json.error.code, wrong.json.error.details.attempts_left]).toEqual([400, 'OTP_INVALID', 4]);
    const ok = await call('POST', `/sign/api/${token}/otp/verify`, { code });
    expect(ok.json.status).toBe('verified');
    const signed = await call('POST', `/sign/api/${token}/sign`, drawn());
    expect(signed.json).toMatchObject({ status: 'signed', document_status: 'completed' });
    const report = await pdfsig((await s.client.downloadDocument('original', doc.document_ticket)).bytes, rootPem);
    expect(report.signatures.map((x) => [x.commonName, x.valid, x.trusted])).toEqual([['Carla', true, true]]);
  });

  it('refuses a second code within a minute, an expired code, and a code after five wrong attempts', async () => {
    const { token } = await emailSigner();
    await call('POST', `/sign/api/${token}/otp`);
    const again = await call('POST', `/sign/api/${token}/otp`);
    expect([again.status, again.json.error.code]).toEqual([429, 'RATE_LIMITED']);
    const code = await lastCode();
    for (let i = 0; i < 5; i++) {
      await call('POST', `/sign/api/${token}/otp/verify`, { code: code === '000000' ? '111111' : '000000' });
    }
    const locked = await call('POST', `/sign/api/${token}/otp/verify`, { code });
    expect([locked.status, locked.json.error.code]).toEqual([409, 'OTP_EXPIRED']);

    const second = await emailSigner();
    await call('POST', `/sign/api/${second.token}/otp`);
    const code2 = await lastCode();
    await s.deps.db
      .updateTable('signers')
      .set({ otp_expires_at: new Date(Date.now() - 1000) } as never)
      .where('data', '=', 'carla@example.com')
      .execute();
    const expired = await call('POST', `/sign/api/${second.token}/otp/verify`, { code: code2 });
    expect([expired.status, expired.json.error.code]).toEqual([409, 'OTP_EXPIRED']);
  });
});

describe('external time-stamp authority (SELLO_TSA_URL)', () => {
  it('stamps signatures with the configured TSA, whose root is trusted from SELLO_TSA_TRUST_PEM', async () => {
    // A second Sello plays the external TSA: its /tsa and its own root.
    const other = await startTestServer({ freshPki: true });
    try {
      const otherRoot = await (await fetch(`${other.baseUrl}/pki/ca.pem`)).text();
      s.deps.externalTsa = { url: `${other.baseUrl}/tsa`, trustedRootsDer: pemCertificates(otherRoot) };
      const { doc, ana, bruno } = await twoSignerDocument();
      expect((await call('POST', `/sign/api/${ana}/sign`, drawn())).status).toBe(200);
      // Not trusted: the token is refused before it is embedded, and nothing is signed.
      s.deps.externalTsa = { url: `${other.baseUrl}/tsa`, trustedRootsDer: [] };
      const refused = await call('POST', `/sign/api/${bruno}/sign`, drawn());
      expect([refused.status, refused.json.error.code]).toEqual([503, 'SIGNING_FAILED']);
      const final = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
      const report = await pdfsig(final, rootPem);
      expect(report.signatures.map((x) => x.valid)).toEqual([true]);
      // The time stamp in the file is the other service's: its TSA certificate is in the token
      // (inside /Contents, which holds the CMS in hexadecimal).
      const contents = final.toString('latin1').toLowerCase();
      expect(contents.includes(other.deps.pki.pki.tsa.certificateDer.toString('hex'))).toBe(true);
      expect(contents.includes(s.deps.pki.pki.tsa.certificateDer.toString('hex'))).toBe(false);
    } finally {
      s.deps.externalTsa = undefined;
      await other.close();
    }
  });
});

describe('a clock behind the service PKI', () => {
  it('refuses to sign with 503 CLOCK_BEHIND naming the clock, records nothing, and signs once the clock is right', async () => {
    // A restored backup on a machine whose clock is wrong: the service's CA was made "later".
    let now = Date.now() - 3 * 86_400_000;
    const behind = await startTestServer({ clock: { now: () => new Date(now) } });
    try {
      const doc = await behind.client.createDocument({
        b64_doc: pdf,
        stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', ...box(0) }],
      });
      const link = new URL(doc.stickers[0].signer_url).pathname.replace('/sign/', '/sign/api/');
      const res = await fetch(`${behind.baseUrl}${link}/sign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(drawn()),
      });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([res.status, body.error.code]).toEqual([503, 'CLOCK_BEHIND']);
      expect(body.error.message).toContain(`the clock says ${new Date(now).toISOString()}`);
      expect(body.error.message).toContain("set the machine's clock right");
      const listed = await behind.client.listDocuments();
      expect(listed.documents[0]).toMatchObject({ status: 'pending', signed_count: 0 });
      now = Date.now();
      const again = await fetch(`${behind.baseUrl}${link}/sign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(drawn()),
      });
      expect(again.status).toBe(200);
    } finally {
      await behind.close();
    }
  });
});
