// What a later revision may change on the page a signature covers: filling a field within its box
// and signing are allowed; an opaque box over signed content, a widget redrawn without its value
// changing, and an appearance the signed revision shared with something else being replaced are
// not. Each attack is built here byte by byte beside the allowed case it imitates; the page is the
// one of helpers/signed-pdfs.ts, whose signed text "Pay 100 EUR to Ana" is drawn at (50, 760) in
// 18 pt Helvetica.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDF, type PdfDict, PdfRef, type PdfStream } from '@libpdf/core';
import { appearanceMarks, pageContentMarks } from '../../src/pdf/verify/content-marks.js';
import { type VerifiedPdf, verifyPdf } from '../../src/pdf/verify/verify-pdf.js';
import { anaAndBob } from '../helpers/ana-and-bob.js';
import type { TestPki, TestSigner } from '../helpers/openssl-pki.js';
import { HandPdf, stream } from '../helpers/signed-pdfs.js';

let pki: TestPki;
let ana: TestSigner;
let bob: TestSigner;

beforeAll(async () => {
  ({ pki, ana, bob } = await anaAndBob());
}, 60_000);
afterAll(() => pki?.dispose());

const verify = (bytes: Uint8Array): Promise<VerifiedPdf> => verifyPdf(bytes, { trustedRootsDer: [pki.rootDer] });
const verdict = (r: VerifiedPdf) => ({
  integrity: r.documentIntegrity,
  signatures: r.signatures.map((s) => [s.fieldName, s.validSignature, s.modifiedAfterSigning]),
  attacks: r.attacks.map((a) => a.name),
});
const disallowed = (r: VerifiedPdf, field: string) =>
  r.signatures.find((s) => s.fieldName === field)?.changes.filter((c) => !c.allowed) ?? [];
const form = (body: string, box = '0 0 350 40') =>
  stream(body, `/Type /XObject /Subtype /Form /BBox [${box}] /Resources << /Font << /F1 5 0 R >> >> `);

/** The base page with a text field (object 8) over the signed text, in the form and on the page. */
function withFieldOverText(field = ''): HandPdf {
  const pdf = HandPdf.base([`<< /FT /Tx /T (amount) /Type /Annot /Subtype /Widget /Rect [45 750 395 790] /P 3 0 R /F 4 ${field}>>`]);
  return pdf.update({
    6: pdf.edit(6, '/Fields [7 0 R]', '/Fields [7 0 R 8 0 R]'),
    3: pdf.edit(3, '/Annots [7 0 R]', '/Annots [7 0 R 8 0 R]'),
  });
}

describe('form filling after an approval signature', () => {
  /** Ana signs; then the field over the text is given `value`, drawn by `drawing` (object 20). */
  async function filledAfterSigning(value: string, drawing: string): Promise<VerifiedPdf> {
    const pdf = withFieldOverText();
    await pdf.sign(pki, { signer: ana, field: 'Ana' });
    pdf.update({
      8: pdf.edit(8, '/T (amount)', `/T (amount) /V (${value}) /AP << /N 20 0 R >>`),
      20: form(drawing),
    });
    return verify(pdf.bytes);
  }

  it('a field over the signed text filled with an opaque box: shadow replace (overlay)', async () => {
    const r = await filledAfterSigning('Pay 9000 EUR to Eve', '1 1 1 rg 0 0 350 40 re f BT /F1 18 Tf 5 10 Td (Pay 9000 EUR to Eve) Tj ET');
    expect(verdict(r)).toEqual({ integrity: 'modified', signatures: [['Ana', true, true]], attacks: ['shadow-replace'] });
    expect(disallowed(r, 'Ana')).toMatchObject([{ objectNumber: 8, category: 'other', field: 'amount' }]);
    expect(disallowed(r, 'Ana')[0].description).toMatch(/opaque box over what the signed page showed/);
  });

  it('the same field filled with text alone: allowed (the value is drawn in its box, nothing is hidden)', async () => {
    const r = await filledAfterSigning('seen', 'BT /F1 8 Tf 300 2 Td (seen) Tj ET');
    expect(verdict(r)).toEqual({ integrity: 'intact', signatures: [['Ana', true, false]], attacks: [] });
    expect(r.signatures[0].changes.map((c) => [c.category, c.allowed])).toEqual([
      ['form-fill', true],
      ['form-fill', true],
    ]);
  });

  it('a field whose signed appearance was already an opaque box, filled with one: allowed (the signer saw the box)', async () => {
    const pdf = withFieldOverText('/AP << /N 9 0 R >> ');
    pdf.update({ 9: form('1 1 1 rg 0 0 350 40 re f') });
    await pdf.sign(pki, { signer: ana, field: 'Ana' });
    pdf.update({
      8: pdf.edit(8, '/T (amount)', '/T (amount) /V (Eve)').replace('/AP << /N 9 0 R >>', '/AP << /N 20 0 R >>'),
      20: form('1 1 1 rg 0 0 350 40 re f BT /F1 18 Tf 5 10 Td (Eve) Tj ET'),
    });
    const r = await verify(pdf.bytes);
    expect(verdict(r)).toEqual({ integrity: 'intact', signatures: [['Ana', true, false]], attacks: [] });
  });
  it('a filled appearance too costly to measure counts as covering its box', async () => {
    const pdf = withFieldOverText();
    await pdf.sign(pki, { signer: ana, field: 'Ana' });
    const [a, b, c] = [pdf.size, pdf.size + 1, pdf.size + 2];
    const xo = (body: string, next?: number) =>
      stream(body, `/Type /XObject /Subtype /Form /BBox [0 0 350 40] ${next ? `/Resources << /XObject << /X ${next} 0 R >> >> ` : ''}`);
    pdf.update({
      [a]: xo('/X Do '.repeat(1000), b),
      [b]: xo('/X Do '.repeat(1000), c),
      [c]: xo('BT /F1 8 Tf (.) Tj ET '.repeat(200)),
      8: pdf.edit(8, '/T (amount)', `/T (amount) /V (x) /AP << /N ${a} 0 R >>`),
    });
    const r = await verify(pdf.bytes);
    expect(verdict(r)).toEqual({ integrity: 'modified', signatures: [['Ana', true, true]], attacks: ['shadow-replace'] });
  });
});

describe('objects of the signed revision replaced', () => {
  /** A text field valued "Ana" that shows "Ana", in a blank part of the page. */
  function filledField(): HandPdf {
    const pdf = HandPdf.base([
      '<< /FT /Tx /T (payee) /V (Ana) /Type /Annot /Subtype /Widget /Rect [50 500 250 520] /P 3 0 R /F 4 /AP << /N 9 0 R >> >>',
      form('BT /F1 12 Tf 2 5 Td (Ana) Tj ET', '0 0 200 20'),
    ]);
    return pdf.update({
      6: pdf.edit(6, '/Fields [7 0 R]', '/Fields [7 0 R 8 0 R]'),
      3: pdf.edit(3, '/Annots [7 0 R]', '/Annots [7 0 R 8 0 R]'),
    });
  }

  it("the field's appearance stream rewritten in place, its value unchanged: shadow replace", async () => {
    const pdf = filledField();
    await pdf.sign(pki, { signer: ana, field: 'Ana' });
    pdf.update({ 9: form('BT /F1 12 Tf 2 5 Td (Eve) Tj ET', '0 0 200 20') });
    const r = await verify(pdf.bytes);
    expect(verdict(r)).toEqual({ integrity: 'modified', signatures: [['Ana', true, true]], attacks: ['shadow-replace'] });
    expect(disallowed(r, 'Ana')).toMatchObject([{ objectNumber: 8, category: 'other', field: 'payee' }]);
    expect(disallowed(r, 'Ana')[0].description).toMatch(/redrawn while its value stayed the same/);
  });

  it('the value changed with it: a form filling, allowed', async () => {
    const pdf = filledField();
    await pdf.sign(pki, { signer: ana, field: 'Ana' });
    pdf.update({ 8: pdf.edit(8, '/V (Ana)', '/V (Eve)'), 9: form('BT /F1 12 Tf 2 5 Td (Eve) Tj ET', '0 0 200 20') });
    const r = await verify(pdf.bytes);
    expect(verdict(r)).toEqual({ integrity: 'intact', signatures: [['Ana', true, false]], attacks: [] });
  });
});

describe('signatures added after a certification at level 2', () => {
  const eveBox = form('1 1 1 rg 0 0 360 50 re f BT /F1 18 Tf 10 20 Td (Pay 9000 EUR to Eve) Tj ET', '0 0 360 50');

  /** Ana certifies at level 2, then Bob signs a new field at `rect` whose appearance is `eveBox`. */
  async function bobSignsAt(rect: [number, number, number, number]): Promise<VerifiedPdf> {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana', docMdp: 2 });
    pdf.update({ [pdf.size]: eveBox });
    await pdf.sign(pki, { signer: bob, field: 'Bob', rect, extraField: `/AP << /N ${pdf.size - 1} 0 R >> ` });
    return verify(pdf.bytes);
  }

  it('a new signature field whose appearance repaints the certified text: sneaky signature, though its signature verifies', async () => {
    const r = await bobSignsAt([40, 740, 400, 790]);
    expect(verdict(r)).toEqual({
      integrity: 'modified',
      signatures: [
        ['Ana', true, true],
        ['Bob', true, false],
      ],
      attacks: ['sneaky-signature'],
    });
    expect(disallowed(r, 'Ana')).toMatchObject([{ category: 'other', field: 'Bob' }]);
  });

  it('the same signature drawn in a blank part of the page: allowed', async () => {
    expect(verdict(await bobSignsAt([40, 300, 400, 350]))).toEqual({
      integrity: 'intact',
      signatures: [
        ['Ana', true, false],
        ['Bob', true, false],
      ],
      attacks: [],
    });
  });
});

describe('a prepared signature field signed with a new appearance', () => {
  // Object 8: an empty signature field in a blank part of the page, its appearance dictionary
  // (object 9) and a grey box (object 10) drawn until it is signed.
  function preparedField(): HandPdf {
    const pdf = HandPdf.base([
      '<< /FT /Sig /T (Bob) /Type /Annot /Subtype /Widget /Rect [50 300 330 360] /P 3 0 R /F 4 /AP 9 0 R >>',
      '<< /N 10 0 R >>',
      form('0.9 g 0 0 280 60 re f', '0 0 280 60'),
    ]);
    return pdf.update({
      6: pdf.edit(6, '/Fields [7 0 R]', '/Fields [7 0 R 8 0 R] /SigFlags 3'),
      3: pdf.edit(3, '/Annots [7 0 R]', '/Annots [7 0 R 8 0 R]'),
    });
  }
  const bobBox = form('0.9 g 0 0 280 60 re f BT /F1 12 Tf 10 25 Td (Signed by Bob) Tj ET', '0 0 280 60');

  it("the field's own grey box rewritten in place with the signature's appearance: allowed", async () => {
    const pdf = preparedField();
    await pdf.sign(pki, { signer: ana, field: 'Ana' });
    await pdf.sign(pki, { signer: bob, field: 'Bob', preparedField: 8, alsoWrite: { 10: bobBox } });
    const r = await verify(pdf.bytes);
    expect(verdict(r)).toEqual({
      integrity: 'intact',
      signatures: [
        ['Ana', true, false],
        ['Bob', true, false],
      ],
      attacks: [],
    });
    expect(r.signatures[0].changes.find((c) => c.objectNumber === 10)).toMatchObject({ category: 'signature', allowed: true });
  });

  it('the appearance dictionary it replaced was also named by the trailer of the signed revision: a modification', async () => {
    const pdf = preparedField();
    await pdf.sign(pki, { signer: ana, field: 'Ana', trailerExtra: '/Extra 9 0 R ' });
    const fresh = pdf.size + 1; // after Bob's signature dictionary
    await pdf.sign(pki, {
      signer: bob,
      field: 'Bob',
      preparedField: 8,
      appearance: `<< /N ${fresh} 0 R >>`,
      alsoWrite: { [fresh]: bobBox },
    });
    const r = await verify(pdf.bytes);
    expect(verdict(r).signatures).toEqual([
      ['Ana', true, true],
      ['Bob', true, false],
    ]);
    expect(disallowed(r, 'Ana')).toMatchObject([{ objectNumber: 8, category: 'other', field: 'Bob' }]);
    expect(disallowed(r, 'Ana')[0].description).toMatch(/used it elsewhere too \(object 9\)/);
  });

  it('the grey box rewritten in place while the catalog also draws on it: a modification', async () => {
    const pdf = preparedField();
    pdf.update({ 1: pdf.edit(1, /^<</, '<< /Extra 10 0 R') });
    await pdf.sign(pki, { signer: ana, field: 'Ana' });
    await pdf.sign(pki, { signer: bob, field: 'Bob', preparedField: 8, alsoWrite: { 10: bobBox } });
    const r = await verify(pdf.bytes);
    expect(verdict(r).signatures[0]).toEqual(['Ana', true, true]);
    expect(disallowed(r, 'Ana').map((c) => c.objectNumber)).toEqual([8, 10]);
  });
});

describe('content marks', () => {
  async function loaded(pdf: HandPdf) {
    const doc = await PDF.load(pdf.bytes);
    const page = doc.getObject(PdfRef.of(3, 0)) as PdfDict;
    return { doc, page };
  }

  it('text is marked where it is drawn, a white rectangle hides without marking, a masked image marks without hiding', async () => {
    const pdf = HandPdf.base([
      form('1 1 1 rg 0 0 100 20 re f 0 0 1 rg 10 10 20 5 re f'),
      stream('x', '/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /SMask 9 0 R '),
      stream('q 50 0 0 10 0 0 cm /Im Do Q', '/Type /XObject /Subtype /Form /BBox [0 0 350 40] /Resources << /XObject << /Im 9 0 R >> >> '),
    ]);
    const { doc, page } = await loaded(pdf);
    const content = pageContentMarks(doc, page, page.get('Resources') as PdfDict);
    expect(content.opaque).toEqual([]);
    expect(content.ink).toHaveLength(1);
    const [x0, y0, x1, y1] = content.ink[0];
    expect([x0, Math.round(y0), Math.round(x1) > 250, Math.round(y1)]).toEqual([50, 755, true, 778]);
    const box = appearanceMarks(doc, doc.getObject(PdfRef.of(8, 0)) as PdfStream, [100, 100, 200, 120]);
    // The form's BBox [0 0 350 40] is mapped onto the rectangle: x scaled by 100/350, y by 20/40.
    expect(box.opaque.map((b) => b.map((v) => Math.round(v)))).toEqual([
      [100, 100, 129, 110],
      [103, 105, 109, 108],
    ]);
    expect(box.ink.map((b) => b.map((v) => Math.round(v)))).toEqual([[103, 105, 109, 108]]);
    const image = appearanceMarks(doc, doc.getObject(PdfRef.of(10, 0)) as PdfStream, [0, 0, 350, 40]);
    expect(image).toEqual({ ink: [[0, 0, 50, 10]], opaque: [] });
  });
  it('a form that draws itself, and forms that draw each other a thousand times over, are read within bounds', async () => {
    const pdf = HandPdf.base([
      stream('/Me Do', '/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /Me 8 0 R >> >> '),
      stream('/B Do '.repeat(1000), '/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /B 10 0 R >> >> '),
      stream('/C Do '.repeat(1000), '/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /C 11 0 R >> >> '),
      stream('0 0 5 5 re f '.repeat(1000), '/Type /XObject /Subtype /Form /BBox [0 0 10 10] '),
    ]);
    const doc = await PDF.load(pdf.bytes);
    const self = appearanceMarks(doc, doc.getObject(PdfRef.of(8, 0)) as PdfStream, [0, 0, 10, 10]);
    expect(self.ink).toEqual([[0, 0, 10, 10]]); // the cycle counts as marking its whole box
    // 10^9 rectangles if followed: the budget stops the reading, which then marks everything.
    const bomb = appearanceMarks(doc, doc.getObject(PdfRef.of(9, 0)) as PdfStream, [0, 0, 10, 10]);
    expect(bomb.ink.some((b) => b[0] < -1e8 && b[2] > 1e8)).toBe(true);
  });
});

describe('what writers change beside a signature or a filled field, drawing nothing', () => {
  const intact = (r: VerifiedPdf) => [r.documentIntegrity, r.signatures.filter((s) => s.modifiedAfterSigning).map((s) => s.fieldName)];

  it('the catalog /Version raised and developer extensions added in an object of their own: allowed', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana' });
    const ext = pdf.size;
    pdf.update({
      [ext]: '<< /ADBE << /BaseVersion /1.7 /ExtensionLevel 8 >> >>',
      1: pdf.edit(1, /^<</, `<< /Version /2.0 /Extensions ${ext} 0 R`),
    });
    expect(intact(await verify(pdf.bytes))).toEqual(['intact', []]);
  });

  it('an empty update whose trailer declares /Size 1 removes nothing: allowed', async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana' });
    const at = pdf.bytes.length;
    const prev = pdf.bytes.toString('latin1').lastIndexOf('\nxref\n') + 1;
    const empty = `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 /Root 1 0 R /Prev ${prev} >>\nstartxref\n${at}\n%%EOF\n`;
    pdf.bytes = Buffer.concat([pdf.bytes, Buffer.from(empty, 'latin1')]);
    await pdf.sign(pki, { signer: bob, field: 'Bob' });
    const r = await verify(pdf.bytes);
    expect(r.totalRevisions).toBe(4);
    expect(intact(r)).toEqual(['intact', []]);
  });

  it("a signature field with its /Kids in an array of its own, added to the form's own /Fields array: allowed", async () => {
    const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana' });
    const list = pdf.size;
    const fields = /\/Fields \[([^\]]*)\]/.exec(String(pdf.objects.get(6)))?.[1];
    pdf.update({ [list]: `[${fields}]`, 6: pdf.edit(6, /\/Fields \[[^\]]*\]/, `/Fields ${list} 0 R`) });
    const [field, kids, widget] = [pdf.size, pdf.size + 1, pdf.size + 2];
    pdf.update({
      [field]: `<< /FT /Sig /T (Bob) /Kids ${kids} 0 R >>`,
      [kids]: `[${widget} 0 R]`,
      [widget]: `<< /Type /Annot /Subtype /Widget /Parent ${field} 0 R /Rect [0 0 0 0] /P 3 0 R /F 132 >>`,
      [list]: `[${fields} ${field} 0 R]`,
      3: pdf.edit(3, '/Annots [', `/Annots [${widget} 0 R `),
    });
    const r = await verify(pdf.bytes);
    expect(intact(r)).toEqual(['intact', []]);
    const last = r.signatures[0].changes.filter((c) => c.revision === 4 && (c.objectNumber === list || c.objectNumber === kids));
    expect(last.map((c) => c.category)).toEqual(['signature', 'structure']);
  });

  it('the structure tree grows by an element for a new widget: allowed; an existing element given other alternate text: modified', async () => {
    const tagged = () => {
      const pdf = HandPdf.base([
        '<< /Type /StructTreeRoot /K 9 0 R /ParentTreeNextKey 1 >>',
        '<< /Type /StructElem /S /P /P 8 0 R /Alt (Pay 100 EUR to Ana) /K 0 /Pg 3 0 R >>',
      ]);
      return pdf.update({ 1: pdf.edit(1, /^<</, '<< /StructTreeRoot 8 0 R') });
    };
    const grown = tagged();
    await grown.sign(pki, { signer: ana, field: 'Ana' });
    const elem = grown.size;
    grown.update({
      [elem]: '<< /Type /StructElem /S /Form /P 8 0 R /K << /Type /OBJR /Obj 7 0 R >> >>',
      8: grown.edit(8, '/K 9 0 R', `/K [9 0 R ${elem} 0 R]`),
    });
    expect(intact(await verify(grown.bytes))).toEqual(['intact', []]);

    const retold = tagged();
    await retold.sign(pki, { signer: ana, field: 'Ana' });
    retold.update({ 9: retold.edit(9, '(Pay 100 EUR to Ana)', '(Pay 9000 EUR to Eve)') });
    expect(intact(await verify(retold.bytes))).toEqual(['modified', ['Ana']]);
  });

  it('a choice field filled (/I, /DA) with a font added to the default resources held in an object of their own: allowed', async () => {
    const pdf = HandPdf.base([
      '<< /Font << /F1 5 0 R >> >>',
      '<< /FT /Ch /T (plan) /Opt [(A) (B)] /DA (/F1 10 Tf 0 g) /Type /Annot /Subtype /Widget /Rect [50 400 250 420] /P 3 0 R /F 4 >>',
    ]);
    pdf.update({
      6: pdf.edit(6, '/Fields [7 0 R]', '/Fields [7 0 R 9 0 R] /DR 8 0 R'),
      3: pdf.edit(3, '/Annots [7 0 R]', '/Annots [7 0 R 9 0 R]'),
    });
    await pdf.sign(pki, { signer: ana, field: 'Ana' });
    const font = pdf.size;
    const ap = font + 1;
    pdf.update({
      [font]: '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>',
      [ap]: stream(
        'BT /F2 10 Tf 2 5 Td (B) Tj ET',
        `/Type /XObject /Subtype /Form /BBox [0 0 200 20] /Resources << /Font << /F2 ${font} 0 R >> >> `,
      ),
      8: `<< /Font << /F1 5 0 R /F2 ${font} 0 R >> >>`,
      9: pdf.edit(9, '/DA (/F1 10 Tf 0 g)', `/DA (/F2 10 Tf 0 g) /V (B) /I [1] /AP << /N ${ap} 0 R >>`),
    });
    expect(intact(await verify(pdf.bytes))).toEqual(['intact', []]);
  });
  it("a page's /Resources and its font re-pointed at new objects holding identical copies: allowed; a copy that differs: modified", async () => {
    const copied = async (font: string) => {
      const pdf = HandPdf.base([], '/PieceInfo 8 0 R ').update({ 8: '<< /Self 8 0 R /Note (kept) >>' });
      await pdf.sign(pki, { signer: ana, field: 'Ana' });
      const [resources, fontCopy, piece] = [pdf.size, pdf.size + 1, pdf.size + 2];
      pdf.update({
        // Keys in another order, the inline /Resources made an object of its own, and a
        // dictionary that names itself copied as one that names itself: all read alike.
        [resources]: `<< /Font << /F1 ${fontCopy} 0 R >> >>`,
        [fontCopy]: font,
        [piece]: `<< /Note (kept) /Self ${piece} 0 R >>`,
        3: pdf
          .edit(3, '/Resources << /Font << /F1 5 0 R >> >>', `/Resources ${resources} 0 R`)
          .replace('/PieceInfo 8 0 R', `/PieceInfo ${piece} 0 R`),
      });
      return { r: await verify(pdf.bytes), added: [resources, fontCopy, piece] };
    };
    const same = await copied('<< /BaseFont /Helvetica /Subtype /Type1 /Type /Font >>');
    expect(intact(same.r)).toEqual(['intact', []]);
    const last = same.r.signatures[0].changes.filter((c) => c.revision === 4);
    expect(last.map((c) => [c.objectNumber, c.category, c.allowed])).toEqual(same.added.map((n) => [n, 'structure', true]));

    const other = await copied('<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>');
    expect(intact(other.r)).toEqual(['modified', ['Ana']]);
    expect(disallowed(other.r, 'Ana').map((c) => c.objectNumber)).toContain(3);
  });

  it('a copy too large to compare within the bound counts as changed, never as the same', async () => {
    const big = `[${Array.from({ length: 25_000 }, (_, i) => i).join(' ')}]`;
    const pdf = HandPdf.base([], '/PieceInfo 8 0 R ').update({ 8: big });
    await pdf.sign(pki, { signer: ana, field: 'Ana' });
    const copy = pdf.size;
    pdf.update({ [copy]: big, 3: pdf.edit(3, '/PieceInfo 8 0 R', `/PieceInfo ${copy} 0 R`) });
    const r = await verify(pdf.bytes);
    expect(intact(r)).toEqual(['modified', ['Ana']]);
    expect(disallowed(r, 'Ana').map((c) => c.objectNumber)).toContain(3);
  });

  it('the catalog written as a new object with the same pages and form, plus /Version, /Extensions and a DSS: allowed; with an /OpenAction: modified', async () => {
    /** The last update's trailer names `n` as the catalog instead of object 1. */
    const rootTo = (pdf: HandPdf, n: number) => {
      const text = pdf.bytes.toString('latin1');
      const at = text.lastIndexOf('/Root 1 0 R');
      pdf.bytes = Buffer.concat([pdf.bytes.subarray(0, at), Buffer.from(`/Root ${n} 0 R`), pdf.bytes.subarray(at + 11)]);
    };
    const rewritten = async (extra: string) => {
      const pdf = await HandPdf.base().sign(pki, { signer: ana, field: 'Ana' });
      const [catalog, ext] = [pdf.size, pdf.size + 1];
      pdf.update({
        [ext]: '<< /ESIC << /BaseVersion /1.7 /ExtensionLevel 1 >> >>',
        [catalog]: `<< /AcroForm 6 0 R /DSS << /Certs [] >> /Extensions ${ext} 0 R /Version /2.0 /Pages 2 0 R /Type /Catalog ${extra}>>`,
      });
      rootTo(pdf, catalog);
      return { r: await verify(pdf.bytes), catalog };
    };
    const same = await rewritten('');
    expect(same.r.totalRevisions).toBe(3);
    expect(intact(same.r)).toEqual(['intact', []]);
    expect(same.r.signatures[0].changes.find((c) => c.objectNumber === same.catalog)?.description).toMatch(/catalog written anew/);

    const opened = await rewritten('/OpenAction << /S /JavaScript /JS (app.alert(1)) >> ');
    expect(intact(opened.r)).toEqual(['modified', ['Ana']]);
    expect(disallowed(opened.r, 'Ana').map((c) => c.description)).toEqual([
      'document catalog written anew: document catalog changed: /OpenAction',
    ]);
  });
});

describe('comments (annotations that are no field) after a certification', () => {
  const note = (y: number) => `<< /Type /Annot /Subtype /Square /Rect [40 ${y} 400 ${y + 50}] /P 3 0 R /AP << /N 9 0 R >> >>`;
  const whiteBox = form('1 1 1 rg 0 0 360 50 re f', '0 0 360 50');

  /** A comment in a blank part of the page (object 8, its appearance 9), then a certification. */
  async function commented(level: 2 | 3): Promise<HandPdf> {
    const pdf = HandPdf.base([note(300), form('0 0 1 RG 2 2 356 46 re S', '0 0 360 50')]);
    pdf.update({ 3: pdf.edit(3, '/Annots [7 0 R]', '/Annots [7 0 R 8 0 R]') });
    return pdf.sign(pki, { signer: ana, field: 'Ana', docMdp: level });
  }

  it('an existing comment moved over the certified text with an opaque appearance: allowed at level 3, evil annotation at level 2', async () => {
    for (const level of [3, 2] as const) {
      const pdf = await commented(level);
      pdf.update({ 8: note(740), 9: whiteBox });
      const r = await verify(pdf.bytes);
      expect(r.signatures[0].changes.filter((c) => c.objectNumber === 8).map((c) => c.category)).toContain('annotation');
      expect(verdict(r)).toEqual(
        level === 3
          ? { integrity: 'intact', signatures: [['Ana', true, false]], attacks: [] }
          : { integrity: 'modified', signatures: [['Ana', true, true]], attacks: ['evil-annotation'] },
      );
    }
  });
});
