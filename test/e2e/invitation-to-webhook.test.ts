// The whole path a signer and an integrator see: a document with a workflow → invitations caught
// by a real SMTP server → each signer opens the link from their email in Chromium, draws with the
// mouse and signs → document_completed reaches a webhook receiver with a valid Standard Webhooks
// signature; and a restart of the service between a signature and its delivery loses no event.
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountWebhook } from '../../src/domain/accounts/set-webhook.js';
import { guardedFetch, isPublicAddress } from '../../src/net/url-guard.js';
import { createSmtpTransport } from '../../src/notify/email-transport.js';
import { jobRunner, type JobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp-catcher.js';
import { postDrawnSignature, signerToken } from '../helpers/signer-page.js';
import { pdfsig } from '../helpers/validators.js';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

let s: TestServer;
let smtp: SmtpCatcher;
let jobs: JobRunner;
let browser: Browser;
let receiver: Server;
let secret = '';
const deliveries: Delivery[] = [];

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as { port: number }).port;
  [s, smtp, browser] = await Promise.all([
    // The real URL guard, letting through only the receiver on loopback.
    startTestServer({
      fetchUrl: (url, opts) => guardedFetch(url, { ...opts, isAllowedAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) }),
    }),
    startSmtpCatcher(),
    launchChromium(),
  ]);
  s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
  jobs = jobRunner(s.connectionString, s.deps);
  secret = (await setAccountWebhook(s.deps, { webId: s.creds.webId, url: `http://127.0.0.1:${port}/hooks` })).secret;
});
afterAll(async () => {
  await browser?.close();
  await jobs?.close();
  await s?.close();
  await smtp?.close();
  receiver?.close();
});

const box = (x: number) => ({ page: 0, rect: { lx: x, ly: 60, tx: x + 200, ty: 130 } });

/** Standard Webhooks: v1,<Base64 HMAC-SHA256(secret bytes, id.timestamp.body)>, checked independently. */
function signatureValid(d: Delivery): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${d.headers['webhook-id']}.${d.headers['webhook-timestamp']}.${d.body}`)
    .digest('base64');
  return String(d.headers['webhook-signature'])
    .split(' ')
    .some((sig) => sig === `v1,${expected}`);
}

const eventsOf = (ticket: string) =>
  deliveries
    .map((d) => ({ d, body: JSON.parse(d.body) as { notification_type: string; document_ticket: string } }))
    .filter((x) => x.body.document_ticket === ticket);

function linkIn(to: string): string {
  const mail = smtp.messages.find((m) => m.to.includes(to));
  expect(mail, `an invitation to ${to}`).toBeDefined();
  const link = /https?:\/\/\S+\/sign\/[A-Za-z0-9_-]{43}/.exec(mail!.text)![0];
  // The emailed link is the page on this test server.
  return `${s.baseUrl}${new URL(link).pathname}`;
}

async function drawAndSign(url: string) {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, locale: 'es-ES' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(url);
  const pad = page.getByTestId('signature-pad');
  await pad.waitFor();
  await pad.scrollIntoViewIfNeeded();
  const pb = (await pad.boundingBox())!;
  await page.mouse.move(pb.x + 30, pb.y + 90);
  await page.mouse.down();
  for (let i = 1; i <= 15; i++) {
    await page.mouse.move(pb.x + 30 + i * 14, pb.y + 90 - Math.sin(i / 2) * 35);
  }
  await page.mouse.up();
  await page.getByLabel(/Acepto firmar este documento/).check();
  await page.getByRole('button', { name: 'Firmar', exact: true }).click();
  await page.getByTestId('signed-state').waitFor();
  expect(problems).toEqual([]);
  await context.close();
}

describe('invitation to webhook', () => {
  it('two EMAIL_LINK signers invited by email sign in the browser; document_completed arrives signed', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Contrato',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(40) },
        { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', ...box(320) },
      ],
      workflow: { remind_every: 0 },
    });
    await jobs.runDue();
    expect(smtp.messages.map((m) => m.to[0]).sort()).toEqual(['ana@example.com', 'bruno@example.com']);

    await drawAndSign(linkIn('ana@example.com'));
    await drawAndSign(linkIn('bruno@example.com'));
    await jobs.runDue();

    const events = eventsOf(doc.document_ticket);
    // The universal rendition is built by the jobs that ran, and announced after the completion.
    expect(events.map((e) => e.body.notification_type)).toEqual([
      'original_signed',
      'original_signed',
      'document_completed',
      'universal_signed',
    ]);
    for (const e of events) {
      expect(signatureValid(e.d), e.d.headers['webhook-signature'] as string).toBe(true);
    }
    const signed = await s.client.downloadDocument('original', doc.document_ticket);
    const rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
    const report = await pdfsig(signed.bytes, rootPem);
    expect(
      report.signatures.map((x) => [x.valid, x.trusted, x.commonName]),
      report.output,
    ).toEqual([
      [true, true, 'Ana García'],
      [true, true, 'Bruno Díaz'],
    ]);
  });

  it('a restart between the signature and its delivery: the event still arrives, once', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      stickers: [{ authority: 'EMAIL_LINK', data: 'carla@example.com', ...box(40) }],
    });
    const res = await postDrawnSignature(s.baseUrl, signerToken(doc.stickers[0].signer_url));
    expect(res.status).toBe(200);
    expect(eventsOf(doc.document_ticket)).toHaveLength(0);

    // Stopped before any job ran, as a crash or a deploy would; started again on the same data.
    await jobs.close();
    s = await s.restart();
    s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
    jobs = jobRunner(s.connectionString, s.deps);
    await jobs.runDue();
    await jobs.runDue();

    const events = eventsOf(doc.document_ticket);
    expect(events.map((e) => e.body.notification_type)).toEqual(['original_signed', 'document_completed', 'universal_signed']);
    expect(events.every((e) => signatureValid(e.d))).toBe(true);
  });
});
