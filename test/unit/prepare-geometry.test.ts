// The prepare page's boxes: where a box shown on a page lies in the API's rect (points of the
// unrotated page from the CropBox's lower-left corner) for each /Rotate, the moves and resizes that
// keep it on the page, the create body the editor's state stands for, and where the service's
// refusal of a field is shown.
import { describe, expect, it } from 'vitest';
import { errorField, errorPlace, ids } from '../../web/src/panel/prepare/field-errors.js';
import {
  moveShown,
  newBoxRect,
  type PageGeometry,
  pageGeometry,
  rectToShown,
  resizeShown,
  shownSize,
  shownToRect,
} from '../../web/src/panel/prepare/geometry.js';
import { emptyState, type PrepState, toPayload } from '../../web/src/panel/prepare/state.js';

const A4 = { width: 595.28, height: 841.89 };
const rect = { lx: 50, ly: 60, tx: 250, ty: 120 };

describe('a box on the page as shown and in PDF points', () => {
  it('on an upright page: the top-left of the screen is the top of the page', () => {
    const g = { ...A4, rotation: 0 };
    const s = rectToShown(rect, g);
    expect(s.left).toBeCloseTo(50 / 595.28, 10);
    expect(s.top).toBeCloseTo((841.89 - 120) / 841.89, 10);
    expect(s.width).toBeCloseTo(200 / 595.28, 10);
    expect(s.height).toBeCloseTo(60 / 841.89, 10);
  });

  it('on a page turned a quarter clockwise, the unrotated x runs down the screen and y across', () => {
    const g = { ...A4, rotation: 90 };
    expect(shownSize(g)).toEqual({ width: 841.89, height: 595.28 });
    const s = rectToShown(rect, g);
    expect(s.left).toBeCloseTo(60 / 841.89, 10);
    expect(s.top).toBeCloseTo(50 / 595.28, 10);
    expect(s.width).toBeCloseTo(60 / 841.89, 10);
    expect(s.height).toBeCloseTo(200 / 595.28, 10);
  });

  it('comes back to the same rect for every rotation, and a move of 5 points is 5 points', () => {
    for (const rotation of [0, 90, 180, 270, -90, 450]) {
      const g: PageGeometry = { ...A4, rotation };
      expect(shownToRect(rectToShown(rect, g), g), `rotation ${rotation}`).toEqual(rect);
      const size = shownSize(g);
      const right = shownToRect(moveShown(rectToShown(rect, g), 5 / size.width, 0), g);
      // Moving right on the screen: +5 in x upright, +5 in y turned 90, −5 in x at 180, −5 in y at 270.
      const turn = ((rotation % 360) + 360) % 360;
      const expected = {
        0: { ...rect, lx: 55, tx: 255 },
        90: { ...rect, ly: 65, ty: 125 },
        180: { ...rect, lx: 45, tx: 245 },
        270: { ...rect, ly: 55, ty: 115 },
      }[turn as 0 | 90 | 180 | 270];
      expect(right, `rotation ${rotation}`).toEqual(expected);
    }
  });

  it('stays inside the page when dragged beyond it, to the hundredth of a point the service accepts', () => {
    const g = { ...A4, rotation: 0 };
    const s = moveShown(rectToShown(rect, g), 5, -5);
    expect(shownToRect(s, g)).toEqual({ lx: 395.28, ly: 781.89, tx: 595.28, ty: 841.89 });
  });

  it('resizes from a corner with the opposite corner fixed, never below the smallest size', () => {
    const g = { ...A4, rotation: 0 };
    const s = rectToShown(rect, g);
    expect(shownToRect(resizeShown(s, 'se', 10 / 595.28, 20 / 841.89, 0, 0), g)).toEqual({ lx: 50, ly: 40, tx: 260, ty: 120 });
    expect(shownToRect(resizeShown(s, 'nw', -10 / 595.28, -20 / 841.89, 0, 0), g)).toEqual({ lx: 40, ly: 60, tx: 250, ty: 140 });
    const min = resizeShown(s, 'ne', -1, 1, 20 / 595.28, 10 / 841.89);
    expect(shownToRect(min, g)).toEqual({ lx: 50, ly: 60, tx: 70, ty: 70 });
  });

  it("a page's geometry is its CropBox in points: a /UserUnit 72 Letter page in inches is 612 × 792", () => {
    expect(pageGeometry({ view: [0, 0, 8.5, 11], rotate: 0, userUnit: 72 })).toEqual({ width: 612, height: 792, rotation: 0 });
    expect(pageGeometry({ view: [10, 20, 310, 420], rotate: 90, userUnit: 1 })).toEqual({ width: 300, height: 400, rotation: 90 });
  });

  it('a new box is placed near the top-left, each next one lower', () => {
    const g = { ...A4, rotation: 0 };
    expect(newBoxRect(g, 180, 60, 0)).toEqual({ lx: 59.53, ly: 697.7, tx: 239.53, ty: 757.7 });
    expect(newBoxRect(g, 180, 60, 70)).toEqual({ lx: 59.53, ly: 627.7, tx: 239.53, ty: 687.7 });
  });
});

function twoSigners(): PrepState {
  const s = emptyState();
  return {
    ...s,
    name: 'Contrato',
    source: { ...s.source, kind: 'pdf', pdf: 'JVBERi0=', fileName: 'contrato.pdf' },
    signers: [
      { key: 'a', name: 'Ana', authority: 'EMAIL_LINK', data: ' ana@example.com ' },
      { key: 'b', name: '', authority: 'SMS', data: '+525512345678' },
    ],
    // Bruno's box first on the page; Ana's two boxes come first in the body, in signer order.
    boxes: [
      { key: 'b1', signer: 'b', page: 0, rect },
      { key: 'a1', signer: 'a', page: 0, rect },
      { key: 'a2', signer: 'a', page: 1, rect },
    ],
    options: { ...s.options, ordered: true, remindEvery: '3', expiration: '2031-01-31', nom151: 'no' },
  };
}

describe('the create body of the editor state', () => {
  it('one sticker per box, grouped by signer in their order; only the options chosen', () => {
    expect(toPayload(twoSigners())).toEqual({
      b64_doc: 'JVBERi0=',
      name: 'Contrato',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 0, rect },
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana', page: 1, rect },
        { authority: 'SMS', data: '+525512345678', page: 0, rect },
      ],
      workflow: { ordered: true, remind_every: 3, expiration_date: '31/01/2031' },
      nom151: false,
    });
  });

  it('signer fields name their signer by the first sticker of theirs, with only what their type takes', () => {
    const s = twoSigners();
    const field = { required: false, label: '', format: '' as const, pattern: '', options: '', dateFormat: '' as const, page: 1, rect };
    const body = toPayload({
      ...s,
      fields: [
        {
          ...field,
          key: 'f1',
          signer: 'b',
          type: 'text',
          required: true,
          label: ' RFC ',
          format: 'pattern',
          pattern: '^[A-Z]{4}$',
          options: 'x',
        },
        { ...field, key: 'f2', signer: 'a', type: 'dropdown', options: 'Sí\n\n No \n' },
        { ...field, key: 'f3', signer: 'a', type: 'date', dateFormat: 'YYYY-MM-DD', format: 'email' },
      ],
    });
    expect(body.signer_fields).toEqual([
      { type: 'text', signer: 2, page: 1, rect, required: true, label: 'RFC', format: '^[A-Z]{4}$' },
      { type: 'dropdown', signer: 0, page: 1, rect, options: ['Sí', 'No'] },
      { type: 'date', signer: 0, page: 1, rect, date_format: 'YYYY-MM-DD' },
    ]);
    expect(toPayload(s).signer_fields).toBeUndefined();
  });

  it('a template with its values; no workflow when the service is not to send', () => {
    const s = twoSigners();
    const t: PrepState = {
      ...s,
      source: { ...s.source, kind: 'template', template: 'contrato', fields: [{ id: 'client', value: 'Ana' }], preview: 'x' },
      options: { ...s.options, flow: false },
    };
    const body = toPayload(t);
    expect(body).toMatchObject({ template: { title: 'contrato', name: 'Contrato' }, fields: [{ id: 'client', value: 'Ana' }] });
    expect(body.b64_doc).toBeUndefined();
    expect(body.workflow).toBeUndefined();
  });
});

describe("the service's error at its field", () => {
  const s = twoSigners();
  it('a sticker names its signer, or its box', () => {
    expect(errorField({ sticker_index: 2, field: 'data', rule: 'x' }, 'stickers[2].data: x')).toBe('stickers[2].data');
    expect(errorPlace('stickers[2].data', s)).toEqual({ step: 1, id: ids.signer('b', 'data') });
    expect(errorPlace('stickers[1].rect', s)).toEqual({ step: 2, id: ids.box('a2') });
    expect(errorPlace('stickers[0].authority', s)).toEqual({ step: 1, id: ids.signer('a', 'authority') });
  });

  it('the workflow, the template and the rest by the field the API names', () => {
    expect(errorField({ field: 'workflow.expiration_date' }, 'workflow.expiration_date: past')).toBe('workflow.expiration_date');
    expect(errorField(undefined, 'certified_email.to: not an email address')).toBe('certified_email.to');
    expect(errorPlace('workflow.expiration_date', s)).toEqual({ step: 3, id: ids.option('expiration') });
    expect(errorPlace('workflow.remindEvery', s)).toEqual({ step: 3, id: ids.option('remind') });
    expect(errorPlace('certified_email.to', s)).toEqual({ step: 3, id: ids.option('certified-to') });
    expect(errorPlace('fields[0].value', s)).toEqual({ step: 0, id: ids.templateField(0) });
    expect(errorPlace('b64_doc', s)).toEqual({ step: 0, id: ids.source });
    expect(errorPlace('document_set', s)).toBeNull();
  });

  it('a signer field by its place in signer_fields: its box, or the setting named', () => {
    const field = {
      required: false,
      label: '',
      format: 'pattern' as const,
      pattern: '(',
      options: '',
      dateFormat: '' as const,
      page: 0,
      rect,
    };
    const f: PrepState = { ...s, fields: [{ ...field, key: 'x', signer: 'a', type: 'text' }] };
    expect(errorPlace('signer_fields[0].rect', f)).toEqual({ step: 2, id: ids.field('x') });
    expect(errorPlace('signer_fields[0].format', f)).toEqual({ step: 2, id: ids.fieldPart('x', 'pattern') });
    expect(errorPlace('signer_fields[0].label', f)).toEqual({ step: 2, id: ids.fieldPart('x', 'label') });
  });
});
