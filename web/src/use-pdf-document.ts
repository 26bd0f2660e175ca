// The PDF a viewer shows (PdfViewer.tsx): pdf.js loaded on demand, the document fetched and opened
// (again when its version changes, after a signature), and the page the reader has in view.
import { useEffect, useState } from 'react';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import { getPdf } from './api';
import { fetchPdf } from './document-api';
import { mark } from './timing';

export type PdfJs = typeof import('pdfjs-dist');

let pdfjsPromise: Promise<PdfJs> | undefined;

/** pdf.js and its worker load on demand, in their own chunks, after the page is shown. */
export function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]).then(([pdfjs, worker]) => {
    pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
    return pdfjs;
  });
  return pdfjsPromise;
}

/**
 * Opens a PDF's bytes the one way every page of the product does (the signer page, the panel's
 * prepare page). No eval, no XFA: the page renders what a viewer must, nothing a PDF could script.
 * The standard fonts, CMaps and image decoders come from the page's own assets (vite.config.ts):
 * with system fonts instead, a PDF naming Helvetica without embedding it had letters spaced by
 * another font's widths ("S ervice"). pdf.js takes the bytes over (they go to its worker).
 */
export function openPdfData(pdfjs: PdfJs, data: Uint8Array) {
  return pdfjs.getDocument({
    data,
    isEvalSupported: false,
    enableXfa: false,
    useSystemFonts: false,
    standardFontDataUrl: `${__PDFJS_ASSETS__}standard_fonts/`,
    cMapUrl: `${__PDFJS_ASSETS__}cmaps/`,
    cMapPacked: true,
    wasmUrl: `${__PDFJS_ASSETS__}wasm/`,
  });
}

/** pdf.js opens the file in its worker. */
async function openPdf(token: string, pdfUrl: string | undefined): Promise<PDFDocumentProxy> {
  const [pdfjs, data] = await Promise.all([
    loadPdfJs().then((m) => {
      mark('pdfjs-loaded');
      return m;
    }),
    (pdfUrl ? fetchPdf(pdfUrl) : getPdf(token)).then((d) => {
      mark('pdf-bytes');
      return d;
    }),
  ]);
  const doc = await openPdfData(pdfjs, data).promise;
  mark('pdf-opened');
  return doc;
}

let early: { token: string; doc: Promise<PDFDocumentProxy> } | undefined;

/**
 * Starts fetching and opening the signing link's PDF as the page starts, beside the signing data
 * rather than after it: the viewer can lay out its pages only once the data has come (their sizes),
 * and a long document's bytes, pdf.js and its parse of the file then waited behind that request
 * and behind the layout of every page; on a slow phone that was most of the time before page 1.
 * The first viewer of that link takes it (usePdfDocument).
 */
export function openPdfEarly(token: string): void {
  const doc = openPdf(token, undefined);
  // Nobody may take it (the link is unknown, or the page shows no viewer): not an error of its own.
  doc.catch(() => undefined);
  early = { token, doc };
}

/** The PDF opened early for this viewer, once: a later version (after signing) is fetched again. */
function takeEarly(token: string, pdfUrl: string | undefined, version: number): Promise<PDFDocumentProxy> | undefined {
  if (!early || pdfUrl !== undefined || version !== 0 || early.token !== token) {
    return undefined;
  }
  const { doc } = early;
  early = undefined;
  // Failed early (a network blip, or before the link could answer): the viewer asks once more itself.
  return doc.catch(() => openPdf(token, pdfUrl));
}

/** Fetches and opens the PDF; `failed` when it cannot. Nothing is loaded for an outline only. */
export function usePdfDocument(token: string, pdfUrl: string | undefined, version: number, outlineOnly: boolean) {
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [failed, setFailed] = useState(false);

  // `version` changes when the PDF gained a signature: it is fetched again.
  useEffect(() => {
    let cancelled = false;
    let loaded: PDFDocumentProxy | undefined;
    setFailed(false);
    setDoc(null);
    if (outlineOnly) {
      return;
    }
    (async () => {
      loaded = await (takeEarly(token, pdfUrl, version) ?? openPdf(token, pdfUrl));
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

  return { doc, failed };
}

/**
 * The page in view: the last whose top has passed a third of the way down the screen. Pages are
 * stacked in order, so a binary search finds it reading a dozen positions, not every page's: a
 * scroll event on a 300-page document stays cheap on a phone.
 */
export function usePageInView(pages: React.RefObject<HTMLElement | null>): number {
  const [current, setCurrent] = useState(0);
  useEffect(() => {
    const onScroll = () => {
      const els = pages.current?.querySelectorAll<HTMLElement>('.page');
      if (!els) {
        return;
      }
      const line = window.innerHeight / 3;
      let lo = 0;
      let hi = els.length - 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (els[mid].getBoundingClientRect().top < line) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      setCurrent(lo);
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    onScroll();
    return () => window.removeEventListener('scroll', onScroll);
  }, [pages]);
  return current;
}
