// One page of the viewer (PdfViewer.tsx): a placeholder of the page's shape at once (its size from
// the API, so the document is as long as it will be and every box has its place), the canvas and
// text layer while it is near the screen (use-page-render.ts), and its boxes over it: the signer's
// own (a note each, reached by "next box"), or buttons that choose a box (the document_url page).
import { Fragment, useRef } from 'react';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';
import { useI18n } from '../i18n';
import { useNearScreen, usePageRender, usePdfPage } from '../use-page-render';
import type { ViewerBox } from './PdfViewer';

/** A box as a page shows it: its place among the signer's own boxes (for "next box"). */
export type PageBox = ViewerBox & { order?: number; count: number };

/** The page's CropBox size in points (unrotated) and its /Rotate. */
type Geometry = { width: number; height: number; rotation: number };

interface PageProps {
  doc: PDFDocumentProxy | null;
  index: number;
  total: number;
  width: number;
  height: number;
  boxes: PageBox[];
  /** A multiple of the container's width. */
  zoom: number;
  signed: boolean;
  geometry: Geometry;
  outlineOnly: boolean;
}

interface Overlay {
  box: PageBox;
  left: number;
  top: number;
  width: number;
  height: number;
}

export function PdfPage({ doc, index, total, width, height, boxes, signed, geometry, outlineOnly, zoom }: PageProps) {
  const { t } = useI18n();
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const textLayer = useRef<HTMLDivElement>(null);
  // Render only pages near the screen; measure the width the page is given.
  const { near, cssWidth } = useNearScreen(wrap);
  const page = usePdfPage(doc, near, index);
  const { rendered, hasText } = usePageRender(page, cssWidth, canvas, textLayer, near);
  const overlays = overlaysOf(boxes, page, geometry);

  return (
    // biome-ignore lint/a11y/useSemanticElements: a page is a labelled group of its canvas and boxes, not a form fieldset
    <div
      ref={wrap}
      className="page"
      role="group"
      aria-label={t.pageLabel(index + 1, total)}
      style={{ aspectRatio: `${width} / ${height}`, width: `${zoom * 100}%` }}
      data-page={index}
      data-text-layer={hasText ? 'ready' : 'none'}
    >
      {!outlineOnly && near && (
        // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a canvas takes no focus; the text layer below carries the page's words
        <canvas ref={canvas} className="page-canvas" aria-hidden="true" data-rendered={rendered ? 'true' : 'false'} />
      )}
      {/* Near the screen only, like the canvas: hundreds of far pages laid out with their own
          layer and "loading" text cost a phone's main thread before page 1. */}
      {!outlineOnly && near && <div ref={textLayer} className="textLayer" data-testid="text-layer" />}
      {!rendered && !outlineOnly && near && (
        <span className="page-loading" aria-hidden="true">
          {t.pageLoading}
        </span>
      )}
      {overlays
        .filter((o) => !o.box.onSelect && !o.box.render)
        .map((o) => (
          <SignerBox key={`${o.left}:${o.top}:${o.width}:${o.height}`} overlay={o} signed={signed} />
        ))}
      {overlays.map(
        (o) =>
          o.box.render && (
            <Fragment key={o.box.key ?? `${o.left}:${o.top}:${o.width}:${o.height}`}>
              {o.box.render({ style: placeOf(o), near, order: o.box.order, count: o.box.count })}
            </Fragment>
          ),
      )}
      {overlays
        .filter((o) => o.box.onSelect)
        .map((o) => (
          <ChoiceBox key={`${o.left}:${o.top}:${o.width}:${o.height}`} overlay={o} />
        ))}
    </div>
  );
}

/**
 * Boxes are in points from the CropBox's lower-left corner; pdf.js's view is that CropBox, so the
 * viewport turns them into screen positions (rotation included), kept as percentages. Until pdf.js
 * has the page, from the page's geometry: the boxes are there to navigate to at once.
 */
function overlaysOf(boxes: PageBox[], page: PDFPageProxy | null, geometry: Geometry): Overlay[] {
  if (!page) {
    return boxes.map((box) => overlayOf(box, geometry));
  }
  const vp = page.getViewport({ scale: 1 });
  const [x0, y0] = page.view;
  return boxes.map((box) => {
    const b = box.rect;
    const [ax, ay, bx, by] = vp.convertToViewportRectangle([x0 + b.lx, y0 + b.ly, x0 + b.tx, y0 + b.ty]);
    return {
      box,
      left: (Math.min(ax, bx) / vp.width) * 100,
      top: (Math.min(ay, by) / vp.height) * 100,
      width: (Math.abs(bx - ax) / vp.width) * 100,
      height: (Math.abs(by - ay) / vp.height) * 100,
    };
  });
}

/**
 * Where a box lies on its page as shown, from the page's geometry alone: boxes are in points from
 * the CropBox's lower-left corner, unrotated; /Rotate turns the page clockwise.
 */
function overlayOf(box: PageBox, g: Geometry): Overlay {
  const { lx, ly, tx, ty } = box.rect;
  const W = g.width;
  const H = g.height;
  const pct = (a: number, b: number) => (a / b) * 100;
  switch (((g.rotation % 360) + 360) % 360) {
    case 90:
      return { box, left: pct(ly, H), top: pct(lx, W), width: pct(ty - ly, H), height: pct(tx - lx, W) };
    case 180:
      return { box, left: pct(W - tx, W), top: pct(ly, H), width: pct(tx - lx, W), height: pct(ty - ly, H) };
    case 270:
      return { box, left: pct(H - ty, H), top: pct(W - tx, W), width: pct(ty - ly, H), height: pct(tx - lx, W) };
    default:
      return { box, left: pct(lx, W), top: pct(H - ty, H), width: pct(tx - lx, W), height: pct(ty - ly, H) };
  }
}

const placeOf = (o: Overlay) => ({ left: `${o.left}%`, top: `${o.top}%`, width: `${o.width}%`, height: `${o.height}%` });

/** One of the signer's boxes: a note saying where the signature goes (or went), focusable by "next box". */
function SignerBox({ overlay: o, signed }: { overlay: Overlay; signed: boolean }) {
  const { t } = useI18n();
  return (
    <div
      className={signed ? 'box-highlight box-signed' : 'box-highlight'}
      style={placeOf(o)}
      role="note"
      aria-label={
        signed ? t.boxSigned : o.box.order !== undefined ? `${t.boxLabel} · ${t.boxOf(o.box.order + 1, o.box.count)}` : t.boxLabel
      }
      data-box-index={o.box.order}
      tabIndex={o.box.order !== undefined ? -1 : undefined}
    >
      {!signed && <span aria-hidden="true">{t.boxLabel}</span>}
    </div>
  );
}

/** A box that can be chosen: a button over the page, labelled with its signer. */
function ChoiceBox({ overlay: o }: { overlay: Overlay }) {
  const { t } = useI18n();
  const label = o.box.label ?? t.boxLabel;
  return (
    <button
      type="button"
      className={o.box.selected ? 'box-highlight box-choice box-selected' : 'box-highlight box-choice'}
      style={placeOf(o)}
      aria-pressed={o.box.selected ?? false}
      aria-label={label}
      disabled={o.box.disabled}
      onClick={o.box.onSelect}
    >
      <span aria-hidden="true">{label}</span>
    </button>
  );
}
