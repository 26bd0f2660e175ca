// Step 3: each signer's boxes and fields on the pages. "Add box for <signer>" (or a field) puts it
// on the page in view; the person takes it to its place (PlacedBox.tsx). A signer may have several
// boxes: each is one sticker of the same signer. Fields are placed the same way and go to the
// create body's signer_fields.
import { useRef } from 'react';
import { usePageInView } from '../../use-pdf-document';
import { usePanelI18n } from '../panel-i18n';
import { ids } from './field-errors';
import { newBoxRect, type Rect } from './geometry';
import { PlacedBox } from './PlacedBox';
import { PreparedPages } from './PreparedPages';
import { SignerPlacement } from './SignerPlacement';
import { type FieldType, newKey, type PrepBox, type PrepField } from './state';
import type { Prepare } from './use-prepare';
import type { PreparedPdf } from './use-prepared-pdf';

/** A new box's size in points: a signature's usual room. */
const NEW_BOX = { width: 180, height: 60 };
/** A new field's size in points, by type: a line of text, a date, a tick, initials, a choice. */
const NEW_FIELD: Record<FieldType, { width: number; height: number }> = {
  text: { width: 160, height: 22 },
  date: { width: 90, height: 22 },
  checkbox: { width: 16, height: 16 },
  initials: { width: 60, height: 36 },
  dropdown: { width: 140, height: 22 },
};

export function PlacementStep({ p, pdf }: { p: Prepare; pdf: PreparedPdf | null }) {
  const { t } = usePanelI18n();
  const s = p.state!;
  const pages = useRef<HTMLDivElement>(null);
  const inView = usePageInView(pages);
  const whoOf = (key: string) => {
    const i = s.signers.findIndex((g) => g.key === key);
    return { name: s.signers[i]?.name.trim() || t.signerN(i + 1), colour: i };
  };
  /** Where a new box or field goes: the page in view, below what is already there. */
  const place = (size: { width: number; height: number }) => {
    const page = Math.min(inView, pdf!.pages.length - 1);
    const here = s.boxes.filter((b) => b.page === page).length + s.fields.filter((f) => f.page === page).length;
    return { page, rect: newBoxRect(pdf!.pages[page], size.width, size.height, (here * 70) % 560) };
  };
  const addBox = (signer: string) => {
    const box: PrepBox = { key: newKey('b'), signer, ...place(NEW_BOX) };
    p.update((x) => ({ ...x, boxes: [...x.boxes, box] }), ids.signerBoxes(signer));
    p.focus(ids.box(box.key));
  };
  const addField = (signer: string, type: FieldType) => {
    const field: PrepField = {
      key: newKey('f'),
      signer,
      type,
      ...place(NEW_FIELD[type]),
      required: false,
      label: '',
      format: '',
      pattern: '',
      options: '',
      dateFormat: '',
    };
    p.update((x) => ({ ...x, fields: [...x.fields, field] }));
    p.focus(ids.field(field.key));
  };
  const moveBox = (key: string, rect: Rect) =>
    p.update((x) => ({ ...x, boxes: x.boxes.map((b) => (b.key === key ? { ...b, rect } : b)) }), ids.box(key));
  const moveField = (key: string, rect: Rect) =>
    p.update((x) => ({ ...x, fields: x.fields.map((f) => (f.key === key ? { ...f, rect } : f)) }), ids.field(key));
  const removeBox = (box: PrepBox) => {
    p.update((x) => ({ ...x, boxes: x.boxes.filter((b) => b.key !== box.key) }), ids.box(box.key));
    p.focus(`add-box-${box.signer}`);
  };
  const removeField = (field: PrepField) => {
    p.update((x) => ({ ...x, fields: x.fields.filter((f) => f.key !== field.key) }), ids.field(field.key));
    p.focus(`add-field-${field.signer}`);
  };

  return (
    <>
      <p className="hint" id="placement-keys">
        {t.placementIntro}
      </p>
      <ul className="prepare-signer-boxes">
        {s.signers.map((signer) => (
          <SignerPlacement
            key={signer.key}
            p={p}
            signer={signer}
            who={whoOf(signer.key)}
            ready={!!pdf}
            onAddBox={() => addBox(signer.key)}
            onAddField={(type) => addField(signer.key, type)}
            onRemoveBox={removeBox}
            onRemoveField={removeField}
          />
        ))}
      </ul>
      {pdf && (
        <PreparedPages
          pdf={pdf}
          pagesRef={pages}
          over={(index, page) => [
            ...s.boxes
              .filter((b) => b.page === index)
              .map((b) => {
                const who = whoOf(b.signer);
                const error = p.errors[ids.box(b.key)];
                return (
                  <PlacedBox
                    key={b.key}
                    id={ids.box(b.key)}
                    rect={b.rect}
                    geometry={pdf.pages[index]}
                    label={who.name}
                    name={t.boxAria(who.name, index + 1)}
                    colour={who.colour}
                    page={page}
                    describedBy={error ? `placement-keys ${ids.box(b.key)}-error` : 'placement-keys'}
                    invalid={!!error}
                    onChange={(rect) => moveBox(b.key, rect)}
                    onDelete={() => removeBox(b)}
                  />
                );
              }),
            ...s.fields
              .filter((f) => f.page === index)
              .map((f) => {
                const who = whoOf(f.signer);
                const error = p.errors[ids.field(f.key)];
                // What the box shows is the start of what a screen reader says (WCAG 2.5.3, label in name).
                const shown = `${f.label.trim() || t.fieldTypes[f.type]} · ${who.name}`;
                return (
                  <PlacedBox
                    key={f.key}
                    id={ids.field(f.key)}
                    field
                    rect={f.rect}
                    geometry={pdf.pages[index]}
                    label={shown}
                    name={t.fieldAria(shown, index + 1)}
                    colour={who.colour}
                    page={page}
                    describedBy={error ? `placement-keys ${ids.field(f.key)}-error` : 'placement-keys'}
                    invalid={!!error}
                    onChange={(rect) => moveField(f.key, rect)}
                    onDelete={() => removeField(f)}
                  />
                );
              }),
          ]}
        />
      )}
    </>
  );
}
