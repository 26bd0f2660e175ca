// Text PostgreSQL cannot store (a NUL, a lone UTF-16 surrogate) and requests Node's HTTP parser
// refuses: a 400 naming the field, a 404 for an identifier, one error shape everywhere, never a 500,
// and nothing changed.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let pdf: string;
beforeAll(async () => {
  s = await startTestServer();
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(() => s?.close());

const NUL = 'a\u0000b';
const LONE = 'a\ud800b';
const sticker = (extra: Record<string, unknown> = {}) => ({
  authority: 'EMAIL_LINK' as const,
  data: 'ana@example.com',
  page: 0,
  rect: { lx: 50, ly: 50, tx: 250, ty: 120 },
  ...extra,
});

function errorOf(r: { status: number; text: string }) {
  return { status: r.status, ...(JSON.parse(r.text) as { error: { code: string; message: string; details?: { field?: string } } }).error };
}

async function documentCount() {
  const r = await s.deps.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('text that cannot be stored', () => {
  const creates: [string, Record<string, unknown>, string][] = [];
  for (const [label, bad] of [
    ['NUL', NUL],
    ['lone surrogate', LONE],
  ] as const) {
    creates.push(
      [`${label} in name`, { name: bad, stickers: [sticker()] }, 'name'],
      [`${label} in a sticker name`, { stickers: [sticker({ name: bad })] }, 'stickers[0].name'],
      [`${label} in a sticker email`, { stickers: [sticker({ email: bad })] }, 'stickers[0].email'],
      [`${label} in sticker data`, { stickers: [sticker({ data: bad })] }, 'stickers[0].data'],
      [`${label} in stickerType`, { stickers: [sticker({ stickerType: bad })] }, 'stickers[0].stickerType'],
      [`${label} in dataType`, { stickers: [sticker({ dataType: bad })] }, 'stickers[0].dataType'],
      [`${label} in an imageType key`, { stickers: [sticker({ imageType: { [bad]: 1 } })] }, 'stickers[0].imageType'],
      [`${label} in workflow.subject`, { stickers: [sticker()], workflow: { subject: bad } }, 'workflow.subject'],
      [`${label} in workflow.message`, { stickers: [sticker()], workflow: { message: bad } }, 'workflow.message'],
      [
        `${label} in workflow.conclusion_emails`,
        { stickers: [sticker()], workflow: { conclusion_emails: [bad] } },
        'workflow.conclusion_emails[0]',
      ],
    );
  }
  it.each(creates)('create with a %s: 400 naming the field, nothing created', async (_label, payload, field) => {
    const before = await documentCount();
    const e = errorOf(await s.client.raw('POST', '/developers/json', { b64_doc: pdf, ...payload }));
    expect([e.status, e.code]).toEqual([400, 'INVALID_INPUT']);
    expect(e.message.startsWith(field)).toBe(true);
    expect(e.message).toContain('NUL character or malformed Unicode');
    expect(await documentCount()).toBe(before);
  });

  it('a set name or metadata: 400 naming the field', async () => {
    for (const [body, field] of [
      [{ name: NUL }, 'name'],
      [{ name: 'ok', metadata: { note: LONE } }, 'metadata.note'],
      [{ name: 'ok', metadata: { [NUL]: 1 } }, 'metadata'],
    ] as const) {
      const e = errorOf(await s.client.raw('POST', '/api/documentset', body));
      expect([e.status, e.code], JSON.stringify(body)).toEqual([400, 'INVALID_INPUT']);
      expect(e.message.startsWith(field)).toBe(true);
    }
  });

  it('identifiers: in a path a 404 with the route own code, in a body a 400 naming the field', async () => {
    const report = errorOf(await s.client.raw('GET', '/api/report/a%00b'));
    expect([report.status, report.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    const download = errorOf(await s.client.raw('GET', '/api/document/original/a%ED%A0%80b'));
    expect([download.status, download.code]).toEqual([400, 'BAD_REQUEST']);
    expect(download.message).not.toContain('a%ED');
    const set = errorOf(await s.client.raw('GET', '/api/documentset/a%00b'));
    expect([set.status, set.code]).toEqual([404, 'DOCUMENT_SET_NOT_FOUND']);
    const notification = errorOf(await s.client.raw('POST', '/developers/webhook', { notification_id: NUL }));
    expect([notification.status, notification.details?.field]).toEqual([400, 'notification_id']);
    const deletion = errorOf(await s.client.raw('POST', '/developers/docs', { ticket: NUL, action: 'delete' }));
    expect([deletion.status, deletion.details?.field]).toEqual([400, 'ticket']);
    const query = errorOf(await s.client.raw('GET', '/api/document?nextToken=a%00b'));
    expect([query.status, query.details?.field]).toEqual([400, 'nextToken']);
    const page = await fetch(`${s.baseUrl}/verify/a%00b`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it('the public rejection: 400 for a NUL, and a reason bounded in bytes as well as characters', async () => {
    const doc = await s.client.createDocument({ b64_doc: pdf, stickers: [sticker()] });
    const path = new URL(doc.stickers[0].signer_url).pathname.replace('/sign/', '/sign/api/');
    const reject = async (reason: string) => {
      const res = await fetch(`${s.baseUrl}${path}/reject`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reason }),
      });
      return errorOf({ status: res.status, text: await res.text() });
    };
    const nul = await reject(`no${NUL}`);
    expect([nul.status, nul.details?.field]).toEqual([400, 'reason']);
    // One grapheme: a letter and 100,000 combining marks (200 KB).
    const zalgo = await reject(`a${'\u0301'.repeat(100_000)}`);
    expect([zalgo.status, zalgo.details?.field]).toEqual([400, 'reason']);
    expect(zalgo.message).toContain('bytes');
    const listed = await s.client.listDocuments();
    expect(listed.documents.find((d) => d.document_ticket === doc.document_ticket)?.status).toBe('pending');
  });
});

/** Sends bytes as they are and returns the raw answer (fetch refuses to send a NUL in a header). */
function rawHttp(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let out = '';
    socket.on('data', (d) => {
      out += d.toString('latin1');
    });
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('requests the HTTP layer refuses', () => {
  const port = () => Number(new URL(s.baseUrl).port);
  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };

  it('a NUL in a header: 400 in the one error shape', async () => {
    const answer = await rawHttp(port(), 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\u0000b\r\n\r\n');
    expect(answer.startsWith('HTTP/1.1 400')).toBe(true);
    expect(bodyOf(answer).error.code).toBe('BAD_REQUEST');
  });

  it('headers of 100 KB: 431 in the one error shape', async () => {
    const answer = await rawHttp(port(), `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`);
    expect(answer.startsWith('HTTP/1.1 431')).toBe(true);
    expect(bodyOf(answer).error.code).toBe('HEADERS_TOO_LARGE');
  });

  it('a 5,000-character identifier: 414 in the one error shape, the path not echoed', async () => {
    const long = errorOf(await s.client.raw('GET', `/api/report/${'x'.repeat(5000)}`));
    expect([long.status, long.code]).toEqual([414, 'PATH_TOO_LONG']);
    expect(long.message).not.toContain('xxxx');
    const e = errorOf(await s.client.raw('GET', `/api/nothing/${'y'.repeat(5000)}`));
    expect([e.status, e.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
    expect(e.message.length).toBeLessThan(300);
  });
});
