// The document, page by page: pdf.js renders each page into a canvas as wide as the container
// times the zoom (fit width by default, so it fits a 360 px phone), once the page comes near the
// screen, with a text layer over it (screen readers read the contract; text can be selected). The
// signer's boxes are drawn over their pages. A sticky toolbar shows the page in view, zooms, and
// takes the signer from one of their boxes to the next.
import { type CSSProperties, type ReactNode, useEffect, useRef, useState } from 'react';
import type { Rect } from '../api';
import { useI18n } from '../i18n';
import { mark } from '../timing';
import { usePageInView, usePdfDocument } from '../use-pdf-document';
import { PdfPage } from './PdfPage';
import { ViewerToolbar } from './ViewerToolbar';

export { NextBoxButton } from './ViewerToolbar';

/** A box drawn over its page. With `onSelect` it is a button that chooses it (the document_url page). */
export interface ViewerBox {
  page: number;
  rect: Rect;
  /** Shown in the box instead of "your signature goes here". */
  label?: string;
  selected?: boolean;
  disabled?: boolean;
  onSelect?: () => void;
  /**
   * Draws the box itself (a field the signer fills, SignerFieldBox.tsx) at `style`; `near` says
   * whether its page is drawn now, so a heavy control waits for its page.
   */
  /** A stable key for a box drawn by `render`. */
  key?: string;
  render?: (place: { style: CSSProperties; near: boolean; order?: number; count: number }) => ReactNode;
}

export interface ViewerProps {
  token: string;
  /** Where to load the PDF from instead of the signing link's token (the document_url page). */
  pdfUrl?: string;
  /** Page sizes from the API (CropBox, points), for placeholders before pdf.js has loaded. */
  pages: { page: number; width: number; height: number; rotation: number }[];
  boxes: ViewerBox[];
  /** Changes when the PDF has changed on the server (after signing), to load it again. */
  version: number;
  /** The boxes hold the signature now: outline them without covering it. */
  signed?: boolean;
  /** Pages as outlines with their boxes, without loading the PDF (the document_url page). */
  outlineOnly?: boolean;
  /** Show the toolbar (page in view, zoom, next box); by default unless outlineOnly. */
  toolbar?: boolean;
  /** The page shows "next box" elsewhere (the action bar, NextBoxButton): leave it out of the toolbar. */
  nextBoxElsewhere?: boolean;
}

export function PdfViewer({
  token,
  pdfUrl,
  pages,
  boxes,
  version,
  signed = false,
  outlineOnly = false,
  toolbar = !outlineOnly,
  nextBoxElsewhere = false,
}: ViewerProps) {
  const { t } = useI18n();
  const { doc, failed } = usePdfDocument(token, pdfUrl, version, outlineOnly);
  const [zoom, setZoom] = useState(1);
  const pagesRef = useRef<HTMLDivElement>(null);
  const current = usePageInView(pagesRef);
  // Every page has its placeholder in the document (committed, before the browser lays them out).
  useEffect(() => mark('pages-placed'), []);

  // The signer's own boxes, in reading order: page, then top to bottom (PDF y grows upwards).
  const mine = boxes
    .map((b, i) => ({ b, i }))
    .filter(({ b }) => !b.onSelect)
    .sort((x, y) => x.b.page - y.b.page || y.b.rect.ty - x.b.rect.ty);
  const order = new Map(mine.map(({ i }, n) => [i, n]));

  const total = pages.length;
  return (
    <section className="viewer" aria-label={t.documentLabel}>
      {toolbar && (
        <ViewerToolbar
          zoom={zoom}
          onZoom={setZoom}
          current={current}
          total={total}
          boxes={!signed && !nextBoxElsewhere ? mine.length : 0}
          pages={pagesRef}
        />
      )}
      {failed && (
        <p className="notice notice-error" role="alert">
          {t.pdfError}
        </p>
      )}
      <div className="viewer-pages" ref={pagesRef}>
        {pages.map((p) => (
          <PdfPage
            key={`${version}-${p.page}`}
            doc={doc}
            index={p.page}
            total={total}
            width={p.rotation % 180 === 0 ? p.width : p.height}
            height={p.rotation % 180 === 0 ? p.height : p.width}
            geometry={p}
            boxes={boxes.flatMap((b, i) => (b.page === p.page ? [{ ...b, order: order.get(i), count: mine.length }] : []))}
            signed={signed}
            outlineOnly={outlineOnly}
            zoom={zoom}
          />
        ))}
      </div>
    </section>
  );
}
