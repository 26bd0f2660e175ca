// Scenario E of `npm run bench`: documents generated from templates, per type (html through
// Chromium, pdf forms, pdfmake in worker threads, docx through LibreOffice). For each type: the
// latency of one-page generations one at a time (p50/p99), then the throughput with 8 requests in
// flight. Prints figures; asserts nothing.
import { createHmac } from 'node:crypto';
import { SelloClient } from '../src/client/index.js';
import { buildAllFieldsDocx, ALL_FIELD_IDS } from '../test/helpers/docx.js';
import { makeFormPdf } from '../test/helpers/pdf-forms.js';
import { percentile, runLoad } from './load.js';

interface Target {
  baseUrl: string;
  webId: string;
  apiKey: string;
}

const HTML = `<!doctype html><html><body style="font-family:sans-serif">
<h1>Contrato de servicios</h1>
<p>Cliente: <span class="svc-template-field" id="client"></span>, fecha <span class="svc-template-field" id="date"></span>.</p>
<table class="svc-template-table" id="items"><tbody><tr><td class="svc-template-field" id="item"></td><td class="svc-template-field" id="qty"></td></tr></tbody></table>
</body></html>`;

const PDFMAKE = {
  content: [
    { text: 'Recibo para {{name}}', fontSize: 18 },
    { text: 'Total: {{total}}' },
    {
      table: {
        body: [
          ['Concepto', 'Importe'],
          ['{{item}}', '{{total}}'],
        ],
      },
    },
  ],
};

interface TypeCase {
  type: 'html' | 'pdf' | 'pdfmake' | 'docx';
  save: () => Promise<Record<string, unknown>>;
  fields: (i: number) => { id: string; value: string }[];
  tables?: (i: number) => unknown[];
  /** Sequential samples and concurrent requests: LibreOffice takes seconds, so fewer for docx. */
  samples: number;
  concurrent: number;
}

const CASES: TypeCase[] = [
  {
    type: 'html',
    save: async () => ({ template_data: Buffer.from(HTML).toString('base64') }),
    fields: (i) => [
      { id: 'client', value: `Cliente ${i}` },
      { id: 'date', value: '22/11/2026' },
    ],
    tables: (i) => [{ id: 'items', rows: [{ item: 'Servicio', qty: String(i) }] }],
    samples: 30,
    concurrent: 48,
  },
  {
    type: 'pdf',
    save: async () => ({ template_data: (await makeFormPdf()).toString('base64') }),
    fields: (i) => [
      { id: 'person.name', value: `Persona ${i}` },
      { id: 'city', value: 'Monterrey' },
      { id: 'plan', value: 'pro' },
    ],
    samples: 30,
    concurrent: 80,
  },
  {
    type: 'pdfmake',
    save: async () => ({ template_data: PDFMAKE }),
    fields: (i) => [
      { id: 'name', value: `Cliente ${i}` },
      { id: 'total', value: '$1,250.00' },
      { id: 'item', value: 'Servicio' },
    ],
    samples: 30,
    concurrent: 80,
  },
  {
    type: 'docx',
    save: async () => ({ template_data: (await buildAllFieldsDocx()).toString('base64') }),
    fields: (i) => ALL_FIELD_IDS.map((id) => ({ id, value: `${id} ${i}` })),
    samples: 8,
    concurrent: 16,
  },
];

export async function scenarioTemplates(s: Target): Promise<void> {
  console.log('E  documents generated from templates, one page each');
  const client = new SelloClient({ baseUrl: s.baseUrl, webId: s.webId, apiKey: s.apiKey });
  for (const c of CASES) {
    const name = `bench-${c.type}`;
    await client.request('POST', '/developers/template/save', { template_type: c.type, template_name: name, ...(await c.save()) });
    const body = (i: number) =>
      JSON.stringify({ template: { title: name, name: `doc-${i}` }, fields: c.fields(i), ...(c.tables ? { tables: c.tables(i) } : {}) });
    // One warm-up (browser launch, worker start, first LibreOffice profile), then one at a time.
    await client.raw('POST', '/developers/json', body(0));
    const one: number[] = [];
    for (let i = 1; i <= c.samples; i++) {
      const t = performance.now();
      const r = await client.raw('POST', '/developers/json', body(i));
      if (r.status !== 200) {
        throw new Error(`${c.type}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
      }
      one.push(performance.now() - t);
    }
    one.sort((a, b) => a - b);
    const load = await runLoad({
      baseUrl: s.baseUrl,
      concurrency: 8,
      maxRequests: c.concurrent,
      durationMs: 120_000,
      build: (i) => {
        const b = Buffer.from(body(10_000 + i));
        const sig = createHmac('sha256', Buffer.from(s.apiKey, 'utf8')).update(b).digest('base64');
        return {
          method: 'POST',
          path: '/developers/json',
          headers: { 'content-type': 'application/json', authorization: `svc ${s.webId}:${sig}` },
          body: b,
        };
      },
    });
    const errors = [...load.errors.values()].reduce((a, b) => a + b, 0);
    console.log(
      `   ${c.type.padEnd(8)} one at a time (n=${c.samples}): p50 ${percentile(one, 50).toFixed(0)} ms, p99 ${percentile(one, 99).toFixed(0)} ms` +
        ` | c=8 (n=${load.requests}): ${(load.requests / load.seconds).toFixed(2)} documents/s, p50 ${percentile(load.latencies, 50).toFixed(0)} ms,` +
        ` p99 ${percentile(load.latencies, 99).toFixed(0)} ms, errors ${errors}${load.firstError ? ` (${load.firstError})` : ''}`,
    );
  }
  console.log('');
}
