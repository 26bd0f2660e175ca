// The html template engine: detection and filling (pure), and rendering with the real Chromium,
// checked with poppler (pdftotext, pdfinfo, pdfimages) and a loopback server that must never be
// reached by a template.
import { describe, it, expect, beforeAll, beforeEach, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { parse } from 'node-html-parser';
import { detectHtmlTemplate, fillHtmlTemplate } from '../../src/render/html-template.js';
import { HtmlRenderer } from '../../src/render/html-renderer.js';
import { TemplateError, type FillValues } from '../../src/render/types.js';

const CHROMIUM = '/usr/bin/chromium';

function values(fields: Record<string, string>, tables: Record<string, Record<string, string>[]> = {}): FillValues {
  return { fields: new Map(Object.entries(fields)), tables: new Map(Object.entries(tables)) };
}

function templateError(fn: () => unknown): TemplateError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TemplateError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected a TemplateError');
}

const INVOICE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Invoice</title>
<style>body { font-family: sans-serif; } td, th { border: 1px solid #999; padding: 4px; }</style></head>
<body>
  <h1>Invoice <span class="svc-template-field" id="number">[NUMBER]</span></h1>
  <p>Customer: <span class="big svc-template-field" id="customer">[CUSTOMER]</span></p>
  <p class="svc-template-field">no id, not a field</p>
  <table class="svc-template-table" id="items">
    <thead><tr><th>Item</th><th>Qty</th><th class="svc-template-field" id="currency">[CUR]</th></tr></thead>
    <tbody>
      <tr><td class="svc-template-field" id="item">[ITEM]</td><td class="svc-template-field" id="qty">[QTY]</td><td class="svc-template-field" id="price">[PRICE]</td></tr>
    </tbody>
  </table>
  <p>Notes: <em class="svc-template-field" id="notes">[NOTES]</em></p>
</body></html>`;

describe('detectHtmlTemplate', () => {
  it('lists fields in document order and ignores fields without an id', () => {
    const detected = detectHtmlTemplate(INVOICE);
    expect(detected.fields).toEqual([
      { id: 'number', value: '' },
      { id: 'customer', value: '' },
      { id: 'currency', value: '' },
      { id: 'notes', value: '' },
    ]);
  });

  it('reports a table with its row template columns, which are not top-level fields', () => {
    const detected = detectHtmlTemplate(INVOICE);
    expect(detected.tables).toEqual([
      {
        id: 'items',
        rows: [
          [
            { id: 'item', value: '' },
            { id: 'qty', value: '' },
            { id: 'price', value: '' },
          ],
        ],
      },
    ]);
    expect(detected.fields.map((f) => f.id)).not.toContain('item');
  });

  it('without a tbody, takes the first row holding a field as the row template', () => {
    const detected = detectHtmlTemplate(`<table class="svc-template-table" id="t">
      <tr><th>Header</th></tr><tr><td class="svc-template-field" id="a"></td></tr></table>`);
    expect(detected.tables).toEqual([{ id: 't', rows: [[{ id: 'a', value: '' }]] }]);
    expect(detected.fields).toEqual([]);
  });

  it('finds the rows when the table class is on a wrapper around the <table>', () => {
    const detected = detectHtmlTemplate(`<div class="svc-template-table" id="t"><table><tbody>
      <tr><td class="svc-template-field" id="a"></td></tr></tbody></table></div>`);
    expect(detected.tables).toEqual([{ id: 't', rows: [[{ id: 'a', value: '' }]] }]);
  });

  it("rejects duplicate ids among fields, tables and one table's columns, naming them", () => {
    const error = templateError(() =>
      detectHtmlTemplate(`<p class="svc-template-field" id="a"></p><p class="svc-template-field" id="a"></p>
        <table class="svc-template-table" id="b"><tbody><tr>
          <td class="svc-template-field" id="c"></td><td class="svc-template-field" id="c"></td></tr></tbody></table>
        <span class="svc-template-field" id="b"></span>`),
    );
    expect(error.problem).toBe('INVALID_TEMPLATE');
    expect(error.message).toBe('duplicate id(s): a, b, c');
    expect(error.details).toEqual({ duplicates: ['a', 'b', 'c'] });
  });

  it('allows a column id equal to a top-level field id (separate namespaces)', () => {
    const detected = detectHtmlTemplate(`<span class="svc-template-field" id="name"></span>
      <table class="svc-template-table" id="t"><tbody><tr><td class="svc-template-field" id="name"></td></tr></tbody></table>`);
    expect(detected.fields).toEqual([{ id: 'name', value: '' }]);
    expect(detected.tables[0].rows[0]).toEqual([{ id: 'name', value: '' }]);
  });

  it('rejects a table without a row template, naming it', () => {
    const error = templateError(() => detectHtmlTemplate('<table class="svc-template-table" id="lines"><tr><td>static</td></tr></table>'));
    expect(error.problem).toBe('INVALID_TEMPLATE');
    expect(error.message).toContain('"lines"');
    expect(templateError(() => detectHtmlTemplate('<table class="svc-template-table" id="e"><tbody></tbody></table>')).message).toContain(
      '"e"',
    );
  });

  it('rejects fields that cannot show text or that hide other template elements', () => {
    expect(templateError(() => detectHtmlTemplate('<img class="svc-template-field" id="logo">')).problem).toBe('INVALID_TEMPLATE');
    expect(templateError(() => detectHtmlTemplate('<style class="svc-template-field" id="css"></style>')).problem).toBe('INVALID_TEMPLATE');
    const nested = templateError(() =>
      detectHtmlTemplate('<div class="svc-template-field" id="outer"><span class="svc-template-field" id="inner"></span></div>'),
    );
    expect(nested.message).toContain('"inner"');
  });
});

describe('fillHtmlTemplate', () => {
  const fieldText = (html: string, id: string) => parse(html).querySelector(`#${id}`)!.text;

  it('inserts values as text, never as markup', () => {
    const hostile = '<script>x</script><b>bold</b> & &amp;';
    const out = fillHtmlTemplate(INVOICE, values({ customer: hostile }));
    expect(out).toContain('&lt;script&gt;x&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt; &amp; &amp;amp;');
    const customer = parse(out).querySelector('#customer')!;
    expect(customer.text).toBe(hostile);
    expect(customer.querySelector('b')).toBeNull();
    expect(customer.querySelector('script')).toBeNull();
  });

  it('empties missing fields, ignores unknown ones and keeps the rest of the document', () => {
    const out = fillHtmlTemplate(INVOICE, values({ number: 'F-1', nope: 'x' }));
    expect(fieldText(out, 'number')).toBe('F-1');
    expect(fieldText(out, 'customer')).toBe('');
    expect(out).not.toContain('[CUSTOMER]');
    expect(out).not.toContain('[NOTES]');
    expect(out.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(out).toContain('td, th { border: 1px solid #999; padding: 4px; }');
  });

  it('puts values in <input value> escaped', () => {
    const out = fillHtmlTemplate('<input class="svc-template-field" id="v" value="old">', values({ v: 'a"b&amp;<c>' }));
    expect(parse(out).querySelector('input')!.getAttribute('value')).toBe('a"b&amp;<c>');
  });

  it('repeats the row template once per row, columns as text', () => {
    const rows: Record<string, string>[] = [
      { item: 'Apples', qty: '3', price: '1.20' },
      { item: '<i>Pears</i>', qty: '1' },
      { item: 'Plums', qty: '12', price: '0.40', unknown: 'x' },
    ];
    const out = fillHtmlTemplate(INVOICE, values({ currency: 'EUR' }, { items: rows }));
    const body = parse(out).querySelector('tbody')!;
    const trs = body.querySelectorAll('tr');
    expect(trs.map((tr) => tr.querySelectorAll('td').map((td) => td.text))).toEqual([
      ['Apples', '3', '1.20'],
      ['<i>Pears</i>', '1', ''],
      ['Plums', '12', '0.40'],
    ]);
    expect(body.querySelector('i')).toBeNull();
    expect(fieldText(out, 'currency')).toBe('EUR');
    expect(out).not.toContain('[ITEM]');
    expect(parse(out).querySelectorAll('thead tr')).toHaveLength(1);
  });

  it('removes the row template for an empty or missing row list', () => {
    const cases: Record<string, Record<string, string>[]>[] = [{ items: [] }, {}];
    for (const tables of cases) {
      const out = fillHtmlTemplate(INVOICE, values({}, tables));
      expect(parse(out).querySelectorAll('tbody tr')).toHaveLength(0);
      expect(out).not.toContain('[ITEM]');
      expect(parse(out).querySelectorAll('thead tr')).toHaveLength(1);
    }
  });

  it('rejects an invalid template', () => {
    expect(
      templateError(() =>
        fillHtmlTemplate('<b class="svc-template-field" id="x"></b><i class="svc-template-field" id="x"></i>', values({})),
      ).problem,
    ).toBe('INVALID_TEMPLATE');
  });
});

// An opaque red PNG, built here so the test needs no fixture file.
function redPng(width = 16, height = 16): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, Buffer.from([255, 0, 0]))]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('HtmlRenderer (real Chromium)', () => {
  let renderer: HtmlRenderer;
  let dir: string;
  let fileNo = 0;

  // Every test below fails (none is skipped) when the browser is missing, each saying why.
  beforeEach(() => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not installed at ${CHROMIUM}: install the Debian package chromium (apt-get install chromium); these tests render with the real browser and are not skipped`,
      );
    }
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sello-render-html-'));
    renderer = new HtmlRenderer({ executablePath: CHROMIUM });
  });

  afterAll(async () => {
    await renderer?.close();
    if (dir) {
      await rm(dir, { recursive: true, force: true });
    }
  });

  async function save(pdf: Buffer): Promise<string> {
    const file = join(dir, `out-${++fileNo}.pdf`);
    await writeFile(file, pdf);
    return file;
  }
  const pdftotext = async (pdf: Buffer) => execFileSync('pdftotext', [await save(pdf), '-'], { encoding: 'utf8' });
  const pdfinfo = async (pdf: Buffer) => execFileSync('pdfinfo', [await save(pdf)], { encoding: 'utf8' });

  it('renders a filled template: every value shown, no placeholder left, scripts not run', async () => {
    const template = INVOICE.replace(
      '</body>',
      `<p id="js">SCRIPTS OFF</p><script>document.getElementById('js').textContent = 'SCRIPTS RAN'</script></body>`,
    );
    const html = fillHtmlTemplate(
      template,
      values(
        { number: 'F-2024-0042', customer: '<script>x</script><b>bold</b>', currency: 'EUR', notes: 'Payable in 30 days' },
        {
          items: [
            { item: 'Apples', qty: '3', price: '1.20' },
            { item: 'Pears', qty: '7', price: '2.50' },
            { item: 'Plums', qty: '12', price: '0.40' },
          ],
        },
      ),
    );
    const pdf = await renderer.render(html);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = await pdftotext(pdf);
    for (const shown of [
      'F-2024-0042',
      '<script>x</script><b>bold</b>',
      'EUR',
      'Payable in 30 days',
      'Apples',
      'Pears',
      'Plums',
      '1.20',
      '2.50',
      '0.40',
      'SCRIPTS OFF',
    ]) {
      expect(text).toContain(shown);
    }
    for (const placeholder of ['[NUMBER]', '[CUSTOMER]', '[CUR]', '[ITEM]', '[QTY]', '[PRICE]', '[NOTES]', 'SCRIPTS RAN']) {
      expect(text).not.toContain(placeholder);
    }
    expect(text.match(/Apples|Pears|Plums/g)).toHaveLength(3);
    expect(await pdfinfo(pdf)).toMatch(/Page size:\s+[\d.]+ x [\d.]+ pts \(A4\)/);
  });

  it('lets no request out: the loopback server sees no request and no connection, no file is read', async () => {
    // A local image of an unusual size: if it ever reached the PDF, pdfimages would list it.
    const localImage = join(dir, 'local.png');
    await writeFile(localImage, redPng(37, 23));
    const requests: string[] = [];
    let connections = 0;
    const server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end('body { background: red }');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const html = `<!DOCTYPE html><html><head>
        <meta http-equiv="refresh" content="0; url=${base}/refresh">
        <link rel="stylesheet" href="${base}/link.css">
        <link rel="prefetch" href="${base}/prefetch"><link rel="preload" as="image" href="${base}/preload.png">
        <link rel="preconnect" href="${base}/"><link rel="dns-prefetch" href="${base}/">
        <link rel="icon" href="${base}/favicon.ico"><link rel="manifest" href="${base}/manifest.json">
        <style>
          @import url("${base}/import.css");
          @font-face { font-family: Remote; src: url("${base}/font.woff2"); }
          body { background: url("${base}/background.png"); }
          h1 { font-family: Remote; }
          li { list-style-image: url("${base}/bullet.png"); }
        </style></head>
        <body background="${base}/body-background.png">
        <h1>NETWORK TEMPLATE</h1><ul><li>item</li></ul>
        <img src="${base}/track.png"><img srcset="${base}/srcset.png 2x">
        <picture><source srcset="${base}/source.png"><img alt=""></picture>
        <iframe src="${base}/iframe"></iframe><iframe src="file:///etc/passwd"></iframe>
        <img src="file://${localImage}"><p style="background: url('file://${localImage}')">local</p>
        <object data="${base}/object"></object><embed src="${base}/embed">
        <video poster="${base}/poster.png" src="${base}/video.mp4"></video>
        <svg width="10" height="10"><image href="${base}/svg.png" width="10" height="10"/></svg>
        <table background="${base}/table.png"><tr><td>cell</td></tr></table>
        </body></html>`;
      const pdf = await renderer.render(html);
      const text = await pdftotext(pdf);
      // The meta refresh did not replace the document with an error page.
      expect(text).toContain('NETWORK TEMPLATE');
      expect(text).not.toContain('root:');
      const images = execFileSync('pdfimages', ['-list', await save(pdf)], { encoding: 'utf8' });
      expect(images).not.toMatch(/\s37\s+23\s/);
      // Prefetch and preconnect bypass request interception and may land after the render
      // returns; another render gives them time to arrive (without the renderer's host-resolver
      // rule this test fails on GET /prefetch).
      await renderer.render('<p>barrier</p>');
      expect(requests).toEqual([]);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('renders data: images', async () => {
    const src = `data:image/png;base64,${redPng().toString('base64')}`;
    const plain = await renderer.render('<p>IMAGE</p>');
    const withImage = await renderer.render(`<p>IMAGE</p><img src="${src}" width="200" height="200">`);
    expect(withImage.length).toBeGreaterThan(plain.length);
    const images = execFileSync('pdfimages', ['-list', await save(withImage)], { encoding: 'utf8' });
    expect(images).toMatch(/\n\s*1\s+0\s+image\s+16\s+16\s/);
  });

  it('follows CSS @page size (A5)', async () => {
    const pdf = await renderer.render('<style>@page { size: A5; margin: 1cm }</style><p>A5 PAGE</p>');
    // A5 is 148 × 210 mm = 419.5 × 595.3 pt; Chromium rounds to whole CSS pixels (420 × 594.96).
    const [, width, height] = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(await pdfinfo(pdf)) ?? [];
    expect(Math.abs(Number(width) - 419.5)).toBeLessThanOrEqual(1);
    expect(Math.abs(Number(height) - 595.3)).toBeLessThanOrEqual(1);
    expect(await pdftotext(pdf)).toContain('A5 PAGE');
  });

  it('runs 6 concurrent renders on 2 pages, each getting its own document', async () => {
    const pool = new HtmlRenderer({ executablePath: CHROMIUM, pages: 2 });
    try {
      const pdfs = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.render(`<h1>DOCUMENT ${i}</h1>`)));
      for (const [i, pdf] of pdfs.entries()) {
        const text = await pdftotext(pdf);
        expect(text).toContain(`DOCUMENT ${i}`);
        expect(text.match(/DOCUMENT \d/g)).toHaveLength(1);
      }
    } finally {
      await pool.close();
    }
  });

  it('times out with RENDER_TIMEOUT and keeps working afterwards', async () => {
    const pool = new HtmlRenderer({ executablePath: CHROMIUM, pages: 1 });
    try {
      await pool.render('<p>warm up</p>');
      // A long document: laying out and printing it takes seconds.
      const rows = Array.from({ length: 20_000 }, (_, i) => `<tr><td>row ${i}</td><td>${'x '.repeat(20)}</td></tr>`).join('');
      const heavy = `<table>${rows}</table>`;
      const error = await pool.render(heavy, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TemplateError);
      expect((error as TemplateError).problem).toBe('RENDER_TIMEOUT');
      const tiny = await pool.render('<p>x</p>', { timeoutMs: 1 }).catch((e: unknown) => e);
      expect((tiny as TemplateError).problem).toBe('RENDER_TIMEOUT');
      // The single page slot was released and the browser is still usable.
      const pdf = await pool.render('<p>AFTER TIMEOUT</p>');
      expect(await pdftotext(pdf)).toContain('AFTER TIMEOUT');
    } finally {
      await pool.close();
    }
  });

  it('relaunches Chromium after it died', async () => {
    const pool = new HtmlRenderer({ executablePath: CHROMIUM, pages: 1 });
    try {
      const before = childPids();
      await pool.render('<p>first</p>');
      const launched = childPids().filter((pid) => !before.includes(pid));
      expect(launched).toHaveLength(1);
      // Playwright starts the browser as a process group leader: kill the whole group, as a crash
      // of the browser would take its helpers down.
      process.kill(-launched[0], 'SIGKILL');
      const pdf = await pool.render('<p>AFTER CRASH</p>');
      expect(await pdftotext(pdf)).toContain('AFTER CRASH');
    } finally {
      await pool.close();
    }
  });

  it('reports a missing Chromium as RENDERER_UNAVAILABLE', async () => {
    const missing = new HtmlRenderer({ executablePath: '/nonexistent/chromium' });
    const error = await missing.render('<p>x</p>').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TemplateError);
    expect((error as TemplateError).problem).toBe('RENDERER_UNAVAILABLE');
    expect((error as TemplateError).message).toBe(
      'Chromium is not installed at /nonexistent/chromium; install the Debian package chromium',
    );
    await missing.close();
  });

  it('refuses renders after close', async () => {
    const pool = new HtmlRenderer({ executablePath: CHROMIUM });
    await pool.close();
    const error = await pool.render('<p>x</p>').catch((e: unknown) => e);
    expect((error as TemplateError).problem).toBe('RENDERER_UNAVAILABLE');
  });
});

/** Chromium processes started by this test process (Playwright spawns the browser directly). */
function childPids(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, comm]) => pid && comm?.startsWith('chrom'))
    .map(([pid]) => Number(pid));
}
