// The pages of the PDF being prepared, drawn as the signer page draws its own (use-page-render.ts:
// only the pages near the screen hold a canvas), each with what the step lays over it (the boxes).
import { type ReactNode, type RefObject, useRef } from 'react';
import { useNearScreen, usePageRender, usePdfPage } from '../../use-page-render';
import { usePanelI18n } from '../panel-i18n';
import { shownSize } from './geometry';
import type { PreparedPdf } from './use-prepared-pdf';

interface PagesProps {
  pdf: PreparedPdf;
  /** What lies over page `index`; the page's element is passed for measuring drags. */
  over?: (index: number, page: RefObject<HTMLDivElement | null>) => ReactNode;
  pagesRef?: RefObject<HTMLDivElement | null>;
}

export function PreparedPages({ pdf, over, pagesRef }: PagesProps) {
  return (
    <div className="viewer-pages prepare-pages" ref={pagesRef} data-testid="prepare-pages">
      {pdf.pages.map((_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a page is its index in the document
        <PreparedPage key={i} pdf={pdf} index={i} over={over} />
      ))}
    </div>
  );
}

function PreparedPage({ pdf, index, over }: { pdf: PreparedPdf; index: number; over?: PagesProps['over'] }) {
  const { t } = usePanelI18n();
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const textLayer = useRef<HTMLDivElement>(null);
  const { near, cssWidth } = useNearScreen(wrap);
  const page = usePdfPage(pdf.doc, near, index);
  const { rendered } = usePageRender(page, cssWidth, canvas, textLayer, near);
  const size = shownSize(pdf.pages[index]);
  return (
    // biome-ignore lint/a11y/useSemanticElements: a page is a labelled group of its canvas and boxes, not a form fieldset
    <div
      ref={wrap}
      className="page prepare-page"
      role="group"
      aria-label={t.prepPageLabel(index + 1, pdf.pages.length)}
      style={{ aspectRatio: `${size.width} / ${size.height}` }}
      data-page={index}
      data-rendered={rendered ? 'true' : 'false'}
    >
      {near && (
        // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a canvas takes no focus; the text layer carries the page's words
        <canvas ref={canvas} className="page-canvas" aria-hidden="true" />
      )}
      <div ref={textLayer} className="textLayer" />
      {!rendered && (
        <span className="page-loading" aria-hidden="true">
          {t.loading}
        </span>
      )}
      {over?.(index, wrap)}
    </div>
  );
}
