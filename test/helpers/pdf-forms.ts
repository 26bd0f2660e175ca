// Fillable PDFs made for the template tests with the PDF library, and the external tools
// (poppler's pdftotext, qpdf) that check what the engines produce independently of that library.
//
// @libpdf/core creates text fields, checkboxes, radio groups, dropdowns and list boxes with
// widgets. What it does not do is done here with its low-level object API:
// - a hierarchical field ("person.name": a parent field "person" with a kid "name");
// - a checkbox whose on-state is not "Yes": createCheckbox ignores `onValue` for the widget (the
//   appearance states are always /Yes and /Off), so the state is renamed afterwards;
// - a signature field with a widget on the page: createSignatureField makes one without widgets
//   (the library adds it when signing);
// - a radio group whose appearance states ("0", "1", "2") differ from its /Opt export values;
// - a push button, which the library has no API for.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfRef, PdfString, type FormField, type PDFPage } from '@libpdf/core';

export const RADIO_OPTIONS = ['basic', 'pro', 'enterprise'];
export const COUNTRY_OPTIONS = ['France', 'Germany', 'Spain'];
export const COLOR_OPTIONS = ['red', 'green', 'blue'];
export const CHECKBOX_ON = 'Accepted';
/** Export values (/Opt) of the radio group "size", whose appearance states are "0", "1", "2". */
export const SIZE_OPTIONS = ['S', 'M', 'L'];
/** Where the widget of each "size" option is (x of its left edge; all at y 500, 16×16). */
export const SIZE_WIDGET_X = [150, 190, 230];

/** The fields of makeFormPdf() in form order, as detectPdfForm should report them. */
export const FORM_FIELDS = [
  { id: 'person.name', type: 'text' },
  { id: 'city', type: 'text' },
  { id: 'agree', type: 'checkbox', options: ['Off', CHECKBOX_ON] },
  { id: 'plan', type: 'radio', options: RADIO_OPTIONS },
  { id: 'size', type: 'radio', options: SIZE_OPTIONS },
  { id: 'country', type: 'choice', options: COUNTRY_OPTIONS },
  { id: 'color', type: 'choice', options: COLOR_OPTIONS },
] as const;

/**
 * A one-page A4 form: text fields "person.name" (hierarchical) and "city" (max 20 characters),
 * checkbox "agree" (on-state "Accepted"), radio groups "plan" (3 options) and "size" (3 options
 * with /Opt export values and numbered appearance states), dropdown "country",
 * list box "color", then a signature field "signature" and a push button "reset" (both to be
 * skipped by detection). Labels are drawn as page text unless `labels` is false. `readOnly` fields get
 * the ReadOnly flag.
 */
export async function makeFormPdf(opts: { readOnly?: string[]; labels?: boolean } = {}): Promise<Buffer> {
  const pdf = PDF.create();
  const page = pdf.addPage({ width: 595.28, height: 841.89 });
  const form = pdf.getOrCreateForm();
  // Without labels the page has no content stream at all, only the fields' widgets.
  const labels = opts.labels ?? true;
  const label = (text: string, y: number) => labels && page.drawText(text, { x: 50, y: y + 6, size: 11 });
  if (labels) {
    page.drawText('Sello form test', { x: 50, y: 790, size: 18 });
  }

  // Hierarchical text field: created as "name", then moved under a parent field "person".
  label('Name', 700);
  const name = form.createTextField('name', { fontSize: 12 });
  page.drawField(name, { x: 150, y: 700, width: 300, height: 22 });
  nestUnder(pdf, name, 'person');

  label('City', 660);
  const city = form.createTextField('city', { fontSize: 12, maxLength: 20 });
  page.drawField(city, { x: 150, y: 660, width: 300, height: 22 });

  label('I agree', 620);
  const agree = form.createCheckbox('agree');
  page.drawField(agree, { x: 150, y: 620, width: 16, height: 16 });
  renameOnState(pdf, agree, 'Yes', CHECKBOX_ON);

  label('Plan', 580);
  const plan = form.createRadioGroup('plan', { options: RADIO_OPTIONS });
  RADIO_OPTIONS.forEach((option, i) => {
    page.drawField(plan, { x: 150 + 40 * i, y: 580, width: 16, height: 16, option });
  });

  // Export values in /Opt, appearance states named by position ("0", "1", "2"), as Acrobat does
  // for radio buttons whose export values are not plain names (ISO 32000-1 12.7.4.2.4).
  label('Size', 500);
  const size = form.createRadioGroup('size', { options: SIZE_OPTIONS });
  SIZE_OPTIONS.forEach((option, i) => {
    page.drawField(size, { x: SIZE_WIDGET_X[i], y: 500, width: 16, height: 16, option });
  });
  size.getWidgets().forEach((widget, i) => {
    renameOnState(pdf, { getWidgets: () => [widget] }, SIZE_OPTIONS[i], String(i));
  });

  label('Country', 540);
  const country = form.createDropdown('country', { options: COUNTRY_OPTIONS, fontSize: 12 });
  page.drawField(country, { x: 150, y: 540, width: 200, height: 22 });

  label('Color', 420);
  const color = form.createListbox('color', { options: COLOR_OPTIONS, fontSize: 12 });
  page.drawField(color, { x: 150, y: 400, width: 200, height: 60 });

  label('Signature', 320);
  const signature = form.createSignatureField('signature');
  addWidget(pdf, page, signature.acroField(), signature.getRef(), [150, 300, 400, 360]);

  addPushButton(pdf, page, 'reset', [450, 300, 530, 322]);

  form.reloadFields();
  for (const id of opts.readOnly ?? []) {
    const dict = form.getField(id)!.acroField();
    const flags = dict.get('Ff');
    dict.set('Ff', PdfNumber.of((flags instanceof PdfNumber ? flags.value : 0) | 1));
  }
  return Buffer.from(await pdf.save());
}

/** Move a root field under a new parent field, making its fully qualified name `parent.name`. */
function nestUnder(pdf: PDF, field: FormField, parentName: string): void {
  const acroForm = pdf.getForm()!.acroForm();
  const ref = field.getRef()!;
  const parentRef = pdf.register(PdfDict.of({ T: PdfString.fromString(parentName), Kids: PdfArray.of(ref) }));
  field.acroField().set('Parent', parentRef);
  acroForm.removeField(ref);
  acroForm.addField(parentRef);
}

/** Rename an on appearance state of a checkbox's or radio button's widgets (their /AP dictionaries). */
function renameOnState(pdf: PDF, field: Pick<FormField, 'getWidgets'>, from: string, to: string): void {
  const resolve = (ref: PdfRef) => pdf.getObject(ref);
  for (const widget of field.getWidgets()) {
    const ap = widget.dict.getDict('AP', resolve);
    if (!ap) {
      continue;
    }
    for (const kind of ['N', 'D', 'R']) {
      const states = ap.getDict(kind, resolve);
      if (states?.has(from)) {
        states.set(to, states.get(from)!);
        states.delete(from);
      }
    }
  }
}

function addWidget(pdf: PDF, page: PDFPage, fieldDict: PdfDict, fieldRef: PdfRef | null, rect: number[]) {
  const widget = PdfDict.of({
    Type: PdfName.of('Annot'),
    Subtype: PdfName.of('Widget'),
    Rect: PdfArray.of(...rect.map((n) => PdfNumber.of(n))),
    F: PdfNumber.of(4),
    P: page.ref,
    Parent: fieldRef!,
  });
  const widgetRef = pdf.register(widget);
  let kids = fieldDict.get('Kids');
  if (!(kids instanceof PdfArray)) {
    kids = new PdfArray([]);
    fieldDict.set('Kids', kids);
  }
  (kids as PdfArray).push(widgetRef);
  let annots = page.dict.get('Annots');
  if (!(annots instanceof PdfArray)) {
    annots = new PdfArray([]);
    page.dict.set('Annots', annots);
  }
  (annots as PdfArray).push(widgetRef);
}

function addPushButton(pdf: PDF, page: PDFPage, name: string, rect: number[]): void {
  const PUSHBUTTON = 1 << 16;
  const field = PdfDict.of({ FT: PdfName.of('Btn'), Ff: PdfNumber.of(PUSHBUTTON), T: PdfString.fromString(name), Kids: new PdfArray([]) });
  const ref = pdf.register(field);
  addWidget(pdf, page, field, ref, rect);
  pdf.getForm()!.acroForm().addField(ref);
}

function withTempFile<T>(bytes: Uint8Array, run: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'sello-pdf-forms-'));
  try {
    const path = join(dir, 'f.pdf');
    writeFileSync(path, bytes);
    return run(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The text poppler extracts from the PDF (UTF-8), of the first page's given area if any: a
 * rectangle in PDF points, origin at the bottom left as in PDF (pageHeight converts it).
 */
export function pdfToText(bytes: Uint8Array, area?: { x: number; y: number; width: number; height: number; pageHeight: number }): string {
  const crop = area
    ? [
        '-f',
        '1',
        '-l',
        '1',
        '-r',
        '72',
        '-x',
        String(Math.floor(area.x)),
        '-y',
        String(Math.floor(area.pageHeight - area.y - area.height)),
        '-W',
        String(Math.ceil(area.width)),
        '-H',
        String(Math.ceil(area.height)),
      ]
    : [];
  return withTempFile(bytes, (path) => execFileSync('pdftotext', ['-enc', 'UTF-8', ...crop, path, '-'], { encoding: 'utf8' }));
}

/**
 * What qpdf sees of the interactive form: whether the catalog has an AcroForm, its fields' full
 * names, and how many widget annotations the pages still carry.
 */
export function qpdfAcroForm(bytes: Uint8Array): { hasAcroForm: boolean; fields: string[]; widgets: number } {
  return withTempFile(bytes, (path) => {
    const out = execFileSync('qpdf', ['--json', '--json-key=acroform', '--json-key=pages', '--json-key=qpdf', path], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    type Value = Record<string, unknown> | unknown[] | string | number | boolean | null;
    const json = JSON.parse(out) as {
      acroform: { hasacroform: boolean; fields: { fullname: string }[] };
      pages: { object: string }[];
      qpdf: [unknown, Record<string, { value?: Value }>];
    };
    const objects = json.qpdf[1];
    const resolve = (v: Value | undefined): Value | undefined => (typeof v === 'string' && / R$/.test(v) ? objects[`obj:${v}`]?.value : v);
    let widgets = 0;
    for (const page of json.pages) {
      const dict = resolve(page.object) as Record<string, Value>;
      const annots = resolve(dict['/Annots']);
      for (const a of Array.isArray(annots) ? annots : []) {
        const annot = resolve(a as Value) as Record<string, Value> | undefined;
        if (annot?.['/Subtype'] === '/Widget') {
          widgets++;
        }
      }
    }
    return { hasAcroForm: json.acroform.hasacroform, fields: json.acroform.fields.map((f) => f.fullname), widgets };
  });
}

/** How many times images (not soft masks) are drawn in the PDF, as poppler's pdfimages lists them. */
export function pdfImageCount(bytes: Uint8Array): number {
  return withTempFile(bytes, (path) => {
    const list = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' });
    return list
      .split('\n')
      .slice(2)
      .filter((line) => /^\s*\d+\s+\d+\s+image\b/.test(line)).length;
  });
}
