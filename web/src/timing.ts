// Marks on the page's own timeline (performance.mark, from navigation start) at the steps between
// opening a signing link and seeing page 1: what arrived and what ran when. The benchmark
// (bench/long-document.ts) reads them to show where a long document's first paint goes; they cost
// a timestamp each and are never sent anywhere.

/** The steps, in the order they usually happen. */
export type Step = 'app-start' | 'info' | 'pages-placed' | 'pdfjs-loaded' | 'pdf-bytes' | 'pdf-opened' | 'page1-fetched' | 'page1-drawn';

/** Marks the first time `step` happens on this page (a step that happens again, after a signature, keeps its first time). */
export function mark(step: Step): void {
  const name = `sello:${step}`;
  if (performance.getEntriesByName(name, 'mark').length === 0) {
    performance.mark(name);
  }
}
