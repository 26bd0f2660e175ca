// Inputs that must be refused with nothing stored: malformed PDFs, oversized documents, and
// url_doc addresses that would make the server reach inside its own network.
import { createServer, type Server } from 'node:http';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, isPublicAddress } from '../../src/net/url-guard.js';
import { encryptWithQpdf, makePdf } from '../helpers/pdfs.js';
import { apiError } from '../helpers/api-error.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let pdf: Buffer;
// A loopback server that serves a valid PDF and counts what reaches it.
let target: Server;
let targetPort = 0;
let targetHits = 0;
// A second loopback address that the test treats as "public" to play an outside server.
let outside: Server;
let outsidePort = 0;

beforeAll(async () => {
  pdf = await makePdf();
  target = createServer((_req, res) => {
    targetHits++;
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(pdf);
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetPort = (target.address() as { port: number }).port;
  outside = createServer((req, res) => {
    if (req.url === '/redirect-to-loopback') {
      res.writeHead(302, { location: `http://127.0.0.1:${targetPort}/x.pdf` });
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(pdf);
    }
  });
  await new Promise<void>((r) => outside.listen(0, '127.0.0.2', r));
  outsidePort = (outside.address() as { port: number }).port;
  s = await startTestServer({
    env: { SELLO_MAX_DOCUMENT_MB: '1' },
    // The real guard; only 127.0.0.2 is let through, standing in for a public address.
    fetchUrl: (url, opts) => guardedFetch(url, { ...opts, isAllowedAddress: (ip) => ip === '127.0.0.2' || isPublicAddress(ip) }),
  });
});
afterAll(async () => {
  await s?.close();
  target?.close();
  outside?.close();
});

async function stored() {
  const r = await s.deps.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  let blobs = 0;
  try {
    for (const a of await readdir(join(s.dataDir, 'blobs'))) {
      for (const b of await readdir(join(s.dataDir, 'blobs', a))) {
        blobs += (await readdir(join(s.dataDir, 'blobs', a, b))).length;
      }
    }
  } catch {
    // no blob directory yet
  }
  return { documents: Number(r.n), blobs };
}

describe('malformed PDFs: 422 with a readable message, nothing stored, the server still answering', () => {
  const cases: [string, () => Promise<string>, string, RegExp][] = [
    ['a truncated PDF', async () => pdf.subarray(0, Math.floor(pdf.length / 2)).toString('base64'), 'PDF_INVALID', /damaged/],
    [
      'random bytes',
      async () => Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 251)).toString('base64'),
      'PDF_INVALID',
      /not a PDF/,
    ],
    ['text that is not Base64', async () => 'this is %%% not base64!', 'PDF_INVALID', /not valid Base64/],
    ['an encrypted PDF (qpdf, AES-256)', async () => encryptWithQpdf(pdf).toString('base64'), 'PDF_ENCRYPTED', /encrypted/],
    [
      'a PDF header with nothing after it',
      async () => Buffer.from('%PDF-1.7\n%%EOF\n').toString('base64'),
      'PDF_INVALID',
      /cannot be read|damaged/,
    ],
  ];
  for (const [what, make, code, message] of cases) {
    it(`refuses ${what}`, async () => {
      const before = await stored();
      const e = await apiError(s.client.createDocument({ b64_doc: await make() }));
      expect(e.status).toBe(422);
      expect(e.code).toBe(code);
      expect(e.message).toMatch(message);
      expect(await stored()).toEqual(before);
      expect((await fetch(`${s.baseUrl}/healthz`)).status).toBe(200);
    });
  }

  it('refuses a document over the size limit with 413, before decoding it', async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 1).toString('base64');
    const e = await apiError(s.client.createDocument({ b64_doc: big }));
    expect(e.status).toBe(413);
    expect(e.code).toBe('DOCUMENT_TOO_LARGE');
  });

  it('refuses a body past the JSON limit, which follows the document limit (4 MB for 1 MB): 413 naming it, nothing stored', async () => {
    const before = await stored();
    const e = await apiError(s.client.createDocument({ b64_doc: Buffer.alloc(3 * 1024 * 1024 + 10, 1).toString('base64') }));
    expect(e.status).toBe(413);
    expect(e.code).toBe('BODY_TOO_LARGE');
    expect(e.message).toBe('the request body is larger than the limit of 4 MB');
    expect(e.details).toEqual({ field: 'body', limit_bytes: 4 * 1024 * 1024 });
    expect(await stored()).toEqual(before);
  });
});

describe('url_doc through the address guard', () => {
  const refused: [string, () => string][] = [
    ['127.0.0.1', () => `http://127.0.0.1:${targetPort}/doc.pdf`],
    ['10.0.0.1', () => 'http://10.0.0.1/doc.pdf'],
    ['the cloud metadata address 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
    ['an IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${targetPort}/doc.pdf`],
    ['a host name resolving to loopback', () => `http://localhost:${targetPort}/doc.pdf`],
    ['a public-looking server that redirects to loopback', () => `http://127.0.0.2:${outsidePort}/redirect-to-loopback`],
    ['a file: URL', () => 'file:///etc/passwd'],
  ];
  for (const [what, url] of refused) {
    it(`refuses ${what}: 400, nothing fetched from loopback, nothing stored`, async () => {
      const before = await stored();
      const hits = targetHits;
      const e = await apiError(s.client.createDocument({ url_doc: { url: url(), name: 'x.pdf' } }));
      expect(e.status).toBe(400);
      expect(e.code).toBe('URL_NOT_ALLOWED');
      expect(e.message).toMatch(/^url_doc\.url: refused/);
      expect(targetHits).toBe(hits);
      expect(await stored()).toEqual(before);
    });
  }

  it('fetches from an allowed address and names the document from url_doc.name', async () => {
    const r = await s.client.createDocument({ url_doc: { url: `http://127.0.0.2:${outsidePort}/files/contract.pdf`, name: 'Contrato' } });
    const file = await s.client.downloadDocument('source', r.document_ticket);
    expect(file.bytes.equals(pdf)).toBe(true);
    expect(file.name).toBe('Contrato.pdf');
  });
});

describe('SELLO_ALLOW_PRIVATE_URLS for local development', () => {
  it('lets url_doc reach loopback when set', async () => {
    const dev = await startTestServer({ env: { SELLO_ALLOW_PRIVATE_URLS: 'true' } });
    try {
      const r = await dev.client.createDocument({ url_doc: { url: `http://127.0.0.1:${targetPort}/a/b/report.pdf` } });
      const file = await dev.client.downloadDocument('original', r.document_ticket);
      expect(file.bytes.equals(pdf)).toBe(true);
      expect(file.name).toBe('report.pdf');
    } finally {
      await dev.close();
    }
  });
});
