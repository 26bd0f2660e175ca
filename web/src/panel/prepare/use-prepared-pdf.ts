// The PDF being prepared, opened with pdf.js as the signer page opens its own (use-pdf-document.ts),
// from the Base64 the draft keeps, and each page's geometry (CropBox size and /Rotate) read once:
// the boxes are drawn from it and turned into the API's rects with it (geometry.ts).
import type { PDFDocumentProxy } from 'pdfjs-dist';
import { useEffect, useState } from 'react';
import { loadPdfJs, openPdfData } from '../../use-pdf-document';
import { fromBase64 } from './bytes';
import { type PageGeometry, pageGeometry } from './geometry';

export interface PreparedPdf {
  doc: PDFDocumentProxy;
  pages: PageGeometry[];
}

export function usePreparedPdf(b64: string): { pdf: PreparedPdf | null; failed: boolean } {
  const [pdf, setPdf] = useState<PreparedPdf | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    setPdf(null);
    setFailed(false);
    if (!b64) {
      return;
    }
    let cancelled = false;
    let loaded: PDFDocumentProxy | undefined;
    (async () => {
      const pdfjs = await loadPdfJs();
      // A copy each time: pdf.js hands the bytes to its worker and the draft keeps the Base64.
      loaded = await openPdfData(pdfjs, fromBase64(b64)).promise;
      const pages: PageGeometry[] = [];
      for (let i = 1; i <= loaded.numPages; i++) {
        pages.push(pageGeometry(await loaded.getPage(i)));
      }
      if (cancelled) {
        void loaded.destroy();
        return;
      }
      setPdf({ doc: loaded, pages });
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
  }, [b64]);
  return { pdf, failed };
}
