// Fields signers fill (docs/api.md "Fields signers fill"): a create payload's bad signer_fields are
// refused naming the field, with nothing created; two signers fill their fields (a Cyrillic and an
// Arabic value among them) and sign; the values are AcroForm fields of each signer's own revision:
// pdftotext reads them, pdfsig finds both signatures valid, qpdf finds the file sound, and the
// service's verifier keeps the first signature intact. A required field left empty, a value of the
// wrong format and a field of someone else are refused naming field_values.<id>, nothing signed.
// The report and the notification's document list each signer's fields.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF } from '@libpdf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiError } from '../helpers/api-error.js';
import { movableClock } from '../helpers/flow-clock.js';
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

beforeAll(async () => {
  s = await startTestServer({ clock });
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
  dir = mkdtempSync(join(tmpdir(), 'sello-fields-'));
}, 60_000);
afterAll(async () => {
  await s?.close();
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
