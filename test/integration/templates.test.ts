// Templates through the API: save → fields → generate → the text of the generated PDF, per type;
// replacement by name, account scoping, the raw-PDF upload, and an html template's network.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelloClient } from '../../src/client/index.js';
import { ALL_FIELD_IDS, buildAllFieldsDocx } from '../helpers/docx.js';
import { COUNTRY_OPTIONS, makeFormPdf } from '../helpers/pdf-forms.js';
import { apiError } from '../helpers/api-error.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let probe: Server;
let probePort = 0;
let probeHits = 0;

beforeAll(async () => {
  probe = createServer((_req, res) => {
    probeHits++;
    res.end('x');
  });
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  probePort = (probe.address() as { port: number }).port;
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
  probe?.close();
});

function pdfText(bytes: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'sello-text-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), bytes);
    return execFileSync('pdftotext', ['-layout', join(dir, 'f.pdf'), '-'], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Saved = {
  template_title: string;
  fields: { id: string; value: string; type?: string; options?: string[] }[];
  tables: { id: string; rows: { id: string }[][] }[];
};

async function generate(client: SelloClient, title: string, fields: Record<string, string>, extra: Record<string, unknown> = {}) {
  const created = await client.createDocument({
    template: { title, name: `${title} generated` },
    fields: Object.entries(fields).map(([id, value]) => ({ id, value })),
    stickers: [{ authority: 'EMAIL_LINK', data: 'signer@example.com', page: 0, rect: { lx: 40, ly: 40, tx: 200, ty: 90 } }],
    ...extra,
  });
  const file = await client.downloadDocument('source', created.document_ticket);
  return { created, file, text: pdfText(file.bytes) };
}

const HTML = `<!doctype html><html><head><style>body{font-family:sans-serif}</style></head><body>
<h1>Contrato</h1>
<p>Cliente: <span class="svc-template-field" id="client">CLIENT_PLACEHOLDER</span></p>
<p>Fecha: <span class="svc-template-field" id="date">DATE_PLACEHOLDER</span></p>
<table class="svc-template-table" id="items"><thead><tr><th>Item</th><th>Qty</th></tr></thead>
<tbody><tr><td class="svc-template-field" id="item">ITEM_PLACEHOLDER</td><td class="svc-template-field" id="qty">QTY_PLACEHOLDER</td></tr></tbody></table>
</body></html>`;

describe('html', () => {
  it('round-trips: save, fields, generate with a table; values as text, no placeholder left', async () => {
    // Through the client's typed methods, as an integrator calls them.
    const saved = await s.client.saveTemplate({
      template_type: 'html',
      template_name: 'contrato',
      template_data: Buffer.from(HTML).toString('base64'),
    });
    expect(saved.template_title).toBe('contrato');
    expect(saved.fields).toEqual([
      { id: 'client', value: '' },
      { id: 'date', value: '' },
    ]);
    expect(saved.tables).toEqual([
      {
        id: 'items',
        rows: [
          [
            { id: 'item', value: '' },
            { id: 'qty', value: '' },
          ],
        ],
      },
    ]);
    const fields = await s.client.templateFields('contrato');
    expect(fields.fields.map((f) => f.id)).toEqual(['client', 'date']);
    expect(fields.template_type).toBe('html');
    expect((await s.client.listTemplates()).templates.find((t) => t.template_title === 'contrato')).toMatchObject({
      template_type: 'html',
      fields: 2,
      tables: 1,
    });

    const { created, file, text } = await generate(
      s.client,
      'contrato',
      { client: 'Ana <b>Pérez</b>', date: '22/11/2026' },
      {
        tables: [
          {
            id: 'items',
            rows: [
              { item: 'Widget', qty: '3' },
              [
                { id: 'item', value: 'Gadget' },
                { id: 'qty', value: '7' },
              ],
            ],
          },
        ],
      },
    );
    expect(created.warnings).toEqual([]);
    expect(file.name).toBe('contrato generated.pdf');
    for (const v of ['Ana <b>Pérez</b>', '22/11/2026', 'Widget', 'Gadget', '7']) {
      expect(text).toContain(v);
    }
    expect(text).not.toMatch(/PLACEHOLDER/);
  });

  it('refuses duplicate ids, naming them', async () => {
    const bad = '<p><span class="svc-template-field" id="a"></span><span class="svc-template-field" id="a"></span></p>';
    const e = await apiError(
      s.client.request('POST', '/developers/template/save', {
        template_type: 'html',
        template_name: 'dup',
        template_data: Buffer.from(bad).toString('base64'),
      }),
    );
    expect(e.status).toBe(400);
    expect(e.code).toBe('TEMPLATE_INVALID');
    expect(e.message).toMatch(/\ba\b/);
  });

  it('renders without making any network request, even to loopback', async () => {
    const tracking = `<html><head><link rel="stylesheet" href="http://127.0.0.1:${probePort}/style.css"></head><body>
      <img src="http://127.0.0.1:${probePort}/pixel.png"><iframe src="http://127.0.0.1:${probePort}/frame"></iframe>
      <p>Hola <span class="svc-template-field" id="name"></span></p></body></html>`;
    await s.client.request('POST', '/developers/template/save', {
      template_type: 'html',
      template_name: 'tracker',
      template_data: Buffer.from(tracking).toString('base64'),
    });
    const before = probeHits;
    const { text } = await generate(s.client, 'tracker', { name: 'Mundo' });
    expect(text).toContain('Hola Mundo');
    expect(probeHits).toBe(before);
  });
});

describe('pdf forms', () => {
  it('round-trips with types and allowed values, fills and flattens', async () => {
    const form = await makeFormPdf();
    const saved = await s.client.request<Saved>('POST', '/developers/template/save', {
      template_type: 'pdf',
      template_name: 'alta',
      template_data: form.toString('base64'),
    });
    expect(saved.fields.find((f) => f.id === 'country')).toMatchObject({ type: 'choice', options: COUNTRY_OPTIONS });
    const { text, file } = await generate(s.client, 'alta', {
      'person.name': 'Luisa Fernández',
      city: 'Monterrey',
      agree: 'true',
      plan: 'pro',
      country: 'Spain',
      color: 'green',
    });
    expect(text).toContain('Luisa Fernández');
    expect(text).toContain('Monterrey');
    // Flattened: the generated document carries no form fields a signer could still edit.
    expect(file.bytes.includes(Buffer.from('/AcroForm'))).toBe(false);
  });

  it('refuses a value outside the allowed ones, naming the field, and stores nothing', async () => {
    const before = (await s.client.listDocuments()).documents.length;
    const e = await apiError(generate(s.client, 'alta', { country: 'Atlantis' }));
    expect(e.status).toBe(400);
    expect(e.code).toBe('INVALID_FIELD_VALUE');
    expect(e.message).toMatch(/country/);
    expect((await s.client.listDocuments()).documents.length).toBe(before);
  });

  it('fetches url_doc through the address guard: a loopback URL is refused and nothing is fetched', async () => {
    const before = probeHits;
    const e = await apiError(
      s.client.request('POST', '/developers/template/save', {
        template_type: 'pdf',
        template_name: 'remote',
        url_doc: `http://127.0.0.1:${probePort}/form.pdf`,
      }),
    );
    expect([e.status, e.code]).toEqual([400, 'URL_NOT_ALLOWED']);
    expect(probeHits).toBe(before);
  });

  it('saves from raw bytes (multipart, signed through Content-SHA256), and refuses a wrong hash', async () => {
    const form = await makeFormPdf();
    const r = await s.client.rawUpload('/developers/template/pdf?name=from-bytes', form);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).template_title).toBe('from-bytes');
    // The client's method, with a name that needs escaping in the query.
    expect((await s.client.saveTemplatePdf('de bytes & más', form)).template_title).toBe('de bytes & más');

    const wrong = createHash('sha256').update('other').digest('base64');
    const res = await fetch(`${s.baseUrl}/developers/template/pdf?name=sneaky`, {
      method: 'POST',
      headers: { authorization: s.client.authorization(wrong), 'content-sha256': wrong },
      body: (() => {
        const f = new FormData();
        f.append('file', new Blob([new Uint8Array(form)]), 'f.pdf');
        return f;
      })(),
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('');
    expect((await apiError(s.client.request('GET', '/developers/template/sneaky/fields'))).status).toBe(404);
  });
});

describe('pdfmake', () => {
  it('round-trips placeholders anywhere in the definition', async () => {
    const definition = {
      content: [{ text: 'Recibo para {{name}}', fontSize: 16 }, { table: { body: [['Total', '{{ total }}']] } }],
      footer: { text: 'Ref {{ref}}' },
    };
    const saved = await s.client.request<Saved>('POST', '/developers/template/save', {
      template_type: 'pdfmake',
      template_name: 'recibo',
      template_data: definition,
    });
    expect(saved.fields.map((f) => f.id)).toEqual(['name', 'total', 'ref']);
    const { text, created } = await generate(s.client, 'recibo', { name: 'Carlos {{ref}}', total: '$1,250.00', extra: 'x' });
    expect(text).toContain('Recibo para Carlos {{ref}}');
    expect(text).toContain('$1,250.00');
    expect(created.warnings).toEqual([
      'fields.ref: declared by the template but not sent; left empty',
      'fields.extra: not a field of template "recibo"; ignored',
    ]);
  });
  it('refuses Base64 in place of the JSON definition', async () => {
    const e = await apiError(
      s.client.request('POST', '/developers/template/save', {
        template_type: 'pdfmake',
        template_name: 'x',
        template_data: 'eyJjb250ZW50IjpbXX0=',
      }),
    );
    expect(e.message).toMatch(/^template_data: for pdfmake/);
  });
});

describe('docx', () => {
  it('round-trips merge fields (simple, complex, split over runs) and content controls', async () => {
    const docx = await buildAllFieldsDocx();
    const saved = await s.client.request<Saved>('POST', '/developers/template/save', {
      template_type: 'docx',
      template_name: 'acuerdo',
      template_data: docx.toString('base64'),
    });
    expect(saved.fields.map((f) => f.id)).toEqual(ALL_FIELD_IDS);
    const values = Object.fromEntries(ALL_FIELD_IDS.map((id, i) => [id, `VALUE${i}-${id.replace(/\s/g, '')}`]));
    const { text } = await generate(s.client, 'acuerdo', values);
    for (const v of Object.values(values)) {
      expect(text).toContain(v);
    }
    expect(text).not.toMatch(/MERGEFIELD|«|»/);
  });
});

describe('names and accounts', () => {
  it('replaces a template saved again under the same name', async () => {
    const v1 = '<p><span class="svc-template-field" id="one"></span></p>';
    const v2 = '<p><span class="svc-template-field" id="two"></span></p>';
    for (const html of [v1, v2]) {
      await s.client.request('POST', '/developers/template/save', {
        template_type: 'html',
        template_name: 'same',
        template_data: Buffer.from(html).toString('base64'),
      });
    }
    const fields = await s.client.request<Saved>('GET', '/developers/template/same/fields');
    expect(fields.fields.map((f) => f.id)).toEqual(['two']);
    const list = await s.client.request<{ templates: { template_title: string }[] }>('GET', '/developers/templates');
    expect(list.templates.filter((t) => t.template_title === 'same')).toHaveLength(1);
  });

  it("scopes templates to the account: another account's template is not found", async () => {
    const other = await s.newAccount();
    expect((await other.client.request<{ templates: unknown[] }>('GET', '/developers/templates')).templates).toEqual([]);
    expect((await apiError(other.client.request('GET', '/developers/template/contrato/fields'))).status).toBe(404);
    const e = await apiError(other.client.createDocument({ template: { title: 'contrato' } }));
    expect(e.status).toBe(404);
    expect(e.code).toBe('TEMPLATE_NOT_FOUND');
  });

  it('refuses an unknown template type, naming the field', async () => {
    const e = await apiError(
      s.client.request('POST', '/developers/template/save', { template_type: 'odt', template_name: 'x', template_data: 'AAAA' }),
    );
    expect(e.message).toMatch(/^template_type:/);
  });
});

describe('renderer pool under load', () => {
  it('finishes 20 concurrent html generations', async () => {
    await s.client.request('POST', '/developers/template/save', {
      template_type: 'html',
      template_name: 'contrato',
      template_data: Buffer.from(HTML).toString('base64'),
    });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        generate(s.client, 'contrato', { client: `Cliente ${i}`, date: 'hoy' }, { tables: [{ id: 'items', rows: [] }] }),
      ),
    );
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed.map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    results.forEach((r, i) => {
      expect((r as PromiseFulfilledResult<{ text: string }>).value.text).toContain(`Cliente ${i}`);
    });
  });

  it('stops a render that takes too long: 503 RENDER_TIMEOUT, and the next one works', async () => {
    const slow = await startTestServer({ env: { SELLO_RENDER_TIMEOUT_MS: '2000', SELLO_RENDER_PAGES: '1' } });
    try {
      const rows = '<tr><td class="svc-template-field" id="c">x</td></tr>';
      const html = `<table class="svc-template-table" id="t"><tbody>${rows}</tbody></table><p class="svc-template-field" id="n"></p>`;
      await slow.client.request('POST', '/developers/template/save', {
        template_type: 'html',
        template_name: 'huge',
        template_data: Buffer.from(html).toString('base64'),
      });
      // Thousands of pages of layout: far more than 2 s of printing on any machine.
      const many = Array.from({ length: 9999 }, (_, i) => ({ c: `row ${i} `.padEnd(600, 'lorem ipsum ') }));
      const e = await apiError(slow.client.createDocument({ template: { title: 'huge' }, tables: [{ id: 't', rows: many }] }));
      expect([e.status, e.code, e.message]).toEqual([503, 'RENDER_TIMEOUT', expect.any(String)]);
      const ok = await slow.client.createDocument({
        template: { title: 'huge' },
        fields: [{ id: 'n', value: 'small' }],
        tables: [{ id: 't', rows: [{ c: 'one' }] }],
      });
      expect(ok.document_ticket).toBeTruthy();
    } finally {
      await slow.close();
    }
  });
});
