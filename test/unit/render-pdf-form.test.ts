import { beforeAll, describe, expect, it } from 'vitest';
import { detectPdfForm, fillPdfForm } from '../../src/pdf/form/pdf-form-template.js';
import { TemplateError, type FillValues } from '../../src/render/types.js';
import { COUNTRY_OPTIONS, FORM_FIELDS, RADIO_OPTIONS, SIZE_WIDGET_X, makeFormPdf, pdfToText, qpdfAcroForm } from '../helpers/pdf-forms.js';
import { encryptWithQpdf, makePdf, qpdfCheck } from '../helpers/pdfs.js';

function values(fields: Record<string, string>): FillValues {
  return { fields: new Map(Object.entries(fields)), tables: new Map() };
}

async function templateError(promise: Promise<unknown>): Promise<TemplateError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TemplateError);
  return err as TemplateError;
}

const CHECK = '✔'; // the checked checkbox (ZapfDingbats "4"), as poppler extracts it
const DOT = '●'; // the selected radio button

let form: Buffer;
beforeAll(async () => {
  form = await makeFormPdf();
});

describe('the test form', () => {
  it('is a valid PDF with an AcroForm (qpdf)', () => {
    expect(qpdfCheck(form).ok).toBe(true);
    const acro = qpdfAcroForm(form);
    expect(acro.hasAcroForm).toBe(true);
    expect(new Set(acro.fields)).toEqual(
      new Set(['person.name', 'city', 'agree', 'plan', 'size', 'country', 'color', 'signature', 'reset']),
    );
  });
});

describe('detectPdfForm', () => {
  it('lists every fillable field in form order with its type and options', async () => {
    const detected = await detectPdfForm(form);
    expect(detected.tables).toEqual([]);
    expect(detected.fields).toEqual(
      FORM_FIELDS.map((f) => ({ id: f.id, value: '', type: f.type, ...('options' in f ? { options: [...f.options] } : {}) })),
    );
  });

  it('skips the signature field and the push button', async () => {
    const ids = (await detectPdfForm(form)).fields.map((f) => f.id);
    expect(ids).not.toContain('signature');
    expect(ids).not.toContain('reset');
  });

  it('refuses a PDF without form fields', async () => {
    const err = await templateError(detectPdfForm(await makePdf()));
    expect(err.problem).toBe('INVALID_TEMPLATE');
    expect(err.message).toBe('the PDF has no form fields');
  });

  it('refuses what is not a PDF, and an encrypted PDF', async () => {
    const notPdf = await templateError(detectPdfForm(Buffer.from('hello, not a pdf')));
    expect(notPdf.problem).toBe('INVALID_TEMPLATE');
    expect(notPdf.message).toMatch(/not a PDF/);
    const encrypted = await templateError(detectPdfForm(encryptWithQpdf(form)));
    expect(encrypted.problem).toBe('INVALID_TEMPLATE');
    expect(encrypted.message).toMatch(/encrypted/);
  });
});

describe('fillPdfForm', () => {
  const all = {
    'person.name': 'Zoë Dupont',
    city: 'Lyon',
    agree: 'yes',
    plan: 'pro',
    country: 'Germany',
    color: 'blue',
  };

  it('draws the values into the page and flattens the form away', async () => {
    const out = await fillPdfForm(form, values(all));
    const text = pdfToText(out);
    expect(text).toContain('Zoë Dupont');
    expect(text).toContain('Lyon');
    expect(text).toContain('Germany');
    expect(text).toContain(CHECK);
    expect(text.split(DOT).length - 1).toBe(1);

    // No field, widget or AcroForm left: nothing can be edited.
    expect(qpdfAcroForm(out)).toEqual({ hasAcroForm: false, fields: [], widgets: 0 });
    const again = await templateError(detectPdfForm(out));
    expect(again.problem).toBe('INVALID_TEMPLATE');

    const check = qpdfCheck(out);
    expect(check.ok, check.output).toBe(true);
    // A full save: one revision (an incremental save would keep the fillable original inside).
    expect(out.toString('latin1').match(/startxref/g)).toHaveLength(1);
  });

  it('shows text outside Latin-1 (with the bundled Roboto font)', async () => {
    const out = await fillPdfForm(form, values({ 'person.name': 'Łukasz Żółć, Иван Петров, Ωmega' }));
    expect(pdfToText(out)).toContain('Łukasz Żółć, Иван Петров, Ωmega');
  });

  it('maps true/false words to the checkbox states, and accepts its on value and Off', async () => {
    for (const on of ['true', 'YES', 'On', 'Accepted']) {
      expect(pdfToText(await fillPdfForm(form, values({ agree: on }))), on).toContain(CHECK);
    }
    for (const off of ['false', 'No', 'OFF', 'Off']) {
      expect(pdfToText(await fillPdfForm(form, values({ agree: off }))), off).not.toContain(CHECK);
    }
    const err = await templateError(fillPdfForm(form, values({ agree: 'maybe' })));
    expect(err.problem).toBe('INVALID_VALUE');
    expect(err.details).toEqual({ field: 'agree', allowed: ['Off', 'Accepted'] });
  });

  it('refuses a radio value outside the options, naming the field and the allowed values', async () => {
    const err = await templateError(fillPdfForm(form, values({ plan: 'gold' })));
    expect(err.problem).toBe('INVALID_VALUE');
    expect(err.message).toBe('plan: "gold" is not one of basic, pro, enterprise');
    expect(err.details).toEqual({ field: 'plan', allowed: RADIO_OPTIONS });
  });

  it('uses the /Opt export values of a radio group, selecting the matching widget', async () => {
    const out = await fillPdfForm(form, values({ size: 'M' }));
    const at = (i: number) => pdfToText(out, { x: SIZE_WIDGET_X[i] - 2, y: 498, width: 20, height: 20, pageHeight: 841.89 });
    expect([at(0), at(1), at(2)].map((t) => t.includes(DOT))).toEqual([false, true, false]);
    // The appearance state names are not values.
    const err = await templateError(fillPdfForm(form, values({ size: '1' })));
    expect(err.message).toBe('size: "1" is not one of S, M, L');
  });

  it('refuses a choice value outside the options', async () => {
    const err = await templateError(fillPdfForm(form, values({ country: 'Italy' })));
    expect(err.problem).toBe('INVALID_VALUE');
    expect(err.message).toBe('country: "Italy" is not one of France, Germany, Spain');
    expect(err.details).toEqual({ field: 'country', allowed: COUNTRY_OPTIONS });
  });

  it('checks every value before changing anything, and leaves the input untouched', async () => {
    const before = Buffer.from(form);
    const err = await templateError(fillPdfForm(form, values({ ...all, color: 'purple' })));
    expect(err.details).toMatchObject({ field: 'color' });
    expect(form.equals(before)).toBe(true);
  });

  it('refuses a text longer than the field allows instead of cutting it', async () => {
    const err = await templateError(fillPdfForm(form, values({ city: 'x'.repeat(21) })));
    expect(err.problem).toBe('INVALID_VALUE');
    expect(err.details).toMatchObject({ field: 'city', maxLength: 20 });
    expect(pdfToText(await fillPdfForm(form, values({ city: 'y'.repeat(20) })))).toContain('y'.repeat(20));
  });

  it('refuses characters no font can show', async () => {
    const err = await templateError(fillPdfForm(form, values({ city: '東京' })));
    expect(err.problem).toBe('INVALID_VALUE');
    expect(err.details).toMatchObject({ field: 'city' });
  });

  it('fills read-only fields too (they are flattened anyway)', async () => {
    const readOnly = await makeFormPdf({ readOnly: ['city', 'country'] });
    const text = pdfToText(await fillPdfForm(readOnly, values({ city: 'Nantes', country: 'Spain' })));
    expect(text).toContain('Nantes');
    expect(text).toContain('Spain');
  });

  it('flattens a page that has no content stream of its own', async () => {
    const bare = await makeFormPdf({ labels: false });
    const out = await fillPdfForm(bare, values({ city: 'Brest', plan: 'basic' }));
    const text = pdfToText(out);
    expect(text).toContain('Brest');
    expect(text).toContain(DOT);
    expect(qpdfCheck(out).ok).toBe(true);
  });

  it('ignores values of unknown, signature and push-button fields, and flattens unfilled fields', async () => {
    const out = await fillPdfForm(form, values({ city: 'Lille', nope: 'x', signature: 'x', reset: 'x' }));
    expect(pdfToText(out)).toContain('Lille');
    expect(qpdfAcroForm(out)).toEqual({ hasAcroForm: false, fields: [], widgets: 0 });
  });
});
