// Characters as a person counts them: grapheme clusters (an emoji with a skin tone, or a letter
// with its accent, is one). The server counts the same way (reject-document.ts).
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export function graphemeCount(text: string): number {
  let n = 0;
  for (const _ of segmenter.segment(text)) {
    n++;
  }
  return n;
}
