// Identity verification by an external provider, simulated on loopback as the protocol of
// docs/api.md describes it: the service starts a session (Bearer key; the provider answers where to
// send the signer), the provider posts its signed result; approved lets the signer sign, rejected
// does not. Forged, unsigned and repeated results change nothing; a provider down is a clear 502.
import { createHmac } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { notifications } from '../helpers/universal-checks.js';

const SECRET = 'provider-callback-secret';
const KEY = 'provider-api-key';

interface SessionRequest {
  authorization?: string;
  body: { reference: string; signer: { name: string | null; email: string | null }; return_url: string; callback_url: string };
}

let s: TestServer;
let provider: Server;
let providerUrl = '';
let down = false;
const sessions: SessionRequest[] = [];
let pdf: string;

beforeAll(async () => {
  provider = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (down || req.url !== '/v1/sessions' || req.method !== 'POST') {
        res.writeHead(down ? 503 : 404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      sessions.push({ authorization: req.headers.authorization, body });
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: `ses_${sessions.length}`, url: `${providerUrl}/s/${sessions.length}` }));
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  providerUrl = `http://127.0.0.1:${(provider.address() as { port: number }).port}`;
  s = await startTestServer({
    env: {
      SELLO_IDENTITY_PROVIDER_URL: `${providerUrl}/v1`,
      SELLO_IDENTITY_PROVIDER_KEY: KEY,
      SELLO_IDENTITY_PROVIDER_SECRET: SECRET,
      SELLO_IDENTITY_PROVIDER_NAME: 'VerificaMX',
    },
  });
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(async () => {
  await s?.close();
  await new Promise((r) => provider?.close(r));
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(s.baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** What the provider sends back: the body, and its signature under the shared secret (or another). */
function result(body: Record<string, unknown>, secret = SECRET) {
  const raw = JSON.stringify(body);
  return { raw, signature: `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}` };
}

async function verifyingSigner(name: string) {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    requireIdentityVerification: true,
    stickers: [
      { authority: 'EMAIL_LINK', data: `${name.toLowerCase()}@example.com`, name, page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
    ],
  });
  return { doc, token: doc.stickers[0].signer_url.split('/sign/')[1] };
}

const sign = (token: string) => post(`/sign/api/${token}/sign`, { signature: { type: 'typed', text: 'Firma' }, consent: true });

describe('an external identity verification provider', () => {
  it('starts a session and sends the signer there; its signed approval lets them sign, once', async () => {
    const { doc, token } = await verifyingSigner('Olga');
    const info = await (await fetch(`${s.baseUrl}/sign/api/${token}`)).json();
    expect(info.signer.identity.provider).toBe('VerificaMX');
    const started = await post(`/sign/api/${token}/identity/provider`, {});
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const session = sessions[sessions.length - 1];
    expect(started.json.url).toBe(`${providerUrl}/s/${sessions.length}`);
    expect(session.authorization).toBe(`Bearer ${KEY}`);
    expect(session.body).toMatchObject({
      signer: { name: 'Olga', email: 'olga@example.com' },
      return_url: doc.stickers[0].signer_url,
      callback_url: `${s.deps.config.publicUrl}/identity/provider/callback`,
    });
    expect((await sign(token)).json.error.code).toBe('IDENTITY_VERIFICATION_REQUIRED');
    // The account sees the review, decided by the provider, not by a person.
    const review = (await s.client.listIdentityReviews()).reviews.find((r) => r.document_ticket === doc.document_ticket)!;
    expect(review.id).toBe(session.body.reference);
    const manual = await s.client.decideIdentityReview(review.id, { decision: 'approve' }).catch((e: { status: number }) => e);
    expect((manual as { status: number }).status).toBe(409);

    const approved = result({ reference: session.body.reference, outcome: 'approved' });
    for (const applied of [1, 0]) {
      const r = await post('/identity/provider/callback', approved.raw, { 'x-sello-signature': approved.signature });
      expect([r.status, r.json]).toEqual([200, { status: 'ok', applied }]);
    }
    expect(await notifications(s, doc.document_ticket, 'identity_verification_passed')).toEqual([
      expect.objectContaining({ provider: 'VerificaMX', reason: null }),
    ]);
    expect((await sign(token)).status).toBe(200);
    const firma = (await s.client.signatureReport(doc.document_ticket)).firmas[0];
    expect(firma.downstreamData.identityVerification).toMatchObject({ method: 'provider', provider: 'VerificaMX', reviewId: review.id });
  });

  it('a rejection stops the signer; forged or unsigned results change nothing', async () => {
    const { doc, token } = await verifyingSigner('Pablo');
    await post(`/sign/api/${token}/identity/provider`, {});
    const reference = sessions[sessions.length - 1].body.reference;
    const forged = result({ reference, outcome: 'approved' }, 'not-the-secret');
    expect((await post('/identity/provider/callback', forged.raw, { 'x-sello-signature': forged.signature })).status).toBe(403);
    expect((await post('/identity/provider/callback', forged.raw)).status).toBe(403);
    expect((await s.client.listIdentityReviews()).reviews.find((r) => r.id === reference)!.status).toBe('pending');

    const rejected = result({ reference, outcome: 'rejected', reason: 'Documento vencido' });
    expect((await post('/identity/provider/callback', rejected.raw, { 'x-sello-signature': rejected.signature })).status).toBe(200);
    expect((await sign(token)).json.error.code).toBe('IDENTITY_VERIFICATION_FAILED');
    expect(await notifications(s, doc.document_ticket, 'identity_verification_failed')).toEqual([
      expect.objectContaining({ provider: 'VerificaMX', reason: 'Documento vencido' }),
    ]);
    const unknown = result({ reference: '00000000-0000-4000-8000-000000000000', outcome: 'approved' });
    expect((await post('/identity/provider/callback', unknown.raw, { 'x-sello-signature': unknown.signature })).status).toBe(404);
  });

  it('a provider that does not answer is a 502 and leaves the signer free to try again', async () => {
    const { token } = await verifyingSigner('Quique');
    down = true;
    try {
      const r = await post(`/sign/api/${token}/identity/provider`, {});
      expect([r.status, r.json.error.code]).toEqual([502, 'PROVIDER_UNAVAILABLE']);
    } finally {
      down = false;
    }
    expect((await post(`/sign/api/${token}/identity/provider`, {})).status).toBe(200);
  });
});
