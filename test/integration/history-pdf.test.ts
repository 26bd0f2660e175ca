// GET /api/v1/document/{documentId}/history/pdf: the history as a PDF sealed by the service, judged
// by pdfsig (the seal valid and trusted), pdftotext (every entry listed, in the document's
// language) and qpdf.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A4, makePdf } from '../helpers/pdfs.js';
import { apiError } from '../helpers/api-error.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openAndSign } from '../helpers/signer-page.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

let s: TestServer;
let dir: string;
let rootPem: string;

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'sello-history-pdf-'));
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

function text(pdf: Buffer): string {
  const file = join(dir, `h${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  // -raw keeps each table cell's text whole, in reading order.
  return execFileSync('pdftotext', ['-raw', file, '-'], { encoding: 'utf8' });
}

async function signedDocument(workflow?: Record<string, unknown>) {
  const doc = await s.client.createDocument({
    b64_doc: (await makePdf([A4])).toString('base64'),
    name: 'Contrato de arrendamiento',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
    ],
    ...(workflow ? { workflow } : {}),
  });
  await openAndSign(s.baseUrl, doc.stickers[0].signer_url);
  return doc.document_ticket;
}

describe('the history as PDF', () => {
  it("lists every entry with the chain's verdict and head hash, sealed by the service: pdfsig says valid and trusted", async () => {
    const ticket = await signedDocument();
    const history = await s.client.documentHistory(ticket);
    const pdf = await s.client.historyPdf(ticket);

    const sig = await pdfsig(pdf, rootPem);
    expect(sig.signatures).toHaveLength(1);
    expect(sig.signatures[0]).toMatchObject({ valid: true, trusted: true, totalDocumentSigned: true, type: 'ETSI.CAdES.detached' });
    expect(sig.signatures[0].commonName).toBe('Sello — historial de documentos');
    expect((await qpdfCheckAsync(pdf)).ok).toBe(true);

    const shown = text(pdf);
    expect(shown).toContain('Historial del documento');
    expect(shown).toContain('Contrato de arrendamiento');
    expect(shown).toContain(ticket);
    for (const e of history.entries) {
      expect(shown).toMatch(new RegExp(`^${e.seq} `, 'm'));
    }
    expect(shown).toContain('Creado');
    expect(shown).toContain('Visto');
    expect(shown).toContain('Firmado');
    expect(shown).toContain('Completado');
    expect(shown).toContain(`Cadena de hashes verificada: las ${history.entries.length} entradas están como se escribieron.`);
    // The head hash may wrap at the page edge: compare without whitespace.
    expect(shown.replace(/\s+/g, '')).toContain(history.entries.at(-1)!.hash);
  });

  it("speaks the workflow's language, and says when the chain is broken", async () => {
    const ticket = await signedDocument({ language: 'en' });
    await sql`update document_history set details = '{"tampered": true}' where seq = 1
              and document_id = (select id from documents where ticket = ${ticket})`.execute(s.deps.db);
    const shown = text(await s.client.historyPdf(ticket));
    expect(shown).toContain('Document history');
    expect(shown).toContain('Signed');
    expect(shown).toMatch(/Hash chain broken from entry 1: the history was altered\./);
  });

  it("speaks the reader's language when asked (`lang`), and names signers, never by their id", async () => {
    const ticket = await signedDocument();
    const [signer] = (await s.client.documentHistory(ticket)).entries.filter((e) => e.actor.startsWith('signer:'));
    const shown = text(await s.client.historyPdf(ticket, 'en'));
    expect(shown).toContain('Document history');
    expect(shown).toContain('Signed');
    expect(shown).not.toContain('Historial del documento');
    // A table cell wraps: compare with the line breaks as spaces.
    expect(shown.replace(/\s+/g, ' ')).toContain('Signed Ana García · ana@example.com');
    expect(shown).not.toContain(`Signer ${signer.actor.slice('signer:'.length)}`);
    // Asked in the document's own language, the same words as without asking.
    expect(text(await s.client.historyPdf(ticket, 'es'))).toContain('Historial del documento');
  });

  it("an entry's signer_id is followed by that signer's name and address", async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Oferta',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
      ],
    });
    // Someone holding the document's link asks for Ana's: an entry of the public about her.
    const res = await fetch(`${s.baseUrl}/sign/api/document/${doc.document_ticket}/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sticker_id: doc.stickers[0].sticker_id, data: 'ana@example.com' }),
    });
    expect(res.status).toBe(200);
    // Table cells wrap and long values carry zero-width spaces: compare without any space.
    const flat = text(await s.client.historyPdf(doc.document_ticket, 'en')).replace(/[\s\u200b]+/g, '');
    expect(flat).toContain(`signer_id:${doc.stickers[0].signer_id}(AnaGarcía·ana@example.com)`);
    expect(flat).toContain('Someonewiththedocumentlink');
  });

  it('a `lang` other than es or en: 400 naming lang', async () => {
    const ticket = await signedDocument();
    const err = await apiError(s.client.historyPdf(ticket, 'fr' as 'en'));
    expect([err.status, err.code]).toEqual([400, 'INVALID_INPUT']);
    expect(err.message).toMatch(/^querystring\.lang: /);
    expect((err.details as { field: string }).field).toBe('querystring.lang');
  });

  it("another account's document, or none: 404", async () => {
    const ticket = await signedDocument();
    const other = await s.newAccount('otra');
    const err = await apiError(other.client.historyPdf(ticket));
    expect([err.status, err.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
  });
});
