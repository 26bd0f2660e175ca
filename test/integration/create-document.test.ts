// POST /developers/json with b64_doc: the response of decisions.md, sticker rules, sets and workflow.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A4, LETTER, makeCroppedPdf, makePdf } from '../helpers/pdfs.js';
import { apiError } from '../helpers/api-error.js';
import { DAY, ddmmyyyy } from '../helpers/dates.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let a4: string;
beforeAll(async () => {
  s = await startTestServer({ env: { SELLO_MAX_SIGNERS: '3' } });
  a4 = (await makePdf([A4, LETTER])).toString('base64');
});
afterAll(() => s?.close());

const box = { lx: 50, ly: 50, tx: 250, ty: 120 };

async function documentCount() {
  const r = await s.deps.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('creating a document from b64_doc', () => {
  it('answers the decisions.md shape, one signer_id per signer, a signing link per sticker', async () => {
    const r = await s.client.createDocument({
      b64_doc: a4,
      name: 'Contrato de servicios',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'Ana@Example.com', page: 0, rect: box, name: 'Ana' },
        { authority: 'EMAIL', data: 'luis@example.com', page: 1, rect: { lx: 0, ly: 0, tx: 612, ty: 792 } },
        { authority: 'EMAIL_LINK', data: 'ana@example.com', page: 1, rect: box },
      ],
    });
    expect(r.document_ticket).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.document_url).toBe(`${s.baseUrl}/document/${r.document_ticket}`);
    expect(r.document_flow).toBe(false);
    expect(r.sticker_count).toBe(3);
    expect(r.warnings).toEqual([]);
    const [s0, s1, s2] = r.stickers;
    expect(s0).toMatchObject({
      sticker_index: 0,
      sticker_authority: 'EMAIL_LINK',
      sticker_data: 'ana@example.com',
      sticker_email: 'ana@example.com',
      sticker_page: 0,
      sticker_coordinates: box,
    });
    // Same (authority, data): same signer, same personal link, distinct sticker ids.
    expect(s2.signer_id).toBe(s0.signer_id);
    expect(s2.signer_url).toBe(s0.signer_url);
    expect(s2.sticker_id).not.toBe(s0.sticker_id);
    expect(s1.signer_id).not.toBe(s0.signer_id);
    expect(s0.signer_url).toMatch(new RegExp(`^${s.baseUrl}/sign/[A-Za-z0-9_-]{43}$`));
    // The link's token is stored hashed only.
    const token = s0.signer_url.split('/').pop()!;
    const rows = await s.deps.db.selectFrom('signers').select(['token_hash']).execute();
    expect(rows.some((row) => row.token_hash?.toString('utf8').includes(token))).toBe(false);

    const src = await s.client.downloadDocument('source', r.document_ticket);
    expect(src.bytes.equals(Buffer.from(a4, 'base64'))).toBe(true);
    expect(src.name).toBe('Contrato de servicios.pdf');
  });

  it('lists unknown top-level keys, and spec keys not acted on yet, in warnings', async () => {
    const r = await s.client.createDocument({ b64_doc: a4, colour: 'blue', manager: { email: 'a@example.com' } });
    expect(r.warnings).toEqual(['colour: unknown key; ignored', 'manager: not supported by this server yet; ignored']);
    expect(r.sticker_count).toBe(0);
  });

  it('stores the workflow and sets document_flow; unknown workflow keys become warnings', async () => {
    const later = ddmmyyyy(Date.now() + 400 * DAY);
    const r = await s.client.createDocument({
      b64_doc: a4,
      stickers: [{ authority: 'EMAIL_LINK', data: 'x@example.com', page: 0, rect: box }],
      workflow: { ordered: true, expirationDate: later, remind_every: 3, attachFiles: true, shout: 1 },
    });
    expect(r.document_flow).toBe(true);
    expect(r.warnings).toEqual(['workflow.shout: unknown key; ignored']);
    const row = await s.deps.db
      .selectFrom('documents')
      .select('workflow')
      .where('ticket', '=', r.document_ticket)
      .executeTakeFirstOrThrow();
    expect(row.workflow).toEqual({ ordered: true, expiration_date: later, remind_every: 3, attach_files: true });
  });

  it('refuses a workflow value of the wrong type, naming the key', async () => {
    const e = await apiError(s.client.createDocument({ b64_doc: a4, workflow: { remindEvery: 'often' } }));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/workflow\.remindEvery/);
  });
});

describe('sticker rules (400 naming the index and the rule, nothing stored)', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a page that does not exist (0-based)', { page: 2 }, /stickers\[0\]\.page: page 2 does not exist; the document has 2 page/],
    ['a negative page', { page: -1 }, /stickers\[0\]\.page/],
    ['a rect outside the page', { rect: { lx: 500, ly: 700, tx: 700, ty: 900 } }, /stickers\[0\]\.rect: .*inside the page/],
    ['lx not below tx', { rect: { lx: 100, ly: 10, tx: 100, ty: 20 } }, /lx \(100\) must be less than tx/],
    ['a missing rect coordinate', { rect: { lx: 1, ly: 1, tx: 5 } }, /stickers\[0\]\.rect\.ty/],
    ['an unknown authority', { authority: 'FAX' }, /stickers\[0\]\.authority: unknown authority "FAX"/],
    ['an email authority with a phone', { authority: 'EMAIL', data: '+525512345678' }, /email address/],
    ['an SMS authority with an email', { authority: 'SMS', data: 'a@b.com' }, /E\.164/],
    ['a SAT authority with a bad RFC', { authority: 'SAT', data: 'ABCD991399XYZ' }, /RFC/],
  ];
  for (const [what, override, message] of cases) {
    it(`refuses ${what}`, async () => {
      const before = await documentCount();
      const sticker = { authority: 'EMAIL_LINK', data: 'a@example.com', page: 0, rect: box, ...override };
      const e = await apiError(s.client.createDocument({ b64_doc: a4, stickers: [sticker as never] }));
      expect(e.status).toBe(400);
      expect(e.code).toBe('INVALID_STICKER');
      expect(e.message).toMatch(message);
      expect(e.details).toMatchObject({ sticker_index: 0 });
      expect(await documentCount()).toBe(before);
    });
  }

  it('measures a page by its CropBox, not its MediaBox, with coordinates from the CropBox corner', async () => {
    const cropped = (await makeCroppedPdf()).toString('base64');
    const sticker = (tx: number, ty: number) => ({
      authority: 'EMAIL_LINK' as const,
      data: 'a@example.com',
      page: 0,
      rect: { lx: 0, ly: 0, tx, ty },
    });
    const r = await s.client.createDocument({ b64_doc: cropped, stickers: [sticker(500, 700)] });
    expect(r.sticker_count).toBe(1);
    const e = await apiError(s.client.createDocument({ b64_doc: cropped, stickers: [sticker(501, 700)] }));
    expect(e.message).toMatch(/0 ≤ x ≤ 500, 0 ≤ y ≤ 700/);
    expect(await s.client.pageData(Buffer.from(cropped, 'base64'))).toEqual({ page: 0, pages: 1, width: 500, height: 700, rotation: 0 });
  });

  it('names the index of the failing sticker among several', async () => {
    const ok = { authority: 'EMAIL_LINK' as const, data: 'a@example.com', page: 0, rect: box };
    const e = await apiError(s.client.createDocument({ b64_doc: a4, stickers: [ok, ok, { ...ok, page: 9 }] }));
    expect(e.details).toMatchObject({ sticker_index: 2, field: 'page' });
  });

  it('accepts the phone, RFC and extra keys public clients send', async () => {
    const r = await s.client.createDocument({
      b64_doc: a4,
      stickers: [
        { authority: 'SMS', data: '+525512345678', page: 0, rect: box, stickerType: 'sign', dataType: 'phone' } as never,
        { authority: 'SAT', data: 'godj800101ab1', page: 1, rect: box },
      ],
    });
    expect(r.stickers.map((x) => x.sticker_data)).toEqual(['+525512345678', 'GODJ800101AB1']);
  });

  it('refuses more signers than the limit', async () => {
    const stickers = ['a', 'b', 'c', 'd'].map((n) => ({ authority: 'EMAIL_LINK' as const, data: `${n}@example.com`, page: 0, rect: box }));
    const e = await apiError(s.client.createDocument({ b64_doc: a4, stickers }));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/at most 3 signers/);
  });
});

describe('origins', () => {
  it('requires exactly one origin', async () => {
    expect((await apiError(s.client.createDocument({}))).code).toBe('INVALID_ORIGIN');
    const both = await apiError(s.client.createDocument({ b64_doc: a4, url_doc: { url: 'https://example.com/a.pdf' } }));
    expect(both.code).toBe('INVALID_ORIGIN');
    expect(both.message).toMatch(/b64_doc and url_doc/);
  });
  it('answers 404 for a template the account does not have', async () => {
    const e = await apiError(s.client.createDocument({ template: { title: 'nda', name: 'NDA.pdf' } }));
    expect(e.status).toBe(404);
    expect(e.code).toBe('TEMPLATE_NOT_FOUND');
    expect(e.message).toMatch(/no template named "nda"/);
  });
  it('refuses a body that is not an object', async () => {
    const r = await s.client.raw('POST', '/developers/json', '[1,2]');
    expect(r.status).toBe(400);
  });
});

describe('document sets', () => {
  it('adds a document to an OPEN set as a draft in a flow; the set lists it', async () => {
    const set = await s.client.createDocumentSet({ name: 'Onboarding', metadata: { crm: 42 } });
    expect(set.status).toBe('OPEN');
    const r = await s.client.createDocument({
      b64_doc: a4,
      document_set: set.uuid,
      stickers: [{ authority: 'EMAIL_LINK', data: 'a@example.com', page: 0, rect: box }],
    });
    expect(r.document_flow).toBe(true);
    const got = await s.client.getDocumentSet(set.uuid);
    expect(got).toMatchObject({ uuid: set.uuid, name: 'Onboarding', status: 'OPEN', metadata: { crm: 42 } });
    expect(got.documents).toEqual([expect.objectContaining({ document_ticket: r.document_ticket, status: 'draft' })]);
  });
  it('refuses workflow together with document_set (400), an unknown set (404) and a closed set (409)', async () => {
    const set = await s.client.createDocumentSet();
    const both = await apiError(s.client.createDocument({ b64_doc: a4, document_set: set.uuid, workflow: { ordered: true } }));
    expect(both.status).toBe(400);
    expect(both.message).toMatch(/^workflow: must not be sent with document_set/);
    const unknown = await apiError(s.client.createDocument({ b64_doc: a4, document_set: '00000000-0000-4000-8000-000000000000' }));
    expect(unknown.status).toBe(404);
    expect(unknown.code).toBe('DOCUMENT_SET_NOT_FOUND');
    await s.deps.db.updateTable('document_sets').set({ status: 'CLOSED' }).where('uuid', '=', set.uuid).execute();
    const before = await documentCount();
    const closed = await apiError(s.client.createDocument({ b64_doc: a4, document_set: set.uuid }));
    expect(closed.status).toBe(409);
    expect(closed.code).toBe('DOCUMENT_SET_CLOSED');
    expect(await documentCount()).toBe(before);
  });
  it("treats another account's set as not found", async () => {
    const set = await s.client.createDocumentSet();
    const other = await s.newAccount();
    const e = await apiError(other.client.createDocument({ b64_doc: a4, document_set: set.uuid }));
    expect(e.status).toBe(404);
    expect((await apiError(other.client.getDocumentSet(set.uuid))).status).toBe(404);
  });
});

describe('storage', () => {
  it('keeps the PDF once in the content-addressed blob store, under its SHA-256', async () => {
    const r = await s.client.createDocument({ b64_doc: a4 });
    const file = await s.client.downloadDocument('source', r.document_ticket);
    const dir = join(s.dataDir, 'blobs', file.hash.slice(0, 2), file.hash.slice(2, 4));
    expect(await readdir(dir)).toEqual([file.hash]);
  });
});
