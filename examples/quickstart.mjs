#!/usr/bin/env node
// Sello in one run: create a document from contract.pdf with one signer, sign it through the
// signer's link (as the signer's browser would), download the signed PDF, save it, and print its
// signature report. Needs Node.js 20+ and nothing else.
//
//   WEB_ID=... API_KEY=... node examples/quickstart.mjs
//
// BASE (default http://localhost:3000) is the service's address; OUT (default .) where the signed
// PDF is written. The credentials are the ones the first start printed (or `sello account create`).
import { createHash, createHmac } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const BASE = process.env.BASE ?? 'http://localhost:3000';
const OUT = process.env.OUT ?? '.';
const { WEB_ID, API_KEY } = process.env;
if (!WEB_ID || !API_KEY) {
  console.error('Set WEB_ID and API_KEY: the credentials the first start printed.');
  process.exit(2);
}

// Base64(HMAC-SHA256(apiKey, stringToSign)): the path and query of a GET, the body of a POST exactly as sent.
const sign = (text) => createHmac('sha256', API_KEY).update(text).digest('base64');

// What went wrong, in one line a person can act on, and exit 1 (a stack trace says nothing more).
function fail(message) {
  console.error(message);
  process.exit(1);
}

async function call(url, init) {
  try {
    return await fetch(url, init);
  } catch (err) {
    return fail(`Could not reach ${BASE} (${err.cause?.code ?? err.message}): is Sello running there? Set BASE to its address.`);
  }
}

async function api(method, path, body) {
  const text = body === undefined ? undefined : JSON.stringify(body); // serialized once: what is signed is what is sent
  const res = await call(BASE + path, {
    method,
    headers: { authorization: `svc ${WEB_ID}:${sign(text ?? path)}`, ...(text ? { 'content-type': 'application/json' } : {}) },
    body: text,
  });
  const answer = await res.text();
  if (res.status === 401) {
    // 401 bodies are empty on purpose: the service does not say which part was wrong.
    fail(
      `${method} ${path}: 401 Unauthorized: check WEB_ID and API_KEY (the credentials the first start printed, for the service at ${BASE}).`,
    );
  }
  if (!res.ok) {
    fail(`${method} ${path}: ${res.status} ${answer}`);
  }
  return JSON.parse(answer);
}

// 1. Create: the PDF in Base64 and one box for Ana on the first page (page 0; PDF points from the
//    lower-left corner). Without a `workflow` no email goes out: the signer_url is ours to hand over.
const pdf = await readFile(new URL('./contract.pdf', import.meta.url));
const created = await api('POST', '/developers/json', {
  b64_doc: pdf.toString('base64'),
  name: 'Service agreement',
  stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 50, ly: 55, tx: 250, ty: 140 } }],
});
const ticket = created.document_ticket;
const signerUrl = created.stickers[0].signer_url;
console.log(`1. created ${ticket}; Ana signs at ${signerUrl}`);

// 2. Sign as Ana would on her page: the signing API behind her link needs no HMAC (the link is the key).
const link = new URL(signerUrl).pathname.replace(/^\/sign\//, '/sign/api/');
const signed = await call(`${BASE}${link}/sign`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ signature: { type: 'typed', text: 'Ana García' }, consent: true }),
});
if (!signed.ok) {
  fail(`signing failed: ${signed.status} ${await signed.text()}`);
}
console.log(`2. signed: ${JSON.stringify(await signed.json())}`);

// 3. Download the signed PDF: Base64 in a JSON envelope, with its SHA-256.
const original = await api('GET', `/api/document/original/${ticket}`);
const bytes = Buffer.from(original.original, 'base64');
if (createHash('sha256').update(bytes).digest('hex') !== original.hash) {
  fail('the downloaded PDF does not match its hash');
}
const file = join(OUT, 'contract-signed.pdf');
await writeFile(file, bytes);
console.log(`3. saved ${file} (${bytes.length} bytes, SHA-256 ${original.hash})`);

// 4. The signature report: each signature with its certificate chain, time stamp and status.
const report = await api('GET', `/api/report/${ticket}`);
for (const f of report.firmas) {
  console.log(
    `4. signature of ${f.certificados[0]?.commonName}: validSignature ${f.validSignature}, coversDocument ${f.coversDocument}, ` +
      `signed ${f.signDate}, time stamp by ${f.timestampAuthority}, certificate ${f.ocsp.certStatus}`,
  );
}
