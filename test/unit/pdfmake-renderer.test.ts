import { afterAll, describe, expect, it } from 'vitest';
import { PdfmakeRenderer } from '../../src/render/pdfmake-renderer.js';
import { TemplateError, type FillValues } from '../../src/render/types.js';

const values = (fields: Record<string, string> = {}): FillValues => ({ fields: new Map(Object.entries(fields)), tables: new Map() });
const renderer = new PdfmakeRenderer({ workers: 1, timeoutMs: 1500 });
afterAll(() => renderer.close());

describe('PdfmakeRenderer (worker threads)', () => {
  it('renders in a worker', async () => {
    const pdf = await renderer.render({ content: ['Hola {{name}}'] }, values({ name: 'Ana' }));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('passes template errors through with their problem', async () => {
    const err = await renderer.render({ content: [{ image: '/etc/passwd' }] }, values()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateError);
    expect((err as TemplateError).problem).toBe('INVALID_TEMPLATE');
  });

  it('stops a render that runs too long while the main thread keeps running, then renders again', async () => {
    // Tens of thousands of table rows: seconds of synchronous layout.
    const body = Array.from({ length: 60000 }, (_, i) => [`row ${i}`, 'lorem ipsum dolor sit amet', String(i * 7)]);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const err = await renderer.render({ content: [{ table: { body } }] }, values()).catch((e: unknown) => e);
    clearInterval(timer);
    expect((err as TemplateError).problem).toBe('RENDER_TIMEOUT');
    // The main thread was free: the interval ran through the whole render.
    expect(ticks).toBeGreaterThan(10);
    const pdf = await renderer.render({ content: ['after'] }, values());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });
});
