// POST /api/report: the verifier through the real API, on a running server. A document signed by
// the service is intact and named as the service's; a file signed elsewhere (the openssl test PKI,
// which the service does not trust) is still checked for structure and changes; attacks are named;
// hostile files end in a 422 within the reading limits, never a 5xx; the Content-SHA256 rule holds.
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloApiError } from '../../src/client/index.js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { xrefLoops } from '../helpers/xref-loops.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { HandPdf, stream } from '../helpers/signed-pdfs.js';

let s: TestServer;
let pki: TestPki;
let ana: TestSigner;
let serviceSigned: Buffer | undefined;

beforeAll(async () => {
  [s, pki] = await Promise.all([
    // A document size limit of 3 MB, so that an oversized upload is cheap to send.
    startTestServer({ env: { SELLO_PDF_TIMEOUT_MS: '5000', SELLO_PDF_MEMORY_MB: '256', SELLO_MAX_DOCUMENT_MB: '3' } }),
    createTestPki(),
  ]);
  ana = await pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
}, 60_000);
afterAll(async () => {
  pki?.dispose();
  await s?.close();
});

async function status(send: () => Promise<unknown>): Promise<{ status: number; code?: string }> {
  const { message: _, ...o } = await answer(send);
  return o;
}

/** The status, code and message of the answer (200 when it succeeded). */
async function answer(send: () => Promise<unknown>): Promise<{ status: number; code?: string; message?: string }> {
  try {
    await send();
    return { status: 200 };
  } catch (err) {
    if (err instanceof SelloApiError) {
      return { status: err.status, code: err.code, message: err.message };
    }
    throw err;
  }
}

describe('POST /api/report', () => {
  it('a document signed by the service: intact, certType SELLO, B-T, the same verdicts as GET /api/report', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
    });
    const token = doc.stickers[0].signer_url.split('/').pop()!;
    const res = await fetch(`${s.baseUrl}/sign/api/${token}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signature: { type: 'typed', text: 'Ana' }, consent: true }),
    });
    expect(res.status).toBe(200);
    const file = (await s.client.downloadDocument('original', doc.document_ticket)).bytes;
    serviceSigned = Buffer.from(file);
    const uploaded = await s.client.verifyPdf(file);
    const stored = await s.client.signatureReport(doc.document_ticket);
    expect(uploaded.documentIntegrity).toBe('intact');
    expect(uploaded.attacks).toEqual([]);
    expect(uploaded.firmas).toHaveLength(1);
    expect(uploaded.firmas[0]).toMatchObject({
      validSignature: true,
      problem: null,
      warnings: [],
      modifiedAfterSigning: false,
      level: 'B-T',
      timestampValid: true,
      validationData: 'service',
      certType: 'SELLO',
      box: -1, // an upload is no document of the account: no signer is matched
      ipAddress: '',
      ocsp: { signatureValid: true, certStatus: 'good' },
    });
    const { box: _b, ipAddress: _i, downstreamData: _d, ...rest } = uploaded.firmas[0];
    expect(stored.firmas[0]).toMatchObject(rest);
    expect(stored.documentIntegrity).toBe('intact');
  });

  it('a file signed elsewhere and altered after signing: modified, the change and the attack named', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', timestamp: true });
    pdf.update({ 4: stream('BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET') });
    const r = await s.client.verifyPdf(pdf.bytes);
    expect(r.documentIntegrity).toBe('modified');
    expect(r.firmas[0]).toMatchObject({ validSignature: true, modifiedAfterSigning: true, certType: 'external', validationData: 'none' });
    // The service does not trust the test PKI's root: the timestamp is not trusted either.
    expect(r.firmas[0].ocsp.signatureValid).toBe(false);
    expect(r.firmas[0].changes).toContainEqual(
      expect.objectContaining({ revision: 3, object: 4, kind: 'changed', category: 'other', allowed: false }),
    );
    expect(r.attacks).toEqual([expect.objectContaining({ name: 'incremental-saving', campoFirma: 'Ana' })]);
  });

  it('a forged signature: invalid, the rule named', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', rawContents: '' });
    const r = await s.client.verifyPdf(pdf.bytes);
    expect(r.documentIntegrity).toBe('invalid');
    expect(r.firmas[0]).toMatchObject({ validSignature: false, problem: { rule: 'contents-empty' } });
    expect(r.attacks.map((a) => a.name)).toEqual(['universal-signature-forgery']);
  });

  it('text left after the CMS in /Contents: valid and intact, the report warns of it', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana' });
    const text = pdf.bytes.toString('latin1');
    const at = text.lastIndexOf('/Contents <') + '/Contents <'.length;
    const hex = text.slice(at, text.indexOf('>', at));
    const n = Number.parseInt(hex.slice(2, 4), 16) & 0x7f;
    const cmsHex = (2 + n + Number.parseInt(hex.slice(4, 4 + 2 * n), 16)) * 2;
    const bytes = Buffer.from(pdf.bytes);
    bytes.write(Buffer.from('%%EOF written twice').toString('hex'), at + cmsHex, 'latin1');
    const r = await s.client.verifyPdf(bytes);
    expect(r.documentIntegrity).toBe('intact');
    expect(r.firmas[0]).toMatchObject({ validSignature: true, problem: null, modifiedAfterSigning: false });
    expect(r.firmas[0].warnings).toEqual([{ rule: 'contents-trailing-data', message: expect.stringContaining('after the CMS') }]);
  });

  it('an unsigned PDF: no signatures, intact', async () => {
    const r = await s.client.verifyPdf(await makePdf());
    expect(r).toEqual({ InkSignatures: [], firmas: [], documentIntegrity: 'intact', attacks: [] });
  });

  it('401 when Content-SHA256 is not the hash of the file; 422 for a file that is no PDF', async () => {
    const file = await makePdf();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), 'doc.pdf');
    const wrong = createHash('sha256').update('something else').digest('base64');
    const mac = createHmac('sha256', Buffer.from(s.creds.apiKey, 'utf8')).update(wrong).digest('base64');
    const res = await fetch(`${s.baseUrl}/api/report`, {
      method: 'POST',
      headers: { authorization: `svc ${s.creds.webId}:${mac}`, 'content-sha256': wrong },
      body: form,
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('');
    expect(await status(() => s.client.verifyPdf(Buffer.from('not a pdf at all')))).toEqual({ status: 422, code: 'PDF_INVALID' });
  });

  it('an unexpected field beside the file: 400 INVALID_INPUT naming it, before or after the file', async () => {
    const file = await makePdf();
    const sha = createHash('sha256').update(file).digest('base64');
    const mac = createHmac('sha256', Buffer.from(s.creds.apiKey, 'utf8')).update(sha).digest('base64');
    for (const fieldFirst of [true, false]) {
      const form = new FormData();
      if (fieldFirst) {
        form.append('page', '0');
      }
      form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), 'doc.pdf');
      if (!fieldFirst) {
        form.append('page', '0');
      }
      const res = await fetch(`${s.baseUrl}/api/report`, {
        method: 'POST',
        headers: { authorization: `svc ${s.creds.webId}:${mac}`, 'content-sha256': sha },
        body: form,
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string; details: { field: string } } };
      expect(body.error.code).toBe('INVALID_INPUT');
      expect(body.error.details.field).toBe('page');
      expect(body.error.message).toContain('page: unexpected field');
    }
  });

  it('too many revisions and an impossible object count: 422 PDF_TOO_COMPLEX, refused by the count before any reading', async () => {
    const many = HandPdf.base();
    for (let i = 0; i < 101; i++) {
      many.update({ 8: `<< /N ${i} >>` });
    }
    expect(await answer(() => s.client.verifyPdf(many.bytes))).toMatchObject({
      status: 422,
      code: 'PDF_TOO_COMPLEX',
      message: expect.stringContaining('the file has 102 revisions; at most 100 are verified'),
    });
    const huge = HandPdf.base();
    huge.update({ 8: '<< >>' }, '/Size 5000000 ');
    // Refused by the declared-object count, not stopped by the PDF jail's time limit (whose
    // message says "took longer than").
    expect(await answer(() => s.client.verifyPdf(huge.bytes))).toMatchObject({
      status: 422,
      code: 'PDF_TOO_COMPLEX',
      message: expect.stringContaining('revision 2 declares 5000000 objects; at most 1000000 are verified'),
    });
  });

  it('cross-reference /Prev loops (tables and streams): a 422 or a bounded report', async () => {
    const signed = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', timestamp: true });
    for (const loop of xrefLoops(signed)) {
      let report: Awaited<ReturnType<typeof s.client.verifyPdf>> | undefined;
      const o = await status(async () => {
        report = await s.client.verifyPdf(loop.bytes);
      });
      if (loop.expect === 'refused') {
        expect(o, loop.name).toEqual({ status: 422, code: 'PDF_INVALID' });
      } else {
        expect(o.status, loop.name).toBe(200);
        expect(report?.documentIntegrity).toBe('modified');
        expect(report?.firmas[0].changes).toContainEqual(
          expect.objectContaining({
            revision: 3,
            allowed: false,
            description: 'revision 3 cannot be read without rebuilding its cross-references',
          }),
        );
      }
    }
  });
  // The hostile corpus on this route (a 422 or a report for each file, never a 5xx, in time and
  // in bounded memory): test/integration/hostile-pdfs.test.ts.
});

describe('the public page: GET and POST /verify', () => {
  async function drop(file: Uint8Array, lang = 'es') {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), 'doc.pdf');
    const res = await fetch(`${s.baseUrl}/verify`, { method: 'POST', body: form, headers: { 'accept-language': lang } });
    return { status: res.status, html: await res.text(), headers: res.headers };
  }

  it('shows the form, without authentication and without script', async () => {
    const res = await fetch(`${s.baseUrl}/verify`, { headers: { 'accept-language': 'en' } });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain('<form method="post" action="/verify" enctype="multipart/form-data">');
    expect(html).toContain('Verify a signed PDF');
    expect(html).not.toContain('<script');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('a document signed by the service: valid, trusted, intact (Spanish)', async () => {
    expect(serviceSigned).toBeDefined();
    const r = await drop(serviceSigned!);
    expect(r.status).toBe(200);
    expect(r.html).toContain('Firma válida');
    expect(r.html).toContain('Íntegro');
    expect(r.html).toContain('Certificado de confianza para este servicio');
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('a file changed after signing: modified, the change named (English)', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', timestamp: true });
    pdf.update({ 4: stream('BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET') });
    const r = await drop(pdf.bytes, 'en');
    expect(r.status).toBe(200);
    expect(r.html).toContain('Modified after signing');
    expect(r.html).toContain('Document modified after this signature');
    expect(r.html).toContain('Incremental saving');
    expect(r.html).toContain('revision 3: content stream changed');
  });

  it('a file changed after signing, in Spanish: the change and the attack in Spanish, no English left', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', timestamp: true });
    pdf.update({ 4: stream('BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET') });
    const r = await drop(pdf.bytes, 'es-MX,es;q=0.9');
    expect(r.status).toBe(200);
    expect(r.html).toContain('Modificado después de firmar');
    expect(r.html).toContain('Documento modificado después de esta firma');
    expect(r.html).toContain('Cambios no permitidos');
    expect(r.html).toContain('revisión 3: se modificó un flujo de contenido (/Length datos del flujo)');
    expect(r.html).toContain('Guardado incremental');
    for (const english of ['content stream', 'incremental-saving', 'Incremental saving', 'revision 3']) {
      expect(r.html).not.toContain(english);
    }
  });

  it('a forged signature, in Spanish: not valid, the rule and the attack in Spanish', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', rawContents: '' });
    const r = await drop(pdf.bytes, 'es');
    expect(r.status).toBe(200);
    expect(r.html).toContain('Contiene firmas no válidas');
    expect(r.html).toContain('Firma no válida');
    expect(r.html).toContain('el /Contents está vacío o son solo ceros: no hay firma');
    expect(r.html).toContain('Falsificación universal de firma');
    expect(r.html).not.toContain('universal-signature-forgery');
    expect(r.html).not.toContain('there is no signature');
  });

  it('an extra field or a second file in the form: 400 and the form again naming it, before or after the PDF', async () => {
    const file = new Blob([new Uint8Array(await makePdf())], { type: 'application/pdf' });
    // Three requests, within the per-address budget the last test of this block spends.
    const cases: [string, [string, string | Blob][]][] = [
      [
        'note<b>',
        [
          ['note<b>', 'hello'],
          ['file', file],
        ],
      ],
      [
        'note<b>',
        [
          ['file', file],
          ['note<b>', 'hello'],
        ],
      ],
      // A second file under the same name.
      [
        'file',
        [
          ['file', file],
          ['file', file],
        ],
      ],
    ];
    for (const [name, parts] of cases) {
      const form = new FormData();
      for (const [key, value] of parts) {
        if (typeof value === 'string') {
          form.append(key, value);
        } else {
          form.append(key, value, `${key}.pdf`);
        }
      }
      const res = await fetch(`${s.baseUrl}/verify`, { method: 'POST', body: form, headers: { 'accept-language': 'en' } });
      const html = await res.text();
      expect(res.status).toBe(400);
      const shown = name.replace('<', '&lt;').replace('>', '&gt;');
      expect(html).toContain(`The form sends only the PDF file (file); the request carries another part: <code>${shown}</code>.`);
      expect(html).toContain('<form method="post" action="/verify"');
    }
  });

  it('a file over the size limit: 413 and the form again saying so', async () => {
    const big = Buffer.concat([await makePdf(), Buffer.alloc(3.5 * 1024 * 1024, 0x20)]);
    const r = await drop(big, 'en');
    expect(r.status).toBe(413);
    expect(r.html).toContain('The file is larger than allowed.');
    expect(r.html).toContain('<form method="post" action="/verify"');
  });

  it('verifying a file stores nothing: documents, revisions, history and blobs unchanged', async () => {
    const counts = async () => {
      const rows = await sql<{ documents: string; revisions: string; history: string; consumption: string }>`
        select (select count(*) from documents) as documents, (select count(*) from document_revisions) as revisions,
               (select count(*) from document_history) as history, (select count(*) from consumption) as consumption`.execute(s.deps.db);
      return { ...rows.rows[0], blobs: await filesUnder(join(s.dataDir, 'blobs')) };
    };
    const before = await counts();
    expect(Number(before.documents)).toBeGreaterThan(0); // the service-signed document of the first tests
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', timestamp: true });
    const r = await drop(pdf.bytes, 'en');
    expect(r.status).toBe(200);
    expect(r.html).toContain('Valid signature');
    expect(await counts()).toEqual(before);
  });

  it('a file that is no PDF: 422 and the form again; then the per-address limit: 429', async () => {
    const r = await drop(Buffer.from('hello'), 'en');
    expect(r.status).toBe(422);
    expect(r.html).toContain('The file is not a readable PDF.');
    let last = 0;
    for (let i = 0; i < 12 && last !== 429; i++) {
      last = (await drop(Buffer.from('hello'))).status;
    }
    expect(last).toBe(429);
  });
});

/** Files under a directory, however deep (the blob store nests by hash prefix). */
async function filesUnder(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).length;
}
