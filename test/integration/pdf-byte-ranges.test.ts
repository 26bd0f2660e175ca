// The signer page's PDF in byte ranges (RFC 9110 §14), as pdf.js asks for it: 206 with exactly the
// bytes asked for and their place in the file, 416 with the file's size for a range past its end,
// the whole file for no range, several ranges or an If-Range naming another version; the same on a
// set's document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let bytes: Buffer;
let pdfUrl: string;
let sha256: string;
beforeAll(async () => {
  s = await startTestServer();
  bytes = await makePdf([A4, A4, A4]);
  const doc = await s.client.createDocument({
    b64_doc: bytes.toString('base64'),
    name: 'Contrato por partes',
    stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
  });
  pdfUrl = `${doc.stickers[0].signer_url.replace('/sign/', '/sign/api/')}/pdf`;
  ({ original_sha256: sha256 } = await s.deps.db
    .selectFrom('documents')
    .select('original_sha256')
    .where('ticket', '=', doc.document_ticket)
    .executeTakeFirstOrThrow());
});
afterAll(() => s?.close());

const get = (headers: Record<string, string> = {}) => fetch(pdfUrl, { headers });
const body = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe("the signer page's PDF", () => {
  it('is sent whole without a Range header, saying ranges are accepted and naming its version', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('etag')).toBe(`"${sha256}"`);
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect((await body(res)).equals(bytes)).toBe(true);
  });

  it('answers a range with 206 and exactly those bytes', async () => {
    const res = await get({ range: 'bytes=100-1123' });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 100-1123/${bytes.length}`);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect((await body(res)).equals(bytes.subarray(100, 1124))).toBe(true);
  });

  it('answers an open range and a suffix (the trailer pdf.js reads first) with the end of the file', async () => {
    const open = await get({ range: `bytes=${bytes.length - 10}-` });
    expect(open.status).toBe(206);
    expect(open.headers.get('content-range')).toBe(`bytes ${bytes.length - 10}-${bytes.length - 1}/${bytes.length}`);
    expect((await body(open)).equals(bytes.subarray(bytes.length - 10))).toBe(true);
    const suffix = await get({ range: 'bytes=-5' });
    expect(suffix.status).toBe(206);
    expect((await body(suffix)).toString('latin1')).toBe(bytes.subarray(bytes.length - 5).toString('latin1'));
    const past = await get({ range: `bytes=0-${bytes.length + 500}` });
    expect(past.status).toBe(206);
    expect(past.headers.get('content-range')).toBe(`bytes 0-${bytes.length - 1}/${bytes.length}`);
    expect((await body(past)).equals(bytes)).toBe(true);
  });

  it('refuses a range past the end with 416, the code and the file size', async () => {
    const res = await get({ range: `bytes=${bytes.length}-${bytes.length + 10}` });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    const json = (await res.json()) as { error: { code: string; message: string; details: { field: string; size: number } } };
    expect(json.error.code).toBe('RANGE_NOT_SATISFIABLE');
    expect(json.error.message).toMatch(/^range:/);
    expect(json.error.details).toEqual({ field: 'range', size: bytes.length });
  });

  it('sends the whole file for several ranges, another unit, or an If-Range of another version', async () => {
    const whole: Record<string, string>[] = [
      { range: 'bytes=0-10,20-30' },
      { range: 'items=0-10' },
      { range: 'bytes=0-10', 'if-range': '"0000"' },
    ];
    for (const headers of whole) {
      const res = await get(headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect((await body(res)).equals(bytes)).toBe(true);
    }
    const same = await get({ range: 'bytes=0-10', 'if-range': `"${sha256}"` });
    expect(same.status).toBe(206);
    expect((await body(same)).equals(bytes.subarray(0, 11))).toBe(true);
  });
});
