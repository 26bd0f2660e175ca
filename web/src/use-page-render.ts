// One page of the viewer (PdfPage.tsx) comes to the screen in three steps: noticed near the screen
// (and measured), fetched from the PDF, then drawn into its canvas with its text layer over it; and
// leaves it again once far away, so that a long document on a phone holds only the pages around
// the reader, never all of them.
import { useEffect, useState } from 'react';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';
import { mark } from './timing';
import { loadPdfJs, type PdfJs } from './use-pdf-document';

/** Most canvas pixels a page gets: enough for a sharp phone or laptop screen, bounded for memory. */
const MAX_PIXELS = 8_000_000;

/**
 * How far from the screen a page starts to be drawn, and how far it must go before its canvas is
 * released: as multiples of the screen's height. Drawing a screen ahead hides the drawing from a
 * reader scrolling at reading speed; releasing only two screens away keeps a page that the reader
 * scrolls back and forth over from being drawn again and again. At 360 × 740, with A4 pages as wide
 * as the screen, that is at most about nine canvases alive, however long the document.
 */
const DRAW_MARGIN = '100% 0px';
const KEEP_MARGIN = '200% 0px';

/**
 * One IntersectionObserver per margin and one ResizeObserver for every page of every viewer, each
 * page's element mapped to its own callback: a 300-page document made 900 observers (two margins
 * and a size per page), which the phone's main thread created and computed before page 1.
 */
const intersections = new Map<
  string,
  { observer: IntersectionObserver; callbacks: Map<Element, (e: IntersectionObserverEntry) => void> }
>();
let sizes: { observer: ResizeObserver; callbacks: Map<Element, (el: Element) => void> } | undefined;

function watchIntersection(el: Element, rootMargin: string, callback: (e: IntersectionObserverEntry) => void): () => void {
  let shared = intersections.get(rootMargin);
  if (!shared) {
    const callbacks = new Map<Element, (e: IntersectionObserverEntry) => void>();
    // In the order the browser reports them: for a page reported twice, the last entry decides.
    const observer = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          callbacks.get(e.target)?.(e);
        }
      },
      { rootMargin },
    );
    shared = { observer, callbacks };
    intersections.set(rootMargin, shared);
  }
  const { observer, callbacks } = shared;
  callbacks.set(el, callback);
  observer.observe(el);
  return () => {
    observer.unobserve(el);
    callbacks.delete(el);
  };
}

function watchSize(el: Element, callback: (el: Element) => void): () => void {
  if (!sizes) {
    const callbacks = new Map<Element, (el: Element) => void>();
    const observer = new ResizeObserver((entries) => {
      for (const e of entries) {
        callbacks.get(e.target)?.(e.target);
      }
    });
    sizes = { observer, callbacks };
  }
  const { observer, callbacks } = sizes;
  callbacks.set(el, callback);
  observer.observe(el);
  return () => {
    observer.unobserve(el);
    callbacks.delete(el);
  };
}

/**
 * Whether the page should have a canvas now: it comes near the screen (within DRAW_MARGIN), and
 * keeps it until it goes far away (beyond KEEP_MARGIN). Also the page's CSS width.
 */
export function useNearScreen(wrap: React.RefObject<HTMLElement | null>) {
  const [near, setNear] = useState(false);
  const [cssWidth, setCssWidth] = useState(0);
  useEffect(() => {
    const el = wrap.current;
    if (!el) {
      return;
    }
    const stops = [
      watchIntersection(el, DRAW_MARGIN, (e) => e.isIntersecting && setNear(true)),
      watchIntersection(el, KEEP_MARGIN, (e) => !e.isIntersecting && setNear(false)),
      watchSize(el, () => setCssWidth(Math.round(el.clientWidth))),
    ];
    return () => {
      for (const stop of stops) {
        stop();
      }
    };
  }, [wrap]);
  return { near, cssWidth };
}

/**
 * The page (0-based `index`) of the document, fetched once it is first wanted and kept (pdf.js
 * keeps it too; it is small: its size, rotation and a handle). What drawing it loaded (fonts,
 * images, the operator list) is freed when the page is released (usePageRender).
 */
export function usePdfPage(doc: PDFDocumentProxy | null, wanted: boolean, index: number): PDFPageProxy | null {
  const [page, setPage] = useState<PDFPageProxy | null>(null);
  const fetch = wanted && !page;
  useEffect(() => {
    if (!doc || !fetch) {
      return;
    }
    let cancelled = false;
    doc.getPage(index + 1).then(
      (p) => {
        if (index === 0) {
          mark('page1-fetched');
        }
        return !cancelled && setPage(p);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [doc, fetch, index]);
  return page;
}

/**
 * Draws the page into the canvas at the width it is given, then its text into the text layer.
 * When the effect ends (the page went far away, or is drawn again at another width) a drawing
 * under way is cancelled, so a page scrolled past costs nothing more. The canvas is released by
 * setting its size to 0: the browser frees its pixels at once instead of when the element is
 * collected. Far away, the text layer is emptied and pdf.js frees what the page loaded.
 */
export function usePageRender(
  page: PDFPageProxy | null,
  cssWidth: number,
  canvas: React.RefObject<HTMLCanvasElement | null>,
  textLayer: React.RefObject<HTMLDivElement | null>,
  near: boolean,
) {
  const [rendered, setRendered] = useState(false);
  const [hasText, setHasText] = useState(false);
  useEffect(() => {
    const el = canvas.current;
    if (!page || !el || cssWidth === 0 || !near) {
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
        if (cancelled) {
          return;
        }
        setRendered(true);
        if (page.pageNumber === 1) {
          mark('page1-drawn');
        }
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
      // Drawn again at another width, or gone far away (the canvas leaves the page): either way
      // these pixels are done with.
      el.width = 0;
      el.height = 0;
    };
  }, [page, cssWidth, canvas, textLayer, near]);

  // Far away: the text layer's spans and what pdf.js loaded for the page go too.
  useEffect(() => {
    if (near) {
      return;
    }
    textLayer.current?.replaceChildren();
    setRendered(false);
    setHasText(false);
    page?.cleanup();
  }, [near, page, textLayer]);
  return { rendered, hasText };
}
