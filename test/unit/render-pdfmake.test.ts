import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectPdfmake, renderPdfmake } from '../../src/render/pdfmake-template.js';
import { TemplateError, type FillValues } from '../../src/render/types.js';
import { pdfImageCount, pdfToText } from '../helpers/pdf-forms.js';
import { qpdfCheck } from '../helpers/pdfs.js';

/** A 1×1 PNG. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PNG_DATA_URL = `data:image/png;base64,${PNG_BASE64}`;

function values(fields: Record<string, string>): FillValues {
  return { fields: new Map(Object.entries(fields)), tables: new Map() };
}

function templateErrorOf(run: () => unknown): TemplateError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(TemplateError);
    return err as TemplateError;
  }
  throw new Error('expected a TemplateError');
}

async function renderError(definition: unknown, fields: Record<string, string> = {}): Promise<TemplateError> {
  const err = await renderPdfmake(definition, values(fields)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TemplateError);
  return err as TemplateError;
}

/** Placeholders in metadata, header columns, footer inlines, nested stacks and lists, a table. */
const nested = {
  info: { title: '{{title}}' },
  header: { columns: ['{{company}}', { text: 'Ref. {{ ref }}', alignment: 'right' }] },
  footer: { text: ['Issued by ', { text: '{{company}}', bold: true }] },
  content: [
    { text: 'Dear {{name}},', style: 'lead' },
    { stack: [{ ul: ['{{item.one}}', { text: '{{item-two}}' }] }] },
    {
      table: {
        headerRows: 1,
        body: [
          ['Line', 'Amount'],
          ['{{line_1_name}}', { text: '{{line_1_amount}}', alignment: 'right' }],
        ],
      },
    },
    'Again {{name}}, {{ref}}. Not placeholders: {{ two words }}, {{}}, {{bad!}}.',
  ],
  styles: { '{{not_a_field}}': { bold: true }, lead: { fontSize: 14 } },
};

describe('detectPdfmake', () => {
  it('finds placeholders in every string of the definition, in first-appearance order, once each', () => {
    expect(detectPdfmake(nested)).toEqual({
      fields: ['title', 'company', 'ref', 'name', 'item.one', 'item-two', 'line_1_name', 'line_1_amount'].map((id) => ({ id, value: '' })),
      tables: [],
    });
  });

  it('refuses what is not a JSON object, or has no content', () => {
    for (const bad of [null, 'text', 42, ['content'], { header: 'x' }, { content: null }]) {
      expect(templateErrorOf(() => detectPdfmake(bad)).problem, JSON.stringify(bad)).toBe('INVALID_TEMPLATE');
    }
  });

  it('refuses an image given as a path already when the template is saved', () => {
    const err = templateErrorOf(() => detectPdfmake({ content: [{ image: '/etc/passwd' }] }));
    expect(err.problem).toBe('INVALID_TEMPLATE');
    expect(err.message).toContain('/etc/passwd');
    // An image a placeholder fills is checked when the value is known.
    expect(detectPdfmake({ content: [{ image: '{{logo}}' }], images: { sig: '{{sig}}' } }).fields.map((f) => f.id)).toEqual([
      'logo',
      'sig',
    ]);
  });
});

describe('renderPdfmake', () => {
  it('substitutes the values everywhere and renders with the bundled Roboto', async () => {
    const out = await renderPdfmake(
      nested,
      values({
        title: 'Invoice 42',
        company: 'ACME Corp',
        ref: 'R-2024-7',
        name: 'Zoë Łukasz',
        'item.one': 'First item',
        'item-two': 'Second item',
        line_1_name: 'Consulting',
        line_1_amount: '1 200,00 €',
      }),
    );
    expect(out.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfToText(out);
    for (const v of ['ACME Corp', 'R-2024-7', 'Dear Zoë Łukasz,', 'First item', 'Second item', 'Consulting', '1 200,00 €']) {
      expect(text).toContain(v);
    }
    expect(text).not.toMatch(/\{\{\s*[\w.-]+\s*\}\}/);
    expect(out.toString('latin1')).toMatch(/Roboto/);
    expect(qpdfCheck(out).ok).toBe(true);
  });

  it('inserts values as text: a value holding {{other}} or $& stays literal', async () => {
    const def = { content: ['A: {{a}}', 'B: {{b}}'] };
    const text = pdfToText(await renderPdfmake(def, values({ a: 'see {{b}} and $& $1', b: 'bee' })));
    expect(text).toContain('A: see {{b}} and $& $1');
    expect(text).toContain('B: bee');
  });

  it('renders a missing value as an empty string', async () => {
    const text = pdfToText(await renderPdfmake({ content: ['Hello [{{missing}}]!'] }, values({})));
    expect(text).toContain('Hello []!');
  });

  it('does not change the definition it is given', async () => {
    const def = { content: [{ text: '{{x}}' }], images: { logo: PNG_DATA_URL } };
    const copy = JSON.parse(JSON.stringify(def)) as unknown;
    await renderPdfmake(def, values({ x: 'y' }));
    expect(def).toEqual(copy);
  });

  it('refuses images given as file paths or names that are not data: URLs', async () => {
    for (const src of ['/etc/passwd', 'foo.png', 'file:///etc/passwd', 'https://example.com/a.png']) {
      const err = await renderError({ content: ['x', { image: src }] });
      expect(err.problem, src).toBe('INVALID_TEMPLATE');
      expect(err.message, src).toContain(src);
      expect(err.details).toEqual({ path: 'content[1].image' });
    }
    const inImages = await renderError({ content: [{ image: 'logo' }], images: { logo: '/etc/passwd' } });
    expect(inImages.problem).toBe('INVALID_TEMPLATE');
    expect(inImages.message).toContain('images.logo');
    expect((await renderError({ content: [{ image: 'data:text/plain;base64,aGVsbG8=' }] })).problem).toBe('INVALID_TEMPLATE');
  });

  it('refuses a path coming from a value, naming the field', async () => {
    const err = await renderError({ content: [{ image: '{{logo}}' }] }, { logo: '/etc/passwd' });
    expect(err.problem).toBe('INVALID_VALUE');
    expect(err.details).toMatchObject({ field: 'logo' });
  });

  it('embeds data: URL images, inline, by name, from a value, with line breaks in the base64', async () => {
    const wrapped = `data:image/png;base64,${PNG_BASE64.slice(0, 30)}\n${PNG_BASE64.slice(30)}`;
    const out = await renderPdfmake(
      {
        content: [
          { image: PNG_DATA_URL, width: 20 },
          { image: 'logo', width: 20 },
          { image: '{{photo}}', width: 20 },
          { image: wrapped, width: 20 },
        ],
        images: { logo: PNG_DATA_URL },
      },
      values({ photo: PNG_DATA_URL }),
    );
    // pdfimages lists each drawing of an image: all four are drawn.
    expect(pdfImageCount(out)).toBe(4);
    expect(qpdfCheck(out).ok).toBe(true);
  });

  describe('SVG images', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-pdfmake-'));
    const secret = join(dir, 'secret.png');
    writeFileSync(secret, Buffer.from(PNG_BASE64, 'base64'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const svg = (href: string) => `<svg width="10" height="10"><image href="${href}" width="10" height="10"/></svg>`;

    it('refuses an <image> read from disk, even with the path entity-encoded', async () => {
      for (const href of [secret, secret.replace(/\//g, '&#47;')]) {
        const err = await renderError({ content: [{ svg: svg(href) }] });
        expect(err.problem).toBe('INVALID_TEMPLATE');
        expect(err.message).toContain(secret);
      }
    });

    it('embeds an <image> given as a data: URL', async () => {
      expect(pdfImageCount(await renderPdfmake({ content: [{ svg: svg(PNG_DATA_URL) }] }, values({})))).toBe(1);
    });
  });

  it('reports what pdfmake cannot render as INVALID_TEMPLATE with its message', async () => {
    const err = await renderError({ content: [{ text: 'x', font: 'Comic Sans' }] });
    expect(err.problem).toBe('INVALID_TEMPLATE');
    expect(err.message).toContain("Font 'Comic Sans'");
  });

  it('refuses a definition that would encrypt the PDF', async () => {
    expect((await renderError({ content: ['x'], userPassword: 'pw' })).problem).toBe('INVALID_TEMPLATE');
  });
});
