// Listing (time window, paging), downloads and their hashes, soft delete and restore.
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/domain/deps.js';
import { MINUTE, nextWholeHour } from '../helpers/dates.js';
import { makePdf, qpdfCheck } from '../helpers/pdfs.js';
import { apiError } from '../helpers/api-error.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// A clock the test moves: documents get creation times a minute apart.
const T = nextWholeHour();
let now = T;
const clock: Clock = { now: () => new Date(now) };
let s: TestServer;
const tickets: string[] = [];
let pdf: Buffer;

beforeAll(async () => {
  s = await startTestServer({ clock });
  pdf = await makePdf();
  for (let i = 0; i < 7; i++) {
    now += 60_000;
    const r = await s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      name: `doc-${i}`,
      stickers: [{ authority: 'EMAIL_LINK', data: `s${i}@example.com`, page: 0, rect: { lx: 10, ly: 10, tx: 100, ty: 60 } }],
    });
    tickets.push(r.document_ticket);
  }
  now += 60_000;
});
afterAll(() => s?.close());

describe('GET /api/document', () => {
  it('lists newest first with signers and signed_count', async () => {
    const r = await s.client.listDocuments();
    expect(r.documents.map((d) => d.document_ticket)).toEqual([...tickets].reverse());
    expect(r.nextToken).toBeUndefined();
    expect(r.documents[0]).toMatchObject({
      name: 'doc-6.pdf',
      status: 'pending',
      created_at: new Date(T + 7 * MINUTE).toISOString(),
      signed_count: 0,
    });
    expect(r.documents[0].signers).toEqual([
      expect.objectContaining({ authority: 'EMAIL_LINK', data: 's6@example.com', email: 's6@example.com', status: 'pending' }),
    ]);
  });

  it('pages with nextToken until the last page, which has none', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const r = await s.client.listDocuments({ limit: 3, nextToken: token });
      seen.push(...r.documents.map((d) => d.document_ticket));
      token = r.nextToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual([...tickets].reverse());
  });

  it('keeps to the time window, both ends inclusive', async () => {
    const from = T + 2 * MINUTE;
    const to = T + 4 * MINUTE;
    const r = await s.client.listDocuments({ from, to });
    expect(r.documents.map((d) => d.name)).toEqual(['doc-3.pdf', 'doc-2.pdf', 'doc-1.pdf']);
  });

  it('refuses bad parameters, naming them', async () => {
    expect((await apiError(s.client.listDocuments({ limit: 501 }))).message).toMatch(/^limit:/);
    expect((await apiError(s.client.request('GET', '/api/document?from=yesterday'))).message).toMatch(/^from:/);
    expect((await apiError(s.client.listDocuments({ nextToken: 'garbage' }))).message).toMatch(/^nextToken:/);
    expect((await apiError(s.client.listDocuments({ from: 10, to: 5 }))).status).toBe(400);
  });

  it("shows only the account's own documents", async () => {
    const other = await s.newAccount();
    expect((await other.client.listDocuments()).documents).toEqual([]);
  });
});

describe('GET /api/document/{type}/{ticket}', () => {
  it('returns source and original as the same bytes until someone signs, with their SHA-256', async () => {
    const src = await s.client.downloadDocument('source', tickets[0]);
    const orig = await s.client.downloadDocument('original', tickets[0]);
    expect(src.bytes.equals(pdf)).toBe(true);
    expect(orig.bytes.equals(pdf)).toBe(true);
    expect(src.hash).toBe(createHash('sha256').update(pdf).digest('hex'));
    expect(orig.hash).toBe(src.hash);
    const check = qpdfCheck(orig.bytes);
    expect(check.output).toMatch(/No syntax or stream encoding errors found/);
    expect(check.ok).toBe(true);
  });
  it('answers the envelope keyed by the type', async () => {
    const r = await s.client.request<Record<string, string>>('GET', `/api/document/original/${tickets[0]}`);
    expect(Object.keys(r).sort()).toEqual(['hash', 'name', 'original']);
  });
  it('answers 409 for universal before completion, 400 for an unknown type, 404 for an unknown ticket', async () => {
    const u = await apiError(s.client.downloadDocument('universal', tickets[0]));
    expect(u.status).toBe(409);
    expect(u.code).toBe('NOT_YET_AVAILABLE');
    const t = await apiError(s.client.request('GET', `/api/document/signed/${tickets[0]}`));
    expect(t.status).toBe(400);
    expect((await apiError(s.client.downloadDocument('source', 'no-such-ticket'))).status).toBe(404);
  });
  it("treats another account's document as not found", async () => {
    const other = await s.newAccount();
    expect((await apiError(other.client.downloadDocument('source', tickets[0]))).status).toBe(404);
    expect((await apiError(other.client.deleteDocument(tickets[0]))).status).toBe(404);
  });
});

describe('POST /developers/docs', () => {
  it('deletes softly and restores to the state the document had', async () => {
    const t = tickets[1];
    expect(await s.client.deleteDocument(t)).toEqual({ document_ticket: t, status: 'deleted' });
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === t);
    expect(listed?.status).toBe('deleted');
    const dl = await apiError(s.client.downloadDocument('original', t));
    expect(dl.status).toBe(409);
    expect(dl.code).toBe('DOCUMENT_DELETED');
    expect((await apiError(s.client.deleteDocument(t))).status).toBe(409);

    expect(await s.client.restoreDocument(t)).toEqual({ document_ticket: t, status: 'pending' });
    expect((await s.client.downloadDocument('original', t)).bytes.equals(pdf)).toBe(true);
    expect((await apiError(s.client.restoreDocument(t))).status).toBe(409);
  });
  it('refuses an unknown action or a missing ticket, naming the field', async () => {
    expect((await apiError(s.client.request('POST', '/developers/docs', { ticket: tickets[2], action: 'purge' }))).message).toMatch(
      /^action:/,
    );
    expect((await apiError(s.client.request('POST', '/developers/docs', { action: 'delete' }))).message).toMatch(/^ticket:/);
  });
  it("takes the older clients' /developers/delete/ and /developers/restore/, signed over PHP-style JSON", async () => {
    const t = tickets[3];
    // json_encode with JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES, signed and sent as that string.
    const php = (extra: string) => `{"ticket":"${t}"${extra}}`;
    const post = async (path: string, body: string) => {
      const sig = createHmac('sha256', s.creds.apiKey).update(body).digest('base64');
      const res = await fetch(s.baseUrl + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `svc ${s.creds.webId}:${sig}` },
        body,
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    expect(await post('/developers/delete/', php(',"note":"Baja del expediente 3/2026 — señora Núñez"'))).toEqual({
      status: 200,
      json: { document_ticket: t, status: 'deleted' },
    });
    expect(await post('/developers/restore/', php(''))).toEqual({ status: 200, json: { document_ticket: t, status: 'pending' } });
    expect((await post('/developers/delete', php(''))).json.status).toBe('deleted');
    expect((await post('/developers/restore', php(''))).json.status).toBe('pending');
  });
});
