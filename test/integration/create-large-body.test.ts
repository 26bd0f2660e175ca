// POST /developers/json with a body over 1 MiB: its b64_doc is decoded from the body's bytes
// (http/json-base64-field.ts), with the same document and the same answers to bad input as a body
// parsed whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manyPagesPdf } from '../../bench/pdfs.js';
import { SPLIT_BODY_BYTES } from '../../src/http/json-base64-field.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let pdf: Buffer;
let small: string;
beforeAll(async () => {
  s = await startTestServer();
  pdf = await manyPagesPdf(2, 1.5 * SPLIT_BODY_BYTES);
  small = (await makePdf([A4, A4])).toString('base64');
});
afterAll(() => s?.close());

const stickers = [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 1, rect: { lx: 50, ly: 50, tx: 250, ty: 120 } }];

async function create(text: string) {
  const r = await s.client.raw('POST', '/developers/json', text);
  const body = JSON.parse(r.text) as Record<string, unknown> & { error?: { code: string; message: string; details?: unknown } };
  return { status: r.status, body };
}

async function source(ticket: string): Promise<Buffer> {
  return (await s.client.downloadDocument('source', ticket)).bytes;
}

describe('a create body over 1 MiB', () => {
  it('is large enough to be split', () => {
    expect(JSON.stringify({ b64_doc: pdf.toString('base64') }).length).toBeGreaterThan(SPLIT_BODY_BYTES);
  });

  it('creates the same document, with the keys after b64_doc read too', async () => {
    const r = await create(JSON.stringify({ name: 'big', b64_doc: pdf.toString('base64'), stickers, colour: 'blue' }));
    expect(r.status).toBe(200);
    expect(r.body.sticker_count).toBe(1);
    expect(r.body.warnings).toEqual(['colour: unknown key; ignored']);
    expect((await source(r.body.document_ticket as string)).equals(pdf)).toBe(true);
  });

  it('reads a data: URI, line breaks and "\\/" escapes as before (the body parsed whole)', async () => {
    const b64 = pdf.toString('base64');
    const wrapped = `data:application/pdf;base64,${b64.replace(/.{76}/g, '$&\n')}`;
    const escaped = JSON.stringify({ b64_doc: b64 }).replaceAll('/', '\\/');
    for (const body of [JSON.stringify({ b64_doc: wrapped }), escaped]) {
      const r = await create(body);
      expect(r.status).toBe(200);
      expect((await source(r.body.document_ticket as string)).equals(pdf)).toBe(true);
    }
  });

  it('answers bad Base64, bad JSON and wrong types as a small body does', async () => {
    const b64 = pdf.toString('base64');
    const pad = 'x'.repeat(SPLIT_BODY_BYTES);
    // The same fault in a body split (over 1 MiB) and in one parsed whole (a small PDF).
    const cases: [string, string][] = [
      [
        JSON.stringify({ b64_doc: `${b64.slice(0, 1000)}*${b64.slice(1001)}` }),
        JSON.stringify({ b64_doc: `${small.slice(0, 10)}*${small.slice(11)}` }),
      ],
      [JSON.stringify({ b64_doc: `${b64}=` }), JSON.stringify({ b64_doc: `${small}=` })],
      [JSON.stringify({ b64_doc: Buffer.from(pad).toString('base64') }), JSON.stringify({ b64_doc: Buffer.from('x').toString('base64') })], // not a PDF
      [`${JSON.stringify({ b64_doc: b64 }).slice(0, -1)},}`, `${JSON.stringify({ b64_doc: small }).slice(0, -1)},}`],
      [JSON.stringify({ b64_doc: b64, stickers: 'none' }), JSON.stringify({ b64_doc: small, stickers: 'none' })],
      [
        JSON.stringify({ b64_doc: b64, stickers: [{ ...stickers[0], page: 2 }] }),
        JSON.stringify({ b64_doc: small, stickers: [{ ...stickers[0], page: 2 }] }),
      ],
      [
        JSON.stringify({ b64_doc: b64, url_doc: { url: 'https://example.com/a.pdf' } }),
        JSON.stringify({ b64_doc: small, url_doc: { url: 'https://example.com/a.pdf' } }),
      ],
      [JSON.stringify({ pad, b64_doc: 12 }), JSON.stringify({ b64_doc: 12 })],
      [JSON.stringify({ pad, b64_doc: '' }), JSON.stringify({ b64_doc: '' })],
    ];
    for (const [large, smallBody] of cases) {
      expect(large.length).toBeGreaterThan(SPLIT_BODY_BYTES);
      const [a, b] = [await create(large), await create(smallBody)];
      expect(a.status, smallBody).toBeGreaterThanOrEqual(400);
      expect(a.body.error?.code, smallBody).toBeDefined();
      expect({ status: a.status, error: a.body.error }, smallBody).toEqual({ status: b.status, error: b.body.error });
    }
  });
});
