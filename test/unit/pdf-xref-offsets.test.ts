// Cross-reference pointers that miss their section by whitespace or a few bytes: the verifier reads
// such a file as qpdf, poppler and Acrobat do, and never hashes anything but the file's own bytes.
// The files are built here: an unsigned revision whose xref keyword is pushed past a run of
// whitespace its startxref (and the next trailer's /Prev) still points at, then signatures after it.
import { PDF, PdfDict, PdfRef, type PdfString } from '@libpdf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPdf } from '../../src/pdf/verify/verify-pdf.js';
import { readableBytes } from '../../src/pdf/xref-offsets.js';
import { anaAndBob } from '../helpers/ana-and-bob.js';
import type { TestPki, TestSigner } from '../helpers/openssl-pki.js';
import { qpdfCheck } from '../helpers/pdfs.js';
import { HandPdf } from '../helpers/signed-pdfs.js';
import { lastXrefOffset, xrefStreamUpdate } from '../helpers/xref-loops.js';
import { pdfsig } from '../helpers/validators.js';

let pki: TestPki;
let ana: TestSigner;
let bob: TestSigner;
let rootPem: string;

beforeAll(async () => {
  ({ pki, ana, bob, rootPem } = await anaAndBob());
}, 60_000);
afterAll(() => pki?.dispose());

/** Moves the last revision's "xref" keyword `gap` bytes further on; its startxref keeps the old offset. */
function pushXrefPastWhitespace(pdf: HandPdf, gap: string): number {
  const text = pdf.bytes.toString('latin1');
  const at = text.lastIndexOf('\nxref\n') + 1;
  const pointer = text.lastIndexOf(`startxref\n${at}\n`);
  expect(pointer).toBeGreaterThan(at);
  pdf.bytes = Buffer.concat([pdf.bytes.subarray(0, at), Buffer.from(gap, 'latin1'), pdf.bytes.subarray(at)]);
  return at;
}

/**
 * Revision 1 the base file; revision 2 an unsigned update (a page label) whose startxref points at
 * CR LF, spaces and a tab before its xref keyword; revision 3 Ana's signature, whose /Prev repeats
 * that offset; revision 4 Bob's signature.
 */
async function signedAfterLooseXref(): Promise<{ bytes: Buffer; looseAt: number }> {
  const pdf = HandPdf.base();
  pdf.update({ 1: pdf.edit(1, /^<</, '<< /PageLabels << /Nums [0 << /S /D >>] >>') });
  const looseAt = pushXrefPastWhitespace(pdf, '\r\n  \t');
  await pdf.sign(pki, { signer: ana, field: 'Ana' });
  await pdf.sign(pki, { signer: bob, field: 'Bob' });
  return { bytes: pdf.bytes, looseAt };
}

describe('cross-reference offsets that point at whitespace before xref', () => {
  it('the file reads as readers read it: both signatures valid, the document intact', async () => {
    const { bytes, looseAt } = await signedAfterLooseXref();
    const text = bytes.toString('latin1');
    // The fixture is what it claims: the pointers miss, and qpdf says so but reads the file (past more
    // than one byte of whitespace it then rebuilds the cross-references, reading the same objects).
    expect(text).toContain(`startxref\n${looseAt}\n`);
    expect(text).toContain(`/Prev ${looseAt} `);
    expect(text.slice(looseAt, looseAt + 9)).toBe('\r\n  \txref');
    const qpdf = qpdfCheck(bytes);
    expect(qpdf.output).toContain('extraneous whitespace seen before xref');
    expect(qpdf.output).toContain('qpdf: operation succeeded with warnings');

    const r = await verifyPdf(bytes, { trustedRootsDer: [pki.rootDer] });
    expect(r.signatures.map((s) => [s.fieldName, s.validSignature, s.failedRule, s.modifiedAfterSigning])).toEqual([
      ['Ana', true, null, false],
      ['Bob', true, null, false],
    ]);
    expect(r.documentIntegrity).toBe('intact');
    expect(r.attacks).toEqual([]);

    const checked = await pdfsig(bytes, rootPem);
    expect(checked.signatures.map((s) => [s.field, s.valid]).sort(), checked.output).toEqual([
      ['Ana', true],
      ['Bob', true],
    ]);
  });

  it('bytes changed inside the signed range are still caught: hashes are over the file, not the parsing copy', async () => {
    const { bytes } = await signedAfterLooseXref();
    const text = bytes.toString('latin1');
    const tampered = Buffer.from(bytes);
    tampered.write('Pay 900 EUR', text.indexOf('Pay 100 EUR'), 'latin1');
    const r = await verifyPdf(tampered, { trustedRootsDer: [pki.rootDer] });
    expect(r.signatures.map((s) => s.validSignature)).toEqual([false, false]);
  });
});

describe('readableBytes', () => {
  const base = () => {
    const pdf = HandPdf.base();
    pdf.update({ 1: pdf.edit(1, /^<</, '<< /Lang (es) ') });
    return pdf;
  };

  it('leaves a file whose pointers hit their sections as it is (the same array, no copy)', () => {
    const bytes = base().bytes;
    expect(readableBytes(bytes)).toBe(bytes);
  });

  it('points startxref and /Prev past whitespace at the keyword, in a copy of the same length', () => {
    const pdf = base();
    const at = pushXrefPastWhitespace(pdf, '\n\n\n');
    pdf.update({ 1: pdf.edit(1, /^<</, '<< /Lang (en) ') });
    const out = Buffer.from(readableBytes(pdf.bytes));
    expect(out).not.toBe(pdf.bytes);
    expect(out.length).toBe(pdf.bytes.length);
    const text = out.toString('latin1');
    expect(text).toContain(`startxref\n${at + 3}\n`);
    expect(text).toContain(`/Prev ${at + 3} `);
    expect(pdf.bytes.toString('latin1')).toContain(`/Prev ${at} `); // the file itself is untouched
    // Nothing but those two pointers differs.
    const differing = [...out.keys()].filter((i) => out[i] !== pdf.bytes[i]);
    expect(differing.length).toBeGreaterThan(0);
    expect(differing.every((i) => text.slice(i - 12, i + 1).match(/(startxref\n|\/Prev )\d*$/))).toBe(true);
  });

  it('finds the keyword a few bytes before the offset, and pads a shorter offset with leading zeros', () => {
    const pdf = base();
    const text = pdf.bytes.toString('latin1');
    const at = text.lastIndexOf('\nxref\n') + 1;
    // startxref says two bytes into the keyword ("ef"); a reader looks nearby and finds it.
    const wrong = Buffer.from(text.replace(`startxref\n${at}\n`, `startxref\n${at + 2}\n`), 'latin1');
    const fixed = Buffer.from(readableBytes(wrong)).toString('latin1');
    expect(fixed).toContain(`startxref\n${at}\n`);

    // An offset 1000 (4 digits) that means 998 is written 0998.
    const short = Buffer.from(
      `${'%PDF-1.7\n'.padEnd(998, ' ')}xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 >>\nstartxref\n1000\n%%EOF\n`,
    );
    expect(Buffer.from(readableBytes(short)).toString('latin1')).toContain('startxref\n0998\n');
  });

  it('leaves a pointer with no section near it as it is', () => {
    const pdf = base();
    const text = pdf.bytes.toString('latin1');
    const at = text.lastIndexOf('\nxref\n') + 1;
    const far = Buffer.from(text.replace(`startxref\n${at}\n`, `startxref\n${at - 200}\n`), 'latin1');
    expect(readableBytes(far)).toBe(far);
  });

  it('a /Prev two bytes short of a cross-reference stream: pointed at the stream object, the earlier revisions read again', async () => {
    const pdf = base();
    const first = xrefStreamUpdate(pdf.bytes, { 8: '<< /Title (first) >>' }, 9, () => lastXrefOffset(pdf.bytes));
    const streamAt = lastXrefOffset(first);
    const second = xrefStreamUpdate(first, { 10: '<< /Title (second) >>' }, 11, () => streamAt - 2);
    const copy = readableBytes(second);
    expect(Buffer.from(copy).toString('latin1')).toContain(`/Prev ${streamAt} `);
    // As written, the library loses every section before the second stream, the catalog with them.
    await expect(PDF.load(second)).rejects.toThrow('Document has no catalog');
    const read = await PDF.load(copy);
    const title = (n: number) => {
      const o = read.getObject(PdfRef.of(n, 0));
      return o instanceof PdfDict ? new TextDecoder().decode((o.get('Title') as PdfString).bytes) : null;
    };
    expect([title(8), title(10)]).toEqual(['first', 'second']);
    expect(read.getPageCount()).toBe(1);
  });

  it('a file with more startxref markers than any verified file has is left as it is, at linear cost', () => {
    const text = `%PDF-1.7\n${'xref\n startxref\n12\n%%EOF\n'.repeat(1500)}`;
    const bytes = Buffer.from(text, 'latin1');
    expect(readableBytes(bytes)).toBe(bytes);
  });
});
