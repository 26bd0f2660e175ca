// Clickjacking: every HTML page the service answers — the signer page (document and set), the
// document page, the panel, verify (form, result, problem), the landing page, the API reference —
// refuses to be framed by another site: CSP frame-ancestors 'none' and X-Frame-Options DENY. A page
// added later gets both without asking (one onSend hook).
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denyFraming } from '../../src/http/frame-guard.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const TOKEN = 'Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmE';

function expectNoFraming(res: Response, what: string) {
  expect(res.headers.get('content-type'), what).toMatch(/^text\/html/);
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, what).toMatch(/(^|;)\s*frame-ancestors 'none'\s*(;|$)/);
  // Only one frame-ancestors directive: a second one would be ignored by browsers, not combined.
  expect(csp.match(/frame-ancestors/g), what).toHaveLength(1);
}

describe('HTML pages refuse to be framed', () => {
  it('the signer, set, document and panel pages, keeping the rest of their policy', async () => {
    for (const path of [`/sign/${TOKEN}`, `/sign/set/${TOKEN}`, '/document/9b1c7f0e-ticket', '/panel', '/panel/sign-in']) {
      const res = await fetch(`${s.baseUrl}${path}`);
      expect(res.status, path).toBe(200);
      expectNoFraming(res, path);
      expect(res.headers.get('content-security-policy'), path).toContain("script-src 'self' 'wasm-unsafe-eval'");
    }
  });

  it('the landing page, the API reference and the verify pages, errors included', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Contrato',
      stickers: [{ authority: 'EMAIL', data: 'ana@example.com', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
    });
    const pages: [string, RequestInit | undefined, number][] = [
      ['/', undefined, 200],
      ['/docs/', undefined, 200],
      ['/verify', undefined, 200],
      [`/verify/${doc.document_ticket}`, undefined, 200],
      ['/verify/no-such-ticket', undefined, 404],
    ];
    for (const [path, init, status] of pages) {
      const res = await fetch(`${s.baseUrl}${path}`, init);
      expect(res.status, path).toBe(status);
      expectNoFraming(res, path);
    }
    // The verify form posted without its file part: the form again, as a 400 HTML page.
    const form = new FormData();
    form.set('other', new Blob(['x']), 'x.txt');
    const posted = await fetch(`${s.baseUrl}/verify`, { method: 'POST', body: form });
    expect(posted.status).toBe(400);
    expectNoFraming(posted, 'POST /verify');
  });

  it('a page any route answers as HTML gets both headers; other answers are left alone', async () => {
    const app = Fastify();
    denyFraming(app);
    app.get('/new-page', async (_req, reply) => reply.type('text/html; charset=utf-8').send('<p>new</p>'));
    app.get('/own-policy', async (_req, reply) =>
      reply.type('text/html').header('content-security-policy', "default-src 'self';").send('<p>own</p>'),
    );
    app.get('/json', async () => ({ ok: true }));
    try {
      const page = await app.inject({ url: '/new-page' });
      expect([page.headers['x-frame-options'], page.headers['content-security-policy']]).toEqual(['DENY', "frame-ancestors 'none'"]);
      const own = await app.inject({ url: '/own-policy' });
      expect(own.headers['content-security-policy']).toBe("default-src 'self'; frame-ancestors 'none'");
      const json = await app.inject({ url: '/json' });
      expect([json.headers['x-frame-options'], json.headers['content-security-policy']]).toEqual([undefined, undefined]);
    } finally {
      await app.close();
    }
  });
});
