// What pdf.js reads of a long document, by byte ranges, before it can draw page 1: the signer page
// loaded the PDF by ranges once and page 1 came later than with the whole file (docs/performance.md,
// "Page 1 sooner"). For the documents of scenario P (bench/pdfs.ts manyPagesPdf) and a few chunk
// sizes, pdf.js opens the file through a range transport with automatic fetching off (as the
// viewer did: disableAutoFetch, disableStream) and builds page 1 (its operator list and text);
// the transport counts the ranges asked for, their bytes, and the rounds: a round is a batch of
// requests asked while none of the previous batch had been answered, so it costs one round trip.
// No browser, no server; no timings. `node bin/run-ts.js bench/pdf-ranges.ts [pages,...]`
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { manyPagesPdf } from './pdfs.js';

const DOCUMENTS = (process.argv[2] ?? '80,300').split(',').map(Number);
const CHUNKS = [64 * 1024, 256 * 1024, 1024 * 1024];
const KiB = 1024;

for (const pages of DOCUMENTS) {
  const pdf = await manyPagesPdf(pages, pages * 32 * KiB);
  for (const chunk of CHUNKS) {
    const asked = { requests: 0, bytes: 0, rounds: 0 };
    let pending = 0;
    class CountingTransport extends pdfjs.PDFDataRangeTransport {
      override requestDataRange(begin: number, end: number) {
        asked.requests++;
        asked.bytes += end - begin;
        if (pending === 0) {
          asked.rounds++;
        }
        pending++;
        // Answered on a later task, as a network answer would be.
        setTimeout(() => {
          pending--;
          this.onDataRange(begin, new Uint8Array(pdf.subarray(begin, end)));
        }, 1);
      }
    }
    const doc = await pdfjs.getDocument({
      range: new CountingTransport(pdf.length, new Uint8Array(0)),
      length: pdf.length,
      disableAutoFetch: true,
      disableStream: true,
      rangeChunkSize: chunk,
      isEvalSupported: false,
      verbosity: 0,
    }).promise;
    const opened = { ...asked };
    const page = await doc.getPage(1);
    await page.getOperatorList();
    await page.getTextContent();
    console.log(
      `${pages} pages (${(pdf.length / KiB / KiB).toFixed(1)} MiB), ${chunk / KiB} KiB chunks: ` +
        `opened after ${opened.requests} ranges in ${opened.rounds} rounds (${(opened.bytes / KiB).toFixed(0)} KiB), ` +
        `page 1 built after ${asked.requests} ranges in ${asked.rounds} rounds (${(asked.bytes / KiB).toFixed(0)} KiB)`,
    );
    await doc.destroy();
  }
}
