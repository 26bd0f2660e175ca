// The verification QR code (`qr` in the create payload) and the public page it links to,
// /verify/{ticket}: the code read back by an independent renderer and decoder, the stamped file
// checked by qpdf and, once signed, by pdfsig; the page checked for what it shows and what it
// must never show (the file, signing links, full email addresses, addresses signers used).
import { createHash } from 'node:crypto';
import { PDF } from '@libpdf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickLocale } from '../../src/http/verify-html.js';
import { apiError } from '../helpers/api-error.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { decodeQr } from '../helpers/qr.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { postDrawnSignature } from '../helpers/signer-page.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

let s: TestServer;
let rootPem: string;
let pdf: string;

beforeAll(async () => {
  s = await startTestServer();
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(() => s?.close());

const box = (page: number, x = 60) => ({ page, rect: { lx: x, ly: 60, tx: x + 200, ty: 130 } });
const qrBox = { page: 0, rect: { lx: 440, ly: 690, tx: 560, ty: 810 } };

async function documentCount(): Promise<number> {
  const r = await s.deps.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

async function sign(token: string) {
  const res = await postDrawnSignature(s.baseUrl, token);
  expect(res.status, await res.clone().text()).toBe(200);
}

/** A two-signer document with a QR code on its first page. */
async function documentWithQr() {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    qr: [qrBox],
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0) },
      { authority: 'EMAIL_LINK', data: 'bruno@example.com', name: 'Bruno Díaz', ...box(1, 320) },
    ],
  });
  const token = (i: number) => doc.stickers[i].signer_url.split('/').pop()!;
  return { doc, ana: token(0), bruno: token(1) };
}

async function page(path: string, language?: string) {
  const res = await fetch(s.baseUrl + path, { headers: language ? { 'accept-language': language } : {} });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** What the public page must never carry. */
function exposesNothing(text: string, tokens: string[]) {
  for (const secret of ['ana@example.com', 'bruno@example.com', '127.0.0.1', '/sign/', 'JVBERi0', '%PDF-', '/api/document', ...tokens]) {
    expect(text, `exposes ${secret}`).not.toContain(secret);
  }
}

describe('qr in the create payload', () => {
  it('draws a code that reads back as the verification URL; the file stays sound and signable', async () => {
    const { doc, ana, bruno } = await documentWithQr();
    expect(doc.warnings).toEqual([]); // qr is acted on, no longer "not supported"
    const url = `${s.baseUrl}/verify/${doc.document_ticket}`;
    const source = (await s.client.downloadDocument('source', doc.document_ticket)).bytes;
    const original = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    expect(original.equals(source)).toBe(true); // the stamped file is the document from the start
    expect(source.subarray(0, Buffer.from(pdf, 'base64').length).equals(Buffer.from(pdf, 'base64'))).toBe(true);
    expect((await decodeQr(source, 0))?.data).toBe(url);
    expect(await decodeQr(source, 1)).toBeNull();
    const check = await qpdfCheckAsync(source);
    expect(check.ok, check.output).toBe(true);
    expect(check.output).toMatch(/No syntax or stream encoding errors found/);

    await sign(ana);
    await sign(bruno);
    const signed = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    expect(signed.subarray(0, source.length).equals(source)).toBe(true); // incremental: the code is signed over
    const report = await pdfsig(signed, rootPem);
    expect(report.signatures, report.output).toHaveLength(2);
    for (const sig of report.signatures) {
      expect(sig.valid, sig.block).toBe(true);
      expect(sig.trusted, sig.block).toBe(true);
    }
    expect(report.signatures[1].totalDocumentSigned).toBe(true);
    expect((await qpdfCheckAsync(signed)).ok).toBe(true);
    expect((await decodeQr(signed, 0))?.data).toBe(url);
  });

  const cases: [string, unknown, RegExp][] = [
    ['not an array', { page: 0, rect: qrBox.rect }, /^qr: expected an array/],
    ['more than 10 codes', Array.from({ length: 11 }, () => qrBox), /^qr: at most 10 codes/],
    ['an entry that is not an object', ['here'], /^qr\[0\]: expected an object/],
    ['a page that does not exist', [{ ...qrBox, page: 2 }], /^qr\[0\]\.page: page 2 does not exist; the document has 2 page/],
    ['a page that is not a whole number', [{ ...qrBox, page: 0.5 }], /^qr\[0\]\.page: required: a whole number/],
    ['a rect outside the page', [{ page: 0, rect: { lx: 500, ly: 700, tx: 700, ty: 900 } }], /^qr\[0\]\.rect: .*must lie inside the page/],
    ['lx not below tx', [{ page: 0, rect: { lx: 100, ly: 10, tx: 100, ty: 120 } }], /^qr\[0\]\.rect: lx \(100\) must be less than tx/],
    ['a missing coordinate', [{ page: 0, rect: { lx: 1, ly: 1, tx: 100 } }], /^qr\[0\]\.rect\.ty: required/],
    [
      'a box too small to scan',
      [{ page: 0, rect: { lx: 10, ly: 10, tx: 300, ty: 50 } }],
      /^qr\[0\]\.rect: the largest square in the box is 40 points wide; .* at least 48/,
    ],
    ['the failing entry among several', [qrBox, qrBox, { ...qrBox, page: 7 }], /^qr\[2\]\.page: page 7 does not exist/],
  ];
  for (const [what, qr, message] of cases) {
    it(`refuses ${what} with a 400 naming the entry, storing nothing`, async () => {
      const before = await documentCount();
      const e = await apiError(s.client.createDocument({ b64_doc: pdf, qr }));
      expect([e.status, e.code]).toEqual([400, 'INVALID_INPUT']);
      expect(e.message).toMatch(message);
      expect(await documentCount()).toBe(before);
    });
  }

  it('accepts a box at the edge of the CropBox and an empty list', async () => {
    const edge = await s.client.createDocument({ b64_doc: pdf, qr: [{ page: 1, rect: { lx: 0, ly: 0, tx: 48, ty: 48 } }] });
    const bytes = (await s.client.downloadDocument('source', edge.document_ticket)).bytes;
    expect((await decodeQr(bytes, 1))?.data).toBe(`${s.baseUrl}/verify/${edge.document_ticket}`);
    const none = await s.client.createDocument({ b64_doc: pdf, qr: [] });
    expect((await s.client.downloadDocument('source', none.document_ticket)).bytes.equals(Buffer.from(pdf, 'base64'))).toBe(true);
  });
});

describe('the verification page', () => {
  it('shows a pending document: name, status, dates, fingerprint, masked pending signers; nothing private', async () => {
    const { doc, ana, bruno } = await documentWithQr();
    const en = await page(`/verify/${doc.document_ticket}`, 'en-GB,en;q=0.9,es;q=0.5');
    expect(en.status).toBe(200);
    expect(en.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(en.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    expect(en.headers.get('cache-control')).toBe('no-store');
    expect(en.headers.get('x-robots-tag')).toBe('noindex');
    expect(en.text).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(en.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(en.text).not.toMatch(/<script|<img|<link|<iframe|<form|src=/i);
    expect(en.text).toContain('Contrato.pdf');
    expect(en.text).toContain('Awaiting signatures');
    expect(en.text).toContain('Signatures (0)');
    expect(en.text).toContain('The document has no signatures yet.');
    const sha = createHash('sha256')
      .update((await s.client.downloadDocument('original', doc.document_ticket)).bytes)
      .digest('hex');
    expect(en.text).toContain(sha);
    expect(en.text).toMatch(/<dt>Pages<\/dt><dd>2<\/dd>/);
    expect(en.text).toContain('A*** G***');
    expect(en.text).toContain('a***@example.com');
    expect(en.text).toContain('B*** D***');
    expect(en.text).toContain('b***@example.com');
    expect(en.text).not.toContain('Ana García'); // not public before she signs
    exposesNothing(en.text, [ana, bruno]);

    const es = await page(`/verify/${doc.document_ticket}`);
    expect(es.text).toMatch(/<html lang="es">/);
    expect(es.text).toContain('Pendiente de firmas');
    expect(es.text).toContain('Firmantes pendientes (2)');
  });

  it('shows each signature as the signature report checks it, in Spanish and English', async () => {
    const { doc, ana, bruno } = await documentWithQr();
    await sign(ana);
    const es = await page(`/verify/${doc.document_ticket}`, 'es-MX');
    expect(es.status).toBe(200);
    expect(es.text).toContain('Firmas (1)');
    expect(es.text).toContain('<h3>Ana García</h3>');
    expect(es.text).toContain('Firma válida');
    expect(es.text).toContain('a***@example.com');
    expect(es.text).toContain('Enlace por correo');
    expect(es.text).toContain('Válida: el contenido firmado no ha cambiado');
    expect(es.text).toContain('Cubre el documento completo');
    expect(es.text).toContain('De confianza · vigente');
    expect(es.text).toContain('Sello Test Time-Stamping Authority');
    expect(es.text).toContain('B*** D***'); // still to sign
    expect(es.text).toContain('Firmantes pendientes (1)');
    exposesNothing(es.text, [ana, bruno]);

    await sign(bruno);
    const en = await page(`/verify/${doc.document_ticket}`, 'en');
    expect(en.text).toContain('Completed: everyone signed');
    expect(en.text.match(/Valid signature/g)).toHaveLength(2);
    expect(en.text).toContain('<h3>Bruno Díaz</h3>');
    // Ana's signature is followed by Bruno's revision.
    expect(en.text).toContain('Covers revision 3 of 4');
    expect(en.text).toContain('Covers the whole document');
    expect(en.text).not.toContain('still to sign');
    const sha = createHash('sha256')
      .update((await s.client.downloadDocument('original', doc.document_ticket)).bytes)
      .digest('hex');
    expect(en.text).toContain(sha);
    exposesNothing(en.text, [ana, bruno]);
  });

  it('answers the same data as JSON at /verify/{ticket}.json, agreeing with the signature report', async () => {
    const { doc, ana, bruno } = await documentWithQr();
    await sign(ana);
    const res = await page(`/verify/${doc.document_ticket}.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    exposesNothing(res.text, [ana, bruno]);
    const body = JSON.parse(res.text);
    const original = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    expect(body).toMatchObject({
      ticket: doc.document_ticket,
      name: 'Contrato.pdf',
      status: 'pending',
      page_count: 2,
      sha256: createHash('sha256').update(original).digest('hex'),
      pending_signers: [{ name: 'B*** D***', identifier: 'b***@example.com', authority: 'EMAIL_LINK' }],
    });
    expect(Date.parse(body.created_at)).not.toBeNaN();
    const report = await s.client.signatureReport(doc.document_ticket);
    const f = report.firmas[0];
    expect(body.signatures).toEqual([
      {
        signer_name: 'Ana García',
        email: 'a***@example.com',
        authority: 'EMAIL_LINK',
        signed_at: f.signDate,
        valid: true,
        covers_document: true,
        revision: 3,
        total_revisions: 3,
        timestamp: { time: expect.any(String), authority: f.timestampAuthority },
        certificate_trusted: true,
        certificate_status: 'good',
        modified_after_signing: false,
        verified: true,
      },
    ]);
    // The time-stamp proves the signing time.
    expect(body.signatures[0].timestamp.time).toBe(f.signDate);
  });

  it('shows a stored document whose signature was followed by a change as not verified', async () => {
    // A stored original is the service's own work, content-addressed; the one way a stored document
    // holds a signature modified after signing is to be created from such a file: a signed copy,
    // changed, uploaded again as a new document.
    const { doc, ana } = await documentWithQr();
    await sign(ana);
    const signed = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const edit = await PDF.load(signed);
    edit.getPage(0)!.drawText('Pay 9000 EUR to Eve', { x: 50, y: 400, size: 14 });
    const altered = Buffer.from(await edit.save({ incremental: true }));
    const copy = await s.client.createDocument({ b64_doc: altered.toString('base64'), name: 'Copia alterada' });

    const json = JSON.parse((await page(`/verify/${copy.document_ticket}.json`)).text);
    expect(json.signatures).toHaveLength(1);
    expect(json.signatures[0]).toMatchObject({
      valid: true,
      certificate_trusted: true,
      certificate_status: 'good',
      modified_after_signing: true,
      verified: false,
    });
    const es = await page(`/verify/${copy.document_ticket}`, 'es');
    expect(es.text).toContain('Firma no válida');
    expect(es.text).toContain('Modificado después de firmar: se añadió o cambió contenido que esta firma no permite');
    expect(es.text).not.toContain('Firma válida');
    // The document it was copied from still verifies.
    const original = JSON.parse((await page(`/verify/${doc.document_ticket}.json`)).text);
    expect(original.signatures[0]).toMatchObject({ modified_after_signing: false, verified: true });
  });

  it('is a 404 page for an unknown ticket and says a deleted document is not available', async () => {
    const unknown = await page('/verify/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(unknown.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    expect(unknown.text).toContain('Documento no encontrado');
    const unknownEn = await page('/verify/nope', 'en-US');
    expect([unknownEn.status, unknownEn.text.includes('Document not found')]).toEqual([404, true]);
    const unknownJson = await page('/verify/nope.json');
    expect(unknownJson.status).toBe(404);
    expect(JSON.parse(unknownJson.text).error.code).toBe('DOCUMENT_NOT_FOUND');

    const doc = await s.client.createDocument({ b64_doc: pdf, name: 'Borrado' });
    await s.client.deleteDocument(doc.document_ticket);
    const gone = await page(`/verify/${doc.document_ticket}`);
    expect(gone.status).toBe(409);
    expect(gone.text).toContain('Documento no disponible');
    expect(gone.text).not.toContain('Borrado');
    const goneJson = await page(`/verify/${doc.document_ticket}.json`);
    expect([goneJson.status, JSON.parse(goneJson.text).error.code]).toEqual([409, 'DOCUMENT_DELETED']);
  });

  it('masks a signer without a name everywhere: heading, rows and JSON; explains "trusted" with the CA to install', async () => {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      name: 'Sin nombre',
      stickers: [{ authority: 'EMAIL_LINK', data: 'carla.nameless@example.com', ...box(0) }],
    });
    await sign(doc.stickers[0].signer_url.split('/').pop()!);
    const html = await page(`/verify/${doc.document_ticket}`, 'en');
    const json = await page(`/verify/${doc.document_ticket}.json`);
    for (const text of [html.text, json.text]) {
      expect(text).not.toContain('carla.nameless');
      expect(text).toContain('c***@example.com');
    }
    expect(html.text).toContain('<h3>c***@example.com</h3>');
    expect(JSON.parse(json.text).signatures[0].signer_name).toBe('c***@example.com');
    // What "trusted" means, and the CA a PDF reader needs to say the same.
    expect(html.text).toContain('What does “trusted” mean?');
    expect(html.text).toContain('href="/pki/ca.pem"');
    const ca = await fetch(`${s.baseUrl}/pki/ca.pem`);
    expect(ca.status).toBe(200);
    expect(await ca.text()).toBe(rootPem);
  });

  it('escapes what the sender named', async () => {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      name: '<script>alert(1)</script>',
      stickers: [{ authority: 'EMAIL_LINK', data: 'eve@example.com', name: '<b>Eve</b>', ...box(0) }],
    });
    const res = await page(`/verify/${doc.document_ticket}`);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('&lt;script&gt;alert(1)');
    expect(res.text).toContain('<strong>&lt;***</strong>'); // the pending signer's name, masked and escaped
    expect(res.text).toContain('e***@example.com');
    expect(res.text).not.toContain('<b>');
  });

  it('is described in the OpenAPI document, like qr in the create payload', async () => {
    const doc = await (await fetch(`${s.baseUrl}/openapi.json`)).json();
    expect(doc.paths['/verify/{ticket}'].get.security).toEqual([]); // public: no authentication
    const create = doc.paths['/developers/json'].post.requestBody.content['application/json'].schema;
    expect(create.properties.qr).toMatchObject({ type: 'array', maxItems: 10 });
  });

  it('picks the language from Accept-Language, Spanish by default', () => {
    expect(pickLocale(undefined)).toBe('es');
    expect(pickLocale('fr-FR, en;q=0.8')).toBe('en');
    expect(pickLocale('en;q=0.5, es;q=0.9')).toBe('es');
    expect(pickLocale('de, fr')).toBe('es');
    expect(pickLocale('en;q=0, es')).toBe('es');
    expect(pickLocale('EN-us')).toBe('en');
  });
});
