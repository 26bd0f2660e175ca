// The document, page by page: pdf.js renders each page into a canvas as wide as the container
// times the zoom (fit width by default, so it fits a 360 px phone), once the page comes near the
// screen, with a text layer over it (screen readers read the contract; text can be selected). The
// signer's boxes are drawn over their pages. A sticky toolbar shows the page in view, zooms, and
// takes the signer from one of their boxes to the next.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';
import { getPdf, type Rect } from '../api';
import { fetchPdf } from '../document-api';
import { useI18n } from '../i18n';

type PdfJs = typeof import('pdfjs-dist');

let pdfjsPromise: Promise<PdfJs> | undefined;

/** pdf.js and its worker load on demand, in their own chunks, after the page is shown. */
function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]).then(([pdfjs, worker]) => {
    pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
    return pdfjs;
  });
  return pdfjsPromise;
}

/** Zoom steps, as a multiple of the width that fits the screen (1). */
const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3];

/**
 * "Next box (i of n)": scrolls the signer's box i into the middle of the screen and focuses it, then
 * offers the one after (the last leads back to the first). Boxes are found by their place in reading
 * order (data-box-index) within `scope`, or the whole page.
 */
export function NextBoxButton({
  count,
  scope,
  className,
}: {
  count: number;
  scope?: React.RefObject<HTMLElement | null>;
  className?: string;
}) {
  const { t } = useI18n();
  const [next, setNext] = useState(0);
  const go = useCallback(() => {
    const n = next % count;
    const el = (scope?.current ?? document).querySelector<HTMLElement>(`[data-box-index="${n}"]`);
    if (el) {
      el.scrollIntoView({ block: 'center', behavior: 'smooth' });
      el.focus({ preventScroll: true });
    }
    setNext((n + 1) % count);
  }, [next, count, scope]);
  return (
    <button type="button" className={className ?? 'tool-button tool-text tool-next'} onClick={go} data-testid="next-box">
      {t.nextBox((next % count) + 1, count)}
    </button>
  );
}

/** A box drawn over its page. With `onSelect` it is a button that chooses it (the document_url page). */
export interface ViewerBox {
  page: number;
  rect: Rect;
  /** Shown in the box instead of "your signature goes here". */
  label?: string;
  selected?: boolean;
  disabled?: boolean;
  onSelect?: () => void;
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
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [failed, setFailed] = useState(false);
  const [zoom, setZoom] = useState(1);
  const [current, setCurrent] = useState(0);
  const pagesRef = useRef<HTMLDivElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` changes when the PDF gained a signature and must be fetched again
  useEffect(() => {
    let cancelled = false;
    let loaded: PDFDocumentProxy | undefined;
    setFailed(false);
    setDoc(null);
    if (outlineOnly) {
      return;
    }
    (async () => {
      const [pdfjs, data] = await Promise.all([loadPdfJs(), pdfUrl ? fetchPdf(pdfUrl) : getPdf(token)]);
      // No eval, no XFA: the page renders what a viewer must, nothing a PDF could script.
      // The standard fonts, CMaps and image decoders come from the page's own assets (vite.config.ts):
      // with system fonts instead, a PDF naming Helvetica without embedding it had letters spaced
      // by another font's widths ("S ervice").
      const task = pdfjs.getDocument({
        data,
        isEvalSupported: false,
        enableXfa: false,
        useSystemFonts: false,
        standardFontDataUrl: `${__PDFJS_ASSETS__}standard_fonts/`,
        cMapUrl: `${__PDFJS_ASSETS__}cmaps/`,
        cMapPacked: true,
        wasmUrl: `${__PDFJS_ASSETS__}wasm/`,
      });
      loaded = await task.promise;
      if (cancelled) {
        void loaded.destroy();
        return;
      }
      setDoc(loaded);
    })().catch(() => {
      if (!cancelled) {
        setFailed(true);
      }
    });
    return () => {
      cancelled = true;
      if (loaded) {
        void loaded.destroy();
      }
    };
  }, [token, pdfUrl, version, outlineOnly]);

  // The page in view: the last whose top has passed a third of the way down the screen.
  useEffect(() => {
    const onScroll = () => {
      const els = pagesRef.current?.querySelectorAll<HTMLElement>('.page');
      if (!els) {
        return;
      }
      let inView = 0;
      els.forEach((el, i) => {
        if (el.getBoundingClientRect().top < window.innerHeight / 3) {
          inView = i;
        }
      });
      setCurrent(inView);
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    onScroll();
    return () => window.removeEventListener('scroll', onScroll);
  }, []);

  // The signer's own boxes, in reading order: page, then top to bottom (PDF y grows upwards).
  const mine = boxes
    .map((b, i) => ({ b, i }))
    .filter(({ b }) => !b.onSelect)
    .sort((x, y) => x.b.page - y.b.page || y.b.rect.ty - x.b.rect.ty);
  const order = new Map(mine.map(({ i }, n) => [i, n]));

  const zoomStep = (dir: 1 | -1) => {
    const i = ZOOMS.indexOf(zoom);
    setZoom(ZOOMS[Math.min(ZOOMS.length - 1, Math.max(0, i + dir))]);
  };

  const total = pages.length;
  return (
    <section className="viewer" aria-label={t.documentLabel}>
      {toolbar && (
        <div className="viewer-toolbar" role="toolbar" aria-label={t.toolbarLabel} data-testid="viewer-toolbar">
          <div className="zoom-controls">
            <button
              type="button"
              className="tool-button"
              onClick={() => zoomStep(-1)}
              disabled={zoom === ZOOMS[0]}
              aria-label={t.zoomOut}
              title={t.zoomOut}
              data-testid="zoom-out"
            >
              −
            </button>
            <output className="zoom-level" aria-live="polite" aria-label={t.zoomLevel(Math.round(zoom * 100))} data-testid="zoom-level">
              {Math.round(zoom * 100)} %
            </output>
            <button
              type="button"
              className="tool-button"
              onClick={() => zoomStep(1)}
              disabled={zoom === ZOOMS[ZOOMS.length - 1]}
              aria-label={t.zoomIn}
              title={t.zoomIn}
              data-testid="zoom-in"
            >
              +
            </button>
            <button
              type="button"
              className="tool-button tool-text"
              onClick={() => setZoom(1)}
              aria-pressed={zoom === 1}
              data-testid="zoom-fit"
            >
              {t.fitWidth}
            </button>
          </div>
          <span className="page-indicator" data-testid="page-indicator">
            {t.pageLabel(Math.min(current, total - 1) + 1, total)}
          </span>
          {mine.length > 0 && !signed && !nextBoxElsewhere && <NextBoxButton count={mine.length} scope={pagesRef} />}
        </div>
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

/** A box as a page shows it: its place among the signer's own boxes (for "next box"). */
type PageBox = ViewerBox & { order?: number; count: number };

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
  /** The page's CropBox size in points (unrotated) and its /Rotate. */
  geometry: { width: number; height: number; rotation: number };
  outlineOnly: boolean;
}

interface Overlay {
  box: PageBox;
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Most canvas pixels a page gets: enough for a sharp phone or laptop screen, bounded for memory. */
const MAX_PIXELS = 8_000_000;

function PdfPage({ doc, index, total, width, height, boxes, signed, geometry, outlineOnly, zoom }: PageProps) {
  const { t } = useI18n();
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const textLayer = useRef<HTMLDivElement>(null);
  const [hasText, setHasText] = useState(false);
  const [visible, setVisible] = useState(false);
  const [cssWidth, setCssWidth] = useState(0);
  const [page, setPage] = useState<PDFPageProxy | null>(null);
  const [rendered, setRendered] = useState(false);

  // Render only pages near the screen; measure the width the page is given.
  useEffect(() => {
    const el = wrap.current;
    if (!el) {
      return;
    }
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setVisible(true), {
      rootMargin: '400px 0px',
    });
    io.observe(el);
    const ro = new ResizeObserver(() => setCssWidth(Math.round(el.clientWidth)));
    ro.observe(el);
    return () => {
      io.disconnect();
      ro.disconnect();
    };
  }, []);

  useEffect(() => {
    if (!doc || !visible) {
      return;
    }
    let cancelled = false;
    doc.getPage(index + 1).then(
      (p) => !cancelled && setPage(p),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [doc, visible, index]);

  useEffect(() => {
    const el = canvas.current;
    if (!page || !el || cssWidth === 0) {
      return;
    }
    const base = page.getViewport({ scale: 1 });
    const dpr = window.devicePixelRatio || 1;
    let scale = (cssWidth * dpr) / base.width;
    if (base.width * base.height * scale * scale > MAX_PIXELS) {
      scale = Math.sqrt(MAX_PIXELS / (base.width * base.height));
    }
    const viewport = page.getViewport({ scale });
    el.width = Math.floor(viewport.width);
    el.height = Math.floor(viewport.height);
    const task = page.render({ canvas: el, viewport });
    let cancelled = false;
    let text: InstanceType<PdfJs['TextLayer']> | undefined;
    task.promise
      .then(async () => {
        setRendered(true);
        const pdfjs = await loadPdfJs();
        const container = textLayer.current;
        if (cancelled || !container) {
          return;
        }
        // The text, as transparent spans where the canvas draws it, at the page's CSS size.
        const cssScale = cssWidth / base.width;
        container.replaceChildren();
        container.style.setProperty('--total-scale-factor', String(cssScale));
        text = new pdfjs.TextLayer({
          textContentSource: page.streamTextContent(),
          container,
          viewport: page.getViewport({ scale: cssScale }),
        });
        await text.render();
        if (!cancelled) {
          setHasText(true);
        }
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
      task.cancel();
      text?.cancel();
    };
  }, [page, cssWidth]);

  // Boxes are in points from the CropBox's lower-left corner; pdf.js's view is that CropBox, so
  // the viewport turns them into screen positions (rotation included), kept as percentages.
  // Until pdf.js has the page, from the page's geometry: the boxes are there to navigate to at once.
  let overlays: Overlay[] = boxes.map((box) => overlayOf(box, geometry));
  if (page) {
    const vp = page.getViewport({ scale: 1 });
    const [x0, y0] = page.view;
    overlays = boxes.map((box) => {
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

  const label = t.pageLabel(index + 1, total);
  return (
    // biome-ignore lint/a11y/useSemanticElements: a page is a labelled group of its canvas and boxes, not a form fieldset
    <div
      ref={wrap}
      className="page"
      role="group"
      aria-label={label}
      style={{ aspectRatio: `${width} / ${height}`, width: `${zoom * 100}%` }}
      data-page={index}
      data-text-layer={hasText ? 'ready' : 'none'}
    >
      {!outlineOnly && (
        // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a canvas takes no focus; the text layer below carries the page's words
        <canvas ref={canvas} className="page-canvas" aria-hidden="true" data-rendered={rendered ? 'true' : 'false'} />
      )}
      {!outlineOnly && <div ref={textLayer} className="textLayer" data-testid="text-layer" />}
      {!rendered && !outlineOnly && (
        <span className="page-loading" aria-hidden="true">
          {t.pageLoading}
        </span>
      )}
      {overlays
        .filter((o) => !o.box.onSelect)
        .map((o) => (
          <div
            key={`${o.left}:${o.top}:${o.width}:${o.height}`}
            className={signed ? 'box-highlight box-signed' : 'box-highlight'}
            style={{ left: `${o.left}%`, top: `${o.top}%`, width: `${o.width}%`, height: `${o.height}%` }}
            role="note"
            aria-label={
              signed ? t.boxSigned : o.box.order !== undefined ? `${t.boxLabel} · ${t.boxOf(o.box.order + 1, o.box.count)}` : t.boxLabel
            }
            data-box-index={o.box.order}
            tabIndex={o.box.order !== undefined ? -1 : undefined}
          >
            {!signed && <span aria-hidden="true">{t.boxLabel}</span>}
          </div>
        ))}
      {overlays
        .filter((o) => o.box.onSelect)
        .map((o) => (
          <ChoiceBox key={`${o.left}:${o.top}:${o.width}:${o.height}`} overlay={o} />
        ))}
    </div>
  );
}

/**
 * Where a box lies on its page as shown, from the page's geometry alone: boxes are in points from
 * the CropBox's lower-left corner, unrotated; /Rotate turns the page clockwise.
 */
function overlayOf(box: PageBox, g: { width: number; height: number; rotation: number }): Overlay {
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

/** A box that can be chosen: a button over the page, labelled with its signer. */
function ChoiceBox({ overlay: o }: { overlay: Overlay }) {
  const { t } = useI18n();
  const label = o.box.label ?? t.boxLabel;
  return (
    <button
      type="button"
      className={o.box.selected ? 'box-highlight box-choice box-selected' : 'box-highlight box-choice'}
      style={{ left: `${o.left}%`, top: `${o.top}%`, width: `${o.width}%`, height: `${o.height}%` }}
      aria-pressed={o.box.selected ?? false}
      aria-label={label}
      disabled={o.box.disabled}
      onClick={o.box.onSelect}
    >
      <span aria-hidden="true">{label}</span>
    </button>
  );
}
