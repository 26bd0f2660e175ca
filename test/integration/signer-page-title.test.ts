// The signer page as the service sends it, before its script runs: its <title> names what the link
// opens and who asks, as the page's header does (the account's brand name, else Sello's unless the
// account hides it, then the account's name); a link nobody has gets the bare "Sello". The names
// are the client's text: escaped, they stay text.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelloClient } from '../../src/client/index.js';
import { makePdf, A4 } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let pdf: string;
beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
  s = await startTestServer();
  pdf = (await makePdf([A4])).toString('base64');
}, 180_000);
afterAll(() => s?.close());

const box = { page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } };

async function served(url: string): Promise<{ status: number; title: string | undefined; html: string }> {
  const res = await fetch(url);
  const html = await res.text();
  return { status: res.status, title: /<title>([^<]*)<\/title>/.exec(html)?.[1], html };
}

const oneDocument = (client: SelloClient, name: string) =>
  client.createDocument({ b64_doc: pdf, name, stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', ...box }] });

describe("the signer page's title", () => {
  it("names the document and Sello; the document's name stays text", async () => {
    const doc = await oneDocument(s.client, 'Contrato </title><script>alert(1)</script> & "anexo"');
    const page = await served(doc.stickers[0].signer_url);
    expect(page.status).toBe(200);
    // Stored as a file name ("/" becomes "_", ".pdf" added), as the page's header shows it.
    expect(page.title).toBe('Contrato &lt;_title&gt;&lt;script&gt;alert(1)&lt;_script&gt; &amp; &quot;anexo&quot;.pdf · Sello');
    expect(page.html).not.toContain('<script>alert(1)');
    // The public document page (document_url) by its ticket, the same.
    expect((await served(`${s.baseUrl}/document/${doc.document_ticket}`)).title).toBe(page.title);
  });

  it("of an account that hides Sello's name: its brand name, else its own name; Sello nowhere", async () => {
    const { client } = await s.newAccount('Notaría 12');
    await client.updateBrand({ hide_sello: true });
    const doc = await oneDocument(client, 'Poder notarial');
    const page = await served(doc.stickers[0].signer_url);
    expect(page.title).toBe('Poder notarial.pdf · Notaría 12');
    expect(page.html).not.toMatch(/sello/i);
    await client.updateBrand({ brand_name: 'Notaría Doce' });
    expect((await served(doc.stickers[0].signer_url)).title).toBe('Poder notarial.pdf · Notaría Doce');
  });

  it("of a set's link names the set; an unknown link gets the bare page's", async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta de cliente' });
    await s.client.createDocument({
      b64_doc: pdf,
      name: 'Uno',
      document_set: set.uuid,
      stickers: [{ authority: 'EMAIL_LINK', data: 'eva@example.com', ...box }],
    });
    const closed = await s.client.closeDocumentSet(set.uuid, {});
    expect((await served(closed.signers[0].signer_url)).title).toBe('Alta de cliente · Sello');
    const unknown = await served(`${s.baseUrl}/sign/${'x'.repeat(43)}`);
    expect([unknown.status, unknown.title]).toEqual([200, 'Sello']);
    expect((await served(`${s.baseUrl}/sign/set/short`)).title).toBe('Sello');
  });
});
