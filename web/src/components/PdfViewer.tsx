// The document, page by page: pdf.js renders each page into a canvas as wide as the container
// (so it fits a 360 px phone), once the page comes near the screen. The signer's boxes are drawn
// over their pages.
import { useEffect, useRef, useState } from 'react';
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
}

export function PdfViewer({ token, pdfUrl, pages, boxes, version, signed = false, outlineOnly = false }: ViewerProps) {
  const { t } = useI18n();
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [failed, setFailed] = useState(false);

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
      const task = pdfjs.getDocument({ data, isEvalSupported: false, enableXfa: false, useSystemFonts: true });
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

  const total = pages.length;
  return (
    <section className="viewer" aria-label={t.documentLabel}>
      {failed && (
        <p className="notice notice-error" role="alert">
          {t.pdfError}
        </p>
      )}
      {pages.map((p) => (
        <PdfPage
          key={`${version}-${p.page}`}
          doc={doc}
          index={p.page}
          total={total}
          width={p.rotation % 180 === 0 ? p.width : p.height}
          height={p.rotation % 180 === 0 ? p.height : p.width}
          geometry={p}
          boxes={boxes.filter((b) => b.page === p.page)}
          signed={signed}
          outlineOnly={outlineOnly}
        />
      ))}
    </section>
  );
}

interface PageProps {
  doc: PDFDocumentProxy | null;
  index: number;
  total: number;
  width: number;
  height: number;
  boxes: ViewerBox[];
  signed: boolean;
  /** The page's CropBox size in points (unrotated) and its /Rotate. */
  geometry: { width: number; height: number; rotation: number };
  outlineOnly: boolean;
}

interface Overlay {
  box: ViewerBox;
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Most canvas pixels a page gets: enough for a sharp phone or laptop screen, bounded for memory. */
const MAX_PIXELS = 8_000_000;

function PdfPage({ doc, index, total, width, height, boxes, signed, geometry, outlineOnly }: PageProps) {
  const { t } = useI18n();
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
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
    task.promise.then(
      () => setRendered(true),
      () => undefined,
    );
    return () => task.cancel();
  }, [page, cssWidth]);

  // Boxes are in points from the CropBox's lower-left corner; pdf.js's view is that CropBox, so
  // the viewport turns them into screen positions (rotation included), kept as percentages.
  let overlays: Overlay[] = outlineOnly ? boxes.map((box) => overlayOf(box, geometry)) : [];
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
    <div ref={wrap} className="page" role="group" aria-label={label} style={{ aspectRatio: `${width} / ${height}` }} data-page={index}>
      {!outlineOnly && (
        <canvas ref={canvas} className="page-canvas" role="img" aria-label={label} data-rendered={rendered ? 'true' : 'false'} />
      )}
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
            aria-label={signed ? t.boxSigned : t.boxLabel}
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
function overlayOf(box: ViewerBox, g: { width: number; height: number; rotation: number }): Overlay {
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
