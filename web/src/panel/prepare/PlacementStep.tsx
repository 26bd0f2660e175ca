// Step 3: each signer's boxes on the pages. "Add box for <signer>" puts a box on the page in view;
// the person takes it to its place (PlacedBox.tsx). A signer may have several boxes: each is one
// sticker of the same signer.
import { useRef } from 'react';
import { usePageInView } from '../../use-pdf-document';
import { usePanelI18n } from '../panel-i18n';
import { ids } from './field-errors';
import { newBoxRect } from './geometry';
import { PlacedBox } from './PlacedBox';
import { PreparedPages } from './PreparedPages';
import { newKey, type PrepBox } from './state';
import type { Prepare } from './use-prepare';
import type { PreparedPdf } from './use-prepared-pdf';

/** A new box's size in points: a signature's usual room. */
const NEW_BOX = { width: 180, height: 60 };

export function PlacementStep({ p, pdf }: { p: Prepare; pdf: PreparedPdf | null }) {
  const { t } = usePanelI18n();
  const s = p.state!;
  const pages = useRef<HTMLDivElement>(null);
  const inView = usePageInView(pages);
  const whoOf = (key: string) => {
    const i = s.signers.findIndex((g) => g.key === key);
    return { name: s.signers[i]?.name.trim() || t.signerN(i + 1), colour: i };
  };
  const add = (signer: string) => {
    if (!pdf) {
      return;
    }
    const page = Math.min(inView, pdf.pages.length - 1);
    const here = s.boxes.filter((b) => b.page === page).length;
    const box: PrepBox = { key: newKey('b'), signer, page, rect: newBoxRect(pdf.pages[page], NEW_BOX.width, NEW_BOX.height, here * 70) };
    p.update((x) => ({ ...x, boxes: [...x.boxes, box] }), ids.signerBoxes(signer));
    p.focus(ids.box(box.key));
  };
  const change = (key: string, rect: PrepBox['rect']) =>
    p.update((x) => ({ ...x, boxes: x.boxes.map((b) => (b.key === key ? { ...b, rect } : b)) }), ids.box(key));
  const remove = (box: PrepBox) => {
    p.update((x) => ({ ...x, boxes: x.boxes.filter((b) => b.key !== box.key) }), ids.box(box.key));
    p.focus(`add-box-${box.signer}`);
  };

  return (
    <>
      <p className="hint" id="placement-keys">
        {t.placementIntro}
      </p>
      <ul className="prepare-signer-boxes">
        {s.signers.map((signer) => {
          const who = whoOf(signer.key);
          const mine = s.boxes.filter((b) => b.signer === signer.key);
          const problem = p.errors[ids.signerBoxes(signer.key)];
          return (
            <li key={signer.key} className={`card signer-colour-${who.colour % 6}`}>
              <button
                type="button"
                id={`add-box-${signer.key}`}
                className="button button-secondary button-small"
                onClick={() => add(signer.key)}
                disabled={!pdf}
                aria-describedby={problem ? `${ids.signerBoxes(signer.key)}-error` : undefined}
              >
                <span className="signer-swatch" aria-hidden="true" />
                {t.addBox(who.name)}
              </button>
              {problem && (
                <span id={`${ids.signerBoxes(signer.key)}-error`} className="field-error" role="alert">
                  {problem}
                </span>
              )}
              {mine.length > 0 && (
                <ul className="prepare-box-list" aria-label={t.boxesOf(who.name)}>
                  {mine.map((b) => (
                    <li key={b.key}>
                      {t.boxOnPage(b.page + 1)}{' '}
                      <button type="button" className="link-button" onClick={() => remove(b)}>
                        {t.removeBox(who.name, b.page + 1)}
                      </button>
                      {p.errors[ids.box(b.key)] && (
                        <span id={`${ids.box(b.key)}-error`} className="field-error" role="alert">
                          {p.errors[ids.box(b.key)]}
                        </span>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
      {pdf && (
        <PreparedPages
          pdf={pdf}
          pagesRef={pages}
          over={(index, page) =>
            s.boxes
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
                    who={who.name}
                    pageNumber={index + 1}
                    colour={who.colour}
                    page={page}
                    describedBy={error ? `placement-keys ${ids.box(b.key)}-error` : 'placement-keys'}
                    invalid={!!error}
                    onChange={(rect) => change(b.key, rect)}
                    onDelete={() => remove(b)}
                  />
                );
              })
          }
        />
      )}
    </>
  );
}
