// One page of the viewer (PdfPage.tsx) comes to the screen in three steps: noticed near the screen
// (and measured), fetched from the PDF, then drawn into its canvas with its text layer over it.
import { useEffect, useState } from 'react';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';
import { loadPdfJs, type PdfJs } from './use-pdf-document';

/** Most canvas pixels a page gets: enough for a sharp phone or laptop screen, bounded for memory. */
const MAX_PIXELS = 8_000_000;

/** Whether the element has come near the screen (once it has, it stays so), and its CSS width. */
export function useNearScreen(wrap: React.RefObject<HTMLElement | null>) {
  const [visible, setVisible] = useState(false);
  const [cssWidth, setCssWidth] = useState(0);
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
  }, [wrap]);
  return { visible, cssWidth };
}

/** The page (0-based `index`) of the document, fetched once it is wanted. */
export function usePdfPage(doc: PDFDocumentProxy | null, wanted: boolean, index: number): PDFPageProxy | null {
  const [page, setPage] = useState<PDFPageProxy | null>(null);
  useEffect(() => {
    if (!doc || !wanted) {
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
  }, [doc, wanted, index]);
  return page;
}

/** Draws the page into the canvas at the width it is given, then its text into the text layer. */
export function usePageRender(
  page: PDFPageProxy | null,
  cssWidth: number,
  canvas: React.RefObject<HTMLCanvasElement | null>,
  textLayer: React.RefObject<HTMLDivElement | null>,
) {
  const [rendered, setRendered] = useState(false);
  const [hasText, setHasText] = useState(false);
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
  }, [page, cssWidth, canvas, textLayer]);
  return { rendered, hasText };
}
