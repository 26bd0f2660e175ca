// Fields signers fill (docs/api.md "Fields signers fill"): a create payload's bad signer_fields are
// refused naming the field, with nothing created; two signers fill their fields (a Cyrillic and an
// Arabic value among them) and sign; the values are AcroForm fields of each signer's own revision:
// pdftotext reads them, pdfsig finds both signatures valid, qpdf finds the file sound, and the
// service's verifier keeps the first signature intact. A required field left empty, a value of the
// wrong format and a field of someone else are refused naming field_values.<id>, nothing signed.
// The report and the notification's document list each signer's fields.
import { execFileSync } from 'node:child_process';
import { X509Certificate, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF } from '@libpdf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiError } from '../helpers/api-error.js';
import { type CertTestPki, createCertTestPki } from '../helpers/cert-pki.js';
import { type CscProvider, startCscProvider } from '../helpers/csc-provider.js';
import { movableClock } from '../helpers/flow-clock.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { publicCall } from '../helpers/public-call.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

// Behind the real time, after the service CA was made: pdfsig judges at the real time.
const clock = movableClock(new Date(Date.now() - 50 * 60_000));
let s: TestServer;
let rootPem: string;
let pdf: string;
let dir: string;
let ca: CertTestPki;
let jobs: JobRunner;
let tsp: CscProvider;

beforeAll(async () => {
  ca = await createCertTestPki();
  tsp = await startCscProvider();
  const providers = [{ name: 'Test TSP', base_url: tsp.baseUrl, client_id: tsp.clientId, client_secret: tsp.clientSecret }];
  s = await startTestServer({
    clock,
    env: { SELLO_CERT_TRUST_PEM: ca.trustPemPath, SELLO_CSC_PROVIDERS: JSON.stringify(providers), SELLO_CSC_TRUST_PEM: ca.trustPemPath },
  });
  jobs = jobRunner(s.connectionString, s.deps);
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
  dir = mkdtempSync(join(tmpdir(), 'sello-fields-'));
}, 60_000);
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  await tsp?.close();
  await ca?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown) => publicCall(s.baseUrl, method, path, body);
const tokenOf = (url: string) => url.split('/').pop()!;
const typed = (text: string, field_values?: Record<string, string | boolean>) => ({
  signature: { type: 'typed', text },
  consent: true,
  ...(field_values ? { field_values } : {}),
});
const STICKERS = [
  { authority: 'EMAIL_LINK', data: 'olga@example.com', name: 'Olga', page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } },
  { authority: 'EMAIL_LINK', data: 'omar@example.com', name: 'Omar', page: 1, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } },
] as const;
const box = (page: number, y: number) => ({ page, rect: { lx: 50, ly: y, tx: 300, ty: y + 22 } });

/** The text poppler extracts, without the directional marks it puts around a right-to-left line. */
function pdfText(bytes: Uint8Array): string {
  const path = join(dir, `t${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(path, bytes);
  return execFileSync('pdftotext', [path, '-'], { encoding: 'utf8' }).replace(/[\u202a-\u202e\u200b]/g, '');
}

async function documentCount(): Promise<number> {
  const r = await s.deps.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('creating with signer_fields', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a signer index beyond the stickers', { type: 'text', signer: 2, ...box(0, 200) }, 'signer_fields[1].signer'],
    [
      'a page beyond the document',
      { type: 'text', signer: 0, page: 2, rect: { lx: 50, ly: 200, tx: 300, ty: 222 } },
      'signer_fields[1].page',
    ],
    ['a box outside the page', { type: 'text', signer: 0, page: 0, rect: { lx: 500, ly: 200, tx: 700, ty: 222 } }, 'signer_fields[1].rect'],
    ['a dropdown without options', { type: 'dropdown', signer: 0, ...box(0, 200) }, 'signer_fields[1].options'],
    ['a pattern with a nested quantifier', { type: 'text', signer: 0, ...box(0, 200), format: '(a+)+b' }, 'signer_fields[1].format'],
    ['a pattern that does not compile', { type: 'text', signer: 0, ...box(0, 200), format: '(ab' }, 'signer_fields[1].format'],
    ['a date format outside the list', { type: 'date', signer: 0, ...box(0, 200), date_format: 'D/M/YY' }, 'signer_fields[1].date_format'],
    ['an unknown type', { type: 'radio', signer: 0, ...box(0, 200) }, 'signer_fields[1].type'],
  ];
  for (const [what, field, named] of cases) {
    it(`refuses ${what}, naming ${named}, and creates nothing`, async () => {
      const before = await documentCount();
      const err = await apiError(
        s.client.createDocument({
          b64_doc: pdf,
          stickers: [...STICKERS],
          signer_fields: [{ type: 'text', signer: 0, ...box(0, 300) }, field],
        } as never),
      );
      expect(err.status).toBe(400);
      expect(err.code).toBe('INVALID_INPUT');
      expect((err.details as { field: string }).field).toBe(named);
      expect(err.message).toContain(named);
      expect(await documentCount()).toBe(before);
    });
  }
});

describe('two signers fill their fields and sign', () => {
  let ticket: string;
  let links: string[];
  let ids: string[];
  const CYRILLIC = 'Ольга Петрова, Москва';
  const ARABIC = 'عمر الفاروق';

  it('creates the document with the fields, and answers their ids', async () => {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      name: 'Contrato',
      stickers: [...STICKERS],
      signer_fields: [
        { type: 'text', signer: 0, ...box(0, 400), label: 'Full name', required: true },
        { type: 'text', signer: 0, ...box(0, 370), label: 'Email', format: 'email' },
        { type: 'checkbox', signer: 0, page: 0, rect: { lx: 50, ly: 340, tx: 64, ty: 354 }, label: 'I agree', required: true },
        { type: 'initials', signer: 0, ...box(0, 310), label: 'Initials', required: true },
        { type: 'initials', signer: 0, ...box(1, 700), label: 'Initials' },
        { type: 'date', signer: 0, ...box(0, 280), label: 'Date' },
        { type: 'text', signer: 1, ...box(1, 400), label: 'Name', required: true },
        { type: 'dropdown', signer: 1, ...box(1, 370), label: 'Plan', options: ['Basic', 'Pro'], required: true },
        { type: 'date', signer: 1, ...box(1, 340), label: 'Start', date_format: 'YYYY-MM-DD', required: true },
        { type: 'text', signer: 1, ...box(1, 310), label: 'Code', format: '[A-Z]{3}-\\d{4}' },
      ],
    });
    ticket = doc.document_ticket;
    links = [doc.stickers[0].signer_url, doc.stickers[1].signer_url].map(tokenOf);
    ids = doc.signer_fields.map((f) => f.id);
    expect(doc.signer_fields.map((f) => [f.signer, f.signer_id, f.type])).toEqual([
      ...Array(6)
        .fill(0)
        .map((_, i) => [0, doc.stickers[0].signer_id, ['text', 'text', 'checkbox', 'initials', 'initials', 'date'][i]]),
      [1, doc.stickers[1].signer_id, 'text'],
      [1, doc.stickers[1].signer_id, 'dropdown'],
      [1, doc.stickers[1].signer_id, 'date'],
      [1, doc.stickers[1].signer_id, 'text'],
    ]);
    expect(new Set(ids).size).toBe(10);
  });

  it("shows each signer their own fields, a date with today's date in the account's time zone", async () => {
    const olga = (await call('GET', `/sign/api/${links[0]}`)).json as { signer_fields: Record<string, unknown>[] };
    expect(olga.signer_fields.map((f) => f.id)).toEqual(ids.slice(0, 6));
    const today = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'America/Mexico_City',
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
    }).format(clock.now());
    expect(olga.signer_fields[5]).toMatchObject({
      type: 'date',
      date_format: 'DD/MM/YYYY',
      value: today,
      time_zone: 'America/Mexico_City',
    });
    expect(olga.signer_fields[1]).toMatchObject({ type: 'text', format: 'email', required: false, label: 'Email', options: null });
    const omar = (await call('GET', `/sign/api/${links[1]}`)).json as { signer_fields: Record<string, unknown>[] };
    expect(omar.signer_fields.map((f) => f.id)).toEqual(ids.slice(6));
    expect(omar.signer_fields[1]).toMatchObject({ type: 'dropdown', options: ['Basic', 'Pro'] });
  });

  it('refuses a required field left empty, a bad format and a field of someone else, naming it, and signs nothing', async () => {
    const good = { [ids[0]]: CYRILLIC, [ids[1]]: 'olga@example.com', [ids[2]]: true, [ids[3]]: 'OP' };
    const refusals: [Record<string, string | boolean>, string, string][] = [
      [{ ...good, [ids[2]]: false }, 'REQUIRED_FIELD_MISSING', ids[2]],
      [{ ...good, [ids[0]]: '  ' }, 'REQUIRED_FIELD_MISSING', ids[0]],
      [{ ...good, [ids[1]]: 'not an email' }, 'INVALID_FIELD_VALUE', ids[1]],
      [{ ...good, [ids[2]]: 'yes' }, 'INVALID_FIELD_VALUE', ids[2]],
      [{ ...good, [ids[5]]: '31/02/2026' }, 'INVALID_FIELD_VALUE', ids[5]],
      [{ ...good, [ids[6]]: 'Omar' }, 'INVALID_FIELD_VALUE', ids[6]],
    ];
    for (const [values, code, id] of refusals) {
      const r = await call('POST', `/sign/api/${links[0]}/sign`, typed('Olga', values));
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      const error = (r.json as { error: { code: string; details: { field: string } } }).error;
      expect(error.code).toBe(code);
      expect(error.details.field).toBe(`field_values.${id}`);
    }
    const missing = await call('POST', `/sign/api/${links[0]}/sign`, typed('Olga'));
    expect((missing.json as { error: { code: string } }).error.code).toBe('REQUIRED_FIELD_MISSING');
    const info = (await call('GET', `/sign/api/${links[0]}`)).json as { signer: { status: string } };
    expect(info.signer.status).not.toBe('signed');
    const file = (await s.client.downloadDocument('original', ticket)).bytes;
    expect((await pdfsig(file, rootPem)).signatures).toHaveLength(0);
  });

  it('writes the values into each signer’s revision: pdftotext reads them, pdfsig and the verifier find both signatures good', async () => {
    const first = await call(
      'POST',
      `/sign/api/${links[0]}/sign`,
      typed('Olga', { [ids[0]]: CYRILLIC, [ids[1]]: 'olga@example.com', [ids[2]]: true, [ids[4]]: 'OP' }),
    );
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const afterFirst = (await s.client.downloadDocument('original', ticket)).bytes;
    const second = await call(
      'POST',
      `/sign/api/${links[1]}/sign`,
      typed('Omar', { [ids[6]]: ARABIC, [ids[7]]: 'Pro', [ids[8]]: '2031-01-15', [ids[9]]: 'ABC-1234' }),
    );
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    const signed = (await s.client.downloadDocument('original', ticket)).bytes;
    expect(Buffer.from(signed.subarray(0, afterFirst.length)).equals(Buffer.from(afterFirst))).toBe(true);

    const text = pdfText(signed);
    const today = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'America/Mexico_City',
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
    }).format(clock.now());
    for (const value of [CYRILLIC, 'olga@example.com', ARABIC, 'Pro', '2031-01-15', 'ABC-1234', today]) {
      expect(text).toContain(value);
    }
    // Initials given once are drawn in both of Olga's initials boxes, one on each page.
    const pages = text.split('\f');
    expect(pages[0]).toContain('OP');
    expect(pages[1]).toContain('OP');
    // The first signer's values are already in the bytes her signature covers.
    expect(pdfText(afterFirst)).toContain(CYRILLIC);
    expect(pdfText(afterFirst)).not.toContain(ARABIC);

    const checked = await pdfsig(signed, rootPem);
    expect(checked.signatures, checked.output).toHaveLength(2);
    for (const sig of checked.signatures) {
      expect(sig.valid, sig.block).toBe(true);
    }
    const qpdf = await qpdfCheckAsync(signed);
    expect(qpdf.ok, qpdf.output).toBe(true);

    const report = await s.client.signatureReport(ticket);
    expect(report.documentIntegrity).toBe('intact');
    expect(report.attacks).toEqual([]);
    expect(report.firmas.map((f) => [f.validSignature, f.modifiedAfterSigning])).toEqual([
      [true, false],
      [true, false],
    ]);
    // What the second revision changed, as the first signature sees it: form filling and a signature.
    const categories = new Set(report.firmas[0].changes.map((c) => c.category));
    expect(categories.has('form-fill')).toBe(true);
    expect(report.firmas[0].changes.filter((c) => !c.allowed)).toEqual([]);

    // The fields are AcroForm fields with their values.
    const loaded = await PDF.load(signed);
    const byName = new Map(
      loaded
        .getForm()!
        .getFields()
        .map((f) => [f.name, f]),
    );
    expect(byName.get(`SelloField-${ids[6]}`)!.getDict().get('V')).toBeDefined();
    expect(byName.get(`SelloField-${ids[2]}`)!.getDict().getName('V')?.value).toBe('Yes');

    expect(report.firmas[0].signer_fields).toEqual([
      { label: 'Full name', type: 'text', value: CYRILLIC, page: 0 },
      { label: 'Email', type: 'text', value: 'olga@example.com', page: 0 },
      { label: 'I agree', type: 'checkbox', value: true, page: 0 },
      { label: 'Initials', type: 'initials', value: 'OP', page: 0 },
      { label: 'Initials', type: 'initials', value: 'OP', page: 1 },
      { label: 'Date', type: 'date', value: today, page: 0 },
    ]);
    expect(report.firmas[1].signer_fields).toEqual([
      { label: 'Name', type: 'text', value: ARABIC, page: 1 },
      { label: 'Plan', type: 'dropdown', value: 'Pro', page: 1 },
      { label: 'Start', type: 'date', value: '2031-01-15', page: 1 },
      { label: 'Code', type: 'text', value: 'ABC-1234', page: 1 },
    ]);
  }, 120_000);

  it('refuses fields on an uploaded PDF that is already signed: they would break its signatures', async () => {
    const signed = (await s.client.downloadDocument('original', ticket)).bytes;
    const before = await documentCount();
    const err = await apiError(
      s.client.createDocument({
        b64_doc: Buffer.from(signed).toString('base64'),
        stickers: [...STICKERS],
        signer_fields: [{ type: 'text', signer: 0, ...box(0, 200) }],
      }),
    );
    expect([err.status, err.code, (err.details as { field: string }).field]).toEqual([400, 'INVALID_INPUT', 'signer_fields']);
    expect(err.message).toContain('already signed');
    expect(await documentCount()).toBe(before);
  });

  it("lists each signer's fields in the notification's document (the webhook payload)", async () => {
    const n = await s.deps.db
      .selectFrom('notifications as n')
      .innerJoin('documents as d', 'd.id', 'n.document_id')
      .select('n.notification_id')
      .where('d.ticket', '=', ticket)
      .where('n.kind', '=', 'document_completed')
      .executeTakeFirstOrThrow();
    const payload = await s.client.notificationDocument(n.notification_id);
    const signers = payload.document!.signers;
    expect(signers.map((x) => x.signer_fields.map((f) => f.value))).toEqual([
      [CYRILLIC, 'olga@example.com', true, 'OP', 'OP', expect.any(String)],
      [ARABIC, 'Pro', '2031-01-15', 'ABC-1234'],
    ]);
    expect(signers[1].signer_fields[0]).toEqual({ label: 'Name', type: 'text', value: ARABIC, page: 1 });
  });
});

describe('the other signing paths', () => {
  it('a CERT signer: prepare checks and writes the values, finish records them; nothing is prepared for a refused value', async () => {
    const ana = await ca.issue({ name: 'Ana Garcia', email: 'ana@example.com', serialNumber: 'IDCES-1', uid: 'ana' });
    // The test CA issues from the real time: the service's clock catches up with it.
    clock.set(new Date());
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      stickers: [{ authority: 'CERT', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
      signer_fields: [
        { type: 'text', signer: 0, ...box(0, 400), label: 'Ciudad', required: true },
        { type: 'checkbox', signer: 0, page: 0, rect: { lx: 50, ly: 340, tx: 64, ty: 354 }, label: 'Acepto' },
      ],
    });
    const token = tokenOf(doc.stickers[0].signer_url);
    const [city, agree] = doc.signer_fields.map((f) => f.id);
    const prepare = (field_values: Record<string, string | boolean>) =>
      call('POST', `/sign/api/${token}/certificate/prepare`, { certificate: ana.der.toString('base64'), consent: true, field_values });
    const refused = await prepare({ [agree]: true });
    expect(refused.status).toBe(400);
    expect((refused.json as { error: { code: string; details: { field: string } } }).error).toMatchObject({
      code: 'REQUIRED_FIELD_MISSING',
      details: { field: `field_values.${city}` },
    });
    const preparations = () =>
      s.deps.db
        .selectFrom('sat_preparations')
        .select('id')
        .where('document_id', '=', s.deps.db.selectFrom('documents').select('id').where('ticket', '=', doc.document_ticket))
        .execute();
    expect(await preparations()).toHaveLength(0);

    const prepared = await prepare({ [city]: 'Zaragoza', [agree]: true });
    expect(prepared.status, JSON.stringify(prepared.json)).toBe(200);
    // Prepared, not signed: the values are not the signer's yet.
    expect((await s.client.signatureReport(doc.document_ticket)).firmas).toEqual([]);
    const value = sign('sha256', Buffer.from(prepared.json.signed_attributes, 'base64'), { key: ana.keyPem, passphrase: ana.password });
    const done = await call('POST', `/sign/api/${token}/certificate/finish`, {
      preparation_id: prepared.json.preparation_id,
      signature: value.toString('base64'),
    });
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    expect(pdfText(file)).toContain('Zaragoza');
    const checked = await pdfsig(file, ca.rootPem);
    expect(checked.signatures[0], checked.output).toMatchObject({ valid: true, totalDocumentSigned: true });
    const report = await s.client.signatureReport(doc.document_ticket);
    expect(report.firmas[0].signer_fields).toEqual([
      { label: 'Ciudad', type: 'text', value: 'Zaragoza', page: 0 },
      { label: 'Acepto', type: 'checkbox', value: true, page: 0 },
    ]);
  }, 120_000);

  it('a CSC signer: the values are checked before leaving for the provider and written into the revision prepared on return', async () => {
    const luis = await ca.issue({ name: 'Luis Romero', email: 'luis@example.com' });
    clock.set(new Date());
    tsp.add({
      credentialID: 'cred-luis',
      user: 'luis',
      certificateDer: luis.der,
      chainDer: [new X509Certificate(ca.rootPem).raw],
      privateKey: luis.privateKey,
    });
    tsp.signInAs('luis');
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      stickers: [{ authority: 'CSC', data: 'luis@example.com', name: 'Luis', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
      signer_fields: [{ type: 'text', signer: 0, ...box(0, 400), label: 'Ciudad', required: true }],
    });
    const token = tokenOf(doc.stickers[0].signer_url);
    const id = doc.signer_fields[0].id;
    const refused = await call('POST', `/sign/api/${token}/csc/authorize`, { field_values: { [id]: ' ' } });
    expect(refused.status).toBe(400);
    expect((refused.json as { error: { code: string; details: { field: string } } }).error).toMatchObject({
      code: 'REQUIRED_FIELD_MISSING',
      details: { field: `field_values.${id}` },
    });
    const started = await call('POST', `/sign/api/${token}/csc/authorize`, { field_values: { [id]: 'Sevilla' } });
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const page = await (await fetch(started.json.authorize_url)).text();
    const approve = /id="approve" href="([^"]+)"/.exec(page)![1].replace(/&amp;/g, '&');
    const back = await fetch(approve, { redirect: 'manual' });
    expect(back.status, await back.clone().text()).toBe(303);
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    expect(pdfText(file)).toContain('Sevilla');
    expect((await pdfsig(file, ca.rootPem)).signatures[0]).toMatchObject({ valid: true, totalDocumentSigned: true });
    expect((await s.client.signatureReport(doc.document_ticket)).firmas[0].signer_fields).toEqual([
      { label: 'Ciudad', type: 'text', value: 'Sevilla', page: 0 },
    ]);
  }, 120_000);

  it('a set link: one map names fields of two documents; a bad value on the second signs neither', async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta' });
    const docs = [];
    for (const label of ['Cuenta', 'Nómina']) {
      docs.push(
        await s.client.createDocument({
          b64_doc: pdf,
          document_set: set.uuid,
          stickers: [
            { authority: 'EMAIL_LINK', data: 'lea@example.com', name: 'Lea', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } },
          ],
          signer_fields: [{ type: 'text', signer: 0, ...box(0, 400), label, format: 'number', required: true }],
        }),
      );
    }
    const closed = await s.client.closeDocumentSet(set.uuid);
    const token = tokenOf(closed.signers[0].signer_url);
    const info = (await call('GET', `/sign/api/set/${token}`)).json as { documents: { signer_fields: { id: string; label: string }[] }[] };
    const ids = info.documents.map((d) => d.signer_fields[0].id);
    expect(info.documents.map((d) => d.signer_fields[0].label)).toEqual(['Cuenta', 'Nómina']);
    expect(ids).toEqual(docs.map((d) => d.signer_fields[0].id));

    const bad = await call('POST', `/sign/api/set/${token}/sign`, typed('Lea', { [ids[0]]: '123', [ids[1]]: 'doce' }));
    expect(bad.status).toBe(400);
    expect((bad.json as { error: { code: string; details: { field: string } } }).error).toMatchObject({
      code: 'INVALID_FIELD_VALUE',
      details: { field: `field_values.${ids[1]}` },
    });
    for (const d of docs) {
      const file = (await s.client.downloadDocument('original', d.document_ticket)).bytes;
      expect((await pdfsig(file, rootPem)).signatures).toHaveLength(0);
    }
    const good = await call('POST', `/sign/api/set/${token}/sign`, typed('Lea', { [ids[0]]: '123', [ids[1]]: '456' }));
    expect(good.status, JSON.stringify(good.json)).toBe(200);
    for (const [i, d] of docs.entries()) {
      const file = (await s.client.downloadDocument('original', d.document_ticket)).bytes;
      expect(pdfText(file)).toContain(['123', '456'][i]);
      expect((await pdfsig(file, rootPem)).signatures[0]?.valid).toBe(true);
    }
  }, 120_000);
});

describe('bulk send', () => {
  it("gives every row's document the run's signer_fields, placeholders filled", async () => {
    const started = await s.client.createBulk(
      {
        b64_doc: pdf,
        stickers: [{ authority: 'EMAIL_LINK', data: '{{row.email}}', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
        signer_fields: [{ type: 'text', signer: 0, ...box(0, 400), label: '{{row.label}}', required: true }],
        rows: [
          { email: 'uno@example.com', label: 'Uno' },
          { email: 'dos@example.com', label: 'Dos' },
        ],
      },
      `fields-${Math.random().toString(36).slice(2)}`,
    );
    await jobs.runDue();
    const run = await s.client.getBulk(started.bulk_id);
    expect(run.state).toBe('completed');
    const labels = [];
    for (const row of run.rows as { document_ticket: string }[]) {
      const id = (await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', row.document_ticket).executeTakeFirstOrThrow())
        .id;
      const fields = await s.deps.db
        .selectFrom('signer_fields')
        .select(['label', 'type', 'required'])
        .where('document_id', '=', id)
        .execute();
      labels.push(...fields.map((f) => [f.label, f.type, f.required]));
    }
    expect(labels).toEqual([
      ['Uno', 'text', true],
      ['Dos', 'text', true],
    ]);
  }, 60_000);
});
