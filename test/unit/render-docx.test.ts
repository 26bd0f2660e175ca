// The docx engine against fixtures written as Word writes them, and the real LibreOffice
// conversion checked with an independent reader (pdftotext).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import type { Element } from '@xmldom/xmldom';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocxConverter } from '../../src/render/docx-converter.js';
import { detectDocxTemplate, fillDocxTemplate } from '../../src/render/docx-template.js';
import { TemplateError, type FillValues } from '../../src/render/types.js';
import { ALL_FIELD_IDS, buildAllFieldsDocx, buildDocx, complexMergeField, paragraph } from '../helpers/docx.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

const VALUES: Record<string, string> = {
  Company: 'Acme & <Sons> Ltd',
  'Start Date': '1 May 2025',
  Customer: 'Jane Q. Doe',
  Amount: '1,234.50',
  Notes: 'Delivery within 30 days\nPayment by bank transfer',
  Reference: 'REF-2025-042',
};

function values(fields: Record<string, string>): FillValues {
  return { fields: new Map(Object.entries(fields)), tables: new Map() };
}

async function part(docx: Buffer, path: string): Promise<string> {
  const zip = await JSZip.loadAsync(docx);
  return zip.file(path)!.async('string');
}

/** The runs whose text is exactly `text` (text of w:t, w:br as a newline). */
function runsWithText(xml: string, text: string): Element[] {
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  return Array.from(doc.getElementsByTagNameNS(W, 'r')).filter((r) => readText(r) === text);
}

function readText(el: Element): string {
  let out = '';
  for (const c of Array.from(el.getElementsByTagNameNS(W, '*'))) {
    if (c.localName === 't') {
      out += c.textContent ?? '';
    } else if (c.localName === 'br') {
      out += '\n';
    }
  }
  return out;
}

function hasProperty(runEl: Element, name: string): boolean {
  const rPr = Array.from(runEl.childNodes).find((c) => (c as Element).localName === 'rPr') as Element | undefined;
  return !!rPr && rPr.getElementsByTagNameNS(W, name).length > 0;
}

async function expectProblem(promise: Promise<unknown>, problem: TemplateError['problem']): Promise<TemplateError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TemplateError);
  expect((err as TemplateError).problem).toBe(problem);
  return err as TemplateError;
}

function pdfText(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-', '-'], { input: pdf, encoding: 'utf8' });
}

describe('docx template: detection', () => {
  it('finds every kind of field once, in order of first appearance (body, then header)', async () => {
    const detected = await detectDocxTemplate(await buildAllFieldsDocx());
    expect(detected.fields.map((f) => f.id)).toEqual(ALL_FIELD_IDS);
    expect(detected.fields.every((f) => f.value === '')).toBe(true);
    expect(detected.tables).toEqual([]);
  });

  it('reads quoted names and ignores fields that are not merge fields', async () => {
    const docx = await buildDocx({
      body: [
        paragraph(complexMergeField('First Name')),
        paragraph('<w:fldSimple w:instr=" PAGE \\* MERGEFORMAT "><w:r><w:t>1</w:t></w:r></w:fldSimple>'),
        paragraph('<w:fldSimple w:instr=" MERGEFIELD &quot;Last Name&quot; "><w:r><w:t>«Last Name»</w:t></w:r></w:fldSimple>'),
        // A date picker is not a text field.
        '<w:sdt><w:sdtPr><w:tag w:val="When"/><w:date/></w:sdtPr><w:sdtContent><w:p><w:r><w:t>pick</w:t></w:r></w:p></w:sdtContent></w:sdt>',
      ],
    });
    expect((await detectDocxTemplate(docx)).fields.map((f) => f.id)).toEqual(['First Name', 'Last Name']);
  });

  it('refuses what is not a docx', async () => {
    await expectProblem(detectDocxTemplate(Buffer.from('%PDF-1.7 not a docx')), 'INVALID_TEMPLATE');
    const zip = new JSZip();
    zip.file('hello.txt', 'a zip, but not a Word document');
    const notWord = await zip.generateAsync({ type: 'nodebuffer' });
    await expectProblem(detectDocxTemplate(notWord), 'INVALID_TEMPLATE');
    await expectProblem(fillDocxTemplate(notWord, values({})), 'INVALID_TEMPLATE');
  });
});

describe('docx template: fill', () => {
  it('replaces every field with its value in the formatting of the field', async () => {
    const filled = await fillDocxTemplate(await buildAllFieldsDocx(), values(VALUES));
    const body = await part(filled, 'word/document.xml');
    const header = await part(filled, 'word/header1.xml');
    for (const xml of [body, header]) {
      expect(xml).not.toMatch(/MERGEFIELD|fldChar|fldSimple|instrText|«|»|showingPlcHdr|Click or tap/);
    }
    // The simple field's result run was bold; both uses of it stay bold.
    const company = runsWithText(body, VALUES.Company);
    expect(company).toHaveLength(2);
    expect(company.every((r) => hasProperty(r, 'b'))).toBe(true);
    // The complex field's result run was italic.
    const [date] = runsWithText(body, VALUES['Start Date']);
    expect(hasProperty(date, 'i')).toBe(true);
    expect(runsWithText(body, VALUES.Customer)).toHaveLength(1);
    expect(runsWithText(header, VALUES.Reference)).toHaveLength(1);
    // Content controls keep their wrapper and lose the grey placeholder style.
    const [amount] = runsWithText(body, VALUES.Amount);
    expect(hasProperty(amount, 'rStyle')).toBe(false);
    expect(body).toMatch(/<w:tag w:val="Amount"\/>/);
    // Once filled, only the content controls are still fields.
    expect((await detectDocxTemplate(filled)).fields.map((f) => f.id)).toEqual(['Amount', 'Notes']);
  });

  it('carries <, & and newlines as text, spaces kept', async () => {
    const tricky = '  a < b && c > d\nsecond "line" ';
    const filled = await fillDocxTemplate(await buildAllFieldsDocx(), values({ Customer: tricky }));
    const body = await part(filled, 'word/document.xml');
    const [customer] = runsWithText(body, tricky);
    expect(customer).toBeDefined();
    expect(customer.getElementsByTagNameNS(W, 'br')).toHaveLength(1);
    expect(Array.from(customer.getElementsByTagNameNS(W, 't')).every((t) => t.getAttribute('xml:space') === 'preserve')).toBe(true);
    // Missing values are empty, not left as placeholders.
    expect(body).not.toContain('«');
  });

  it('puts a multi-line value in a content control the way LibreOffice shows it', async () => {
    const filled = await fillDocxTemplate(await buildAllFieldsDocx(), values({ Amount: 'one\ntwo', Notes: 'first\nsecond' }));
    const doc = new DOMParser().parseFromString(await part(filled, 'word/document.xml'), 'application/xml');
    const sdts = Array.from(doc.getElementsByTagNameNS(W, 'sdt'));
    const [amount, notes] = sdts;
    // Run-level: a line break, in a control turned from plain to rich text.
    expect(readText(amount)).toBe('one\ntwo');
    expect(amount.getElementsByTagNameNS(W, 'text')).toHaveLength(0);
    // Block-level: one paragraph per line.
    expect(Array.from(notes.getElementsByTagNameNS(W, 'p')).map(readText)).toEqual(['first', 'second']);
  });

  it('removes a field whose result spans paragraphs, keeping the text around it', async () => {
    const docx = await buildDocx({
      body: [
        '<w:p><w:r><w:t xml:space="preserve">Before </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r>' +
          '<w:r><w:instrText xml:space="preserve"> MERGEFIELD Address </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>' +
          '<w:r><w:rPr><w:u w:val="single"/></w:rPr><w:t>«Address line 1</w:t></w:r></w:p>' +
          '<w:p><w:r><w:t>Address line 2»</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/><w:t xml:space="preserve"> after</w:t></w:r></w:p>',
      ],
    });
    const body = await part(await fillDocxTemplate(docx, values({ Address: 'Main Street 1' })), 'word/document.xml');
    const doc = new DOMParser().parseFromString(body, 'application/xml');
    const paragraphs = Array.from(doc.getElementsByTagNameNS(W, 'p')).map(readText);
    expect(paragraphs).toEqual(['Before Main Street 1 after']);
    expect(hasProperty(runsWithText(body, 'Main Street 1')[0], 'u')).toBe(true);
  });
});

describe('docx converter (LibreOffice)', () => {
  let converter: DocxConverter;
  const scratch = mkdtempSync(join(tmpdir(), 'sello-docx-test-'));

  beforeAll(() => {
    const probe = spawnSync('soffice', ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      throw new Error('LibreOffice (soffice) is not installed: install the Debian package libreoffice-writer-nogui to run the docx tests');
    }
    converter = new DocxConverter({ concurrency: 2 });
  });

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('renders every value and no placeholder', async () => {
    const pdf = await converter.convert(await fillDocxTemplate(await buildAllFieldsDocx(), values(VALUES)));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfText(pdf);
    for (const value of Object.values(VALUES)) {
      for (const line of value.split('\n')) {
        expect(text).toContain(line);
      }
    }
    // The two lines of the multi-line value are two lines of the page.
    expect(text).toMatch(/Delivery within 30 days\s*\n\s*Payment by bank transfer/);
    expect(text).not.toMatch(/[«»]|MERGEFIELD|Click or tap/);
    for (const id of ALL_FIELD_IDS) {
      expect(text).not.toContain(`«${id}`);
    }
  });

  it('runs 4 conversions with at most 2 at once, all succeeding', async () => {
    const template = await buildAllFieldsDocx();
    const docs = await Promise.all(
      [1, 2, 3, 4].map((n) => fillDocxTemplate(template, values({ ...VALUES, Customer: `Customer number ${n}` }))),
    );
    const pending = docs.map((d) => converter.convert(d));
    expect(converter.running).toBe(2);
    expect(converter.queued).toBe(2);
    const pdfs = await Promise.all(pending);
    pdfs.forEach((pdf, i) => {
      expect(pdfText(pdf)).toContain(`Customer number ${i + 1}`);
    });
    expect(converter.running).toBe(0);
  }, 120_000);

  it('kills the whole LibreOffice process group on timeout, and keeps working', async () => {
    const dir = mkdtempSync(join(scratch, 'timeout-'));
    const hasty = new DocxConverter({ timeoutMs: 50, concurrency: 1, tmpDir: dir });
    const docx = await fillDocxTemplate(await buildAllFieldsDocx(), values(VALUES));
    const [first, second] = [hasty.convert(docx), hasty.convert(docx)];
    await expectProblem(first, 'RENDER_TIMEOUT');
    // The slot was given back: the queued conversion ran (and timed out) instead of hanging.
    await expectProblem(second, 'RENDER_TIMEOUT');
    expect(hasty.running).toBe(0);
    // No process runs on the conversion's profile, and its directory is gone.
    const left = spawnSync('pgrep', ['-f', dir], { encoding: 'utf8' });
    expect(left.stdout.trim()).toBe('');
    expect(left.status).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
    expect(pdfText(await converter.convert(docx))).toContain(VALUES.Customer);
  }, 120_000);

  it('refuses a non-docx input before LibreOffice guesses a format for it', async () => {
    await expectProblem(converter.convert(Buffer.from('Hello, I am plain text')), 'INVALID_TEMPLATE');
  });
});

describe('docx converter (process handling)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sello-fake-soffice-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A stand-in for soffice: a shell script with the given body; `$input` is the input file. */
  function fakeSoffice(name: string, body: string): string {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\nfor input; do :; done\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  const zipLike = (tag: string) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(`${tag}\n`)]);

  it('reports a missing LibreOffice as RENDERER_UNAVAILABLE with the package to install', async () => {
    const err = await expectProblem(
      new DocxConverter({ binary: join(dir, 'no-such-soffice') }).convert(zipLike('x')),
      'RENDERER_UNAVAILABLE',
    );
    expect(err.message).toBe('LibreOffice is not installed; install the Debian package libreoffice-writer-nogui');
  });

  it('reports a conversion that made no PDF, with the tail of its stderr in the details (for the log)', async () => {
    const binary = fakeSoffice('failing', 'echo "Error: source file could not be loaded" >&2; exit 77');
    const err = await expectProblem(new DocxConverter({ binary }).convert(zipLike('x')), 'RENDERER_UNAVAILABLE');
    expect(err.message).toBe('LibreOffice did not convert the document');
    expect(err.details).toMatchObject({ exitCode: 77 });
    expect(String((err.details as { stderr?: string }).stderr)).toContain('source file could not be loaded');
  });

  it('starts waiting conversions in arrival order', async () => {
    const log = join(dir, 'order.log');
    const binary = fakeSoffice('ordered', `tail -c +5 "$input" >> '${log}'; printf '%%PDF-fake' > "$(dirname "$input")/in.pdf"`);
    const queue = new DocxConverter({ binary, concurrency: 1 });
    const pdfs = await Promise.all(['job1', 'job2', 'job3', 'job4'].map((tag) => queue.convert(zipLike(tag))));
    expect(pdfs.map((p) => p.toString())).toEqual(Array(4).fill('%PDF-fake'));
    expect(readFileSync(log, 'utf8')).toBe('job1\njob2\njob3\njob4\n');
  });
});
