#!/usr/bin/env node
// An integration with the Sello client package in a few lines: subscribe a local receiver to
// `original_signed`, create a document with one signer, sign it through the signer's link (here
// as the signer's browser would; in production the signer does it on the page), and verify the
// webhook that arrives. Build the client first (`npm run build:client` in the repository), then:
//
//   npm install && SELLO_URL=http://localhost:3000 WEB_ID=... API_KEY=... npm start
//
// HOOK_HOST (default 127.0.0.1) is the address the service reaches this receiver at.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { SelloClient, verifyWebhook } from '@sello/client';

const { SELLO_URL = 'http://localhost:3000', WEB_ID, API_KEY, HOOK_HOST = '127.0.0.1' } = process.env;
if (!WEB_ID || !API_KEY) {
  console.error('Set WEB_ID and API_KEY: the credentials the first start printed.');
  process.exit(2);
}
const sello = new SelloClient({ baseUrl: SELLO_URL, webId: WEB_ID, apiKey: API_KEY });

// 1. A receiver for the webhook, and a subscription whose secret signs its deliveries.
let secret = '';
let received;
const signed = new Promise((resolve, reject) => {
  received = { resolve, reject };
});
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      // The raw body as received: verifyWebhook checks the signature and the time, then parses it.
      const event = verifyWebhook({ secret, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
      server.close();
      received.resolve(event);
    } catch (err) {
      res.writeHead(400).end();
      received.reject(err);
    }
  });
});
await new Promise((r) => server.listen(0, HOOK_HOST, r));
const hook = `http://${HOOK_HOST}:${server.address().port}/sello`;
secret = (await sello.createSubscription('original_signed', hook)).secret;
console.log(`1. receiving original_signed at ${hook}`);

// 2. A document with one box for Ana on the first page.
const pdf = await readFile(new URL('../contract.pdf', import.meta.url));
const doc = await sello.createDocument({
  b64_doc: pdf.toString('base64'),
  name: 'Service agreement',
  stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 50, ly: 55, tx: 250, ty: 140 } }],
});
const signerUrl = doc.stickers[0].signer_url;
console.log(`2. created ${doc.document_ticket}; Ana signs at ${signerUrl}`);

// 3. Ana signs (what the signer page does when she types her name and presses Sign).
const token = signerUrl.split('/sign/')[1];
const res = await fetch(`${new URL(signerUrl).origin}/sign/api/${token}/sign`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ signature: { type: 'typed', text: 'Ana García' }, consent: true }),
});
console.log(`3. signed: HTTP ${res.status}`);

// 4. The webhook, verified.
const event = await signed;
console.log(`4. verified webhook ${event.notification_type} for ${event.document_ticket ?? doc.document_ticket}`);
const report = await sello.signatureReport(doc.document_ticket);
console.log(`5. report: ${report.firmas.length} signature(s), valid: ${report.firmas.every((f) => f.validSignature)}`);
