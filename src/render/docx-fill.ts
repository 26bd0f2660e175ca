// Filling a docx part: each field or content control becomes one run of the value as plain text,
// in the formatting the template author gave it, and no field code is left behind.
import type { Document, Element, Node } from '@xmldom/xmldom';
import type { MergeInstruction, Occurrence } from './docx-fields.js';
import {
  W,
  XML_NS,
  ancestorsInclusive,
  clearChildren,
  descendants,
  elementChildren,
  firstChild,
  firstDescendant,
  isElement,
} from './docx-xml.js';
import type { FillValues } from './types.js';

/** Range markers kept when a field span is deleted, so no bookmark or comment loses its other end. */
const RANGE_MARKERS = new Set(['bookmarkStart', 'bookmarkEnd', 'commentRangeStart', 'commentRangeEnd', 'permStart', 'permEnd']);

/** The value as the field's switches present it. */
function mergeText(merge: MergeInstruction, values: FillValues): string {
  let value = values.fields.get(merge.name) ?? '';
  if (value === '') {
    return '';
  }
  switch (merge.format) {
    case 'upper':
      value = value.toUpperCase();
      break;
    case 'lower':
      value = value.toLowerCase();
      break;
    case 'firstcap':
      value = value.charAt(0).toUpperCase() + value.slice(1);
      break;
    case 'caps':
      value = value.replace(/(^|\s)(\S)/g, (_m, space: string, ch: string) => space + ch.toUpperCase());
      break;
  }
  return merge.before + value + merge.after;
}

/** A simple field (w:fldSimple) replaced by one run of its value. */
export function fillSimple(doc: Document, el: Element, merge: MergeInstruction, values: FillValues): void {
  const firstRun = firstDescendant(el, 'r');
  const rPr = firstRun ? firstChild(firstRun, 'rPr') : undefined;
  el.parentNode!.replaceChild(makeRun(doc, mergeText(merge, values), rPr), el);
}

/** A complex field (begin … separate … end, possibly over paragraphs) replaced by one run of its value. */
export function fillComplex(doc: Document, occ: Extract<Occurrence, { kind: 'complex' }>, values: FillValues): void {
  const beginRun = occ.begin.parentNode as Element;
  const endRun = occ.end.parentNode as Element;
  // The formatting of the shown result is what the author styled; without a result, the field's own.
  const styleRun = occ.firstResultRun ?? beginRun;
  const rPr = firstChild(styleRun, 'rPr');
  const run = makeRun(doc, mergeText(occ.merge, values), rPr, occ.inInstruction ? 'instrText' : 't');
  // Word writes each fldChar in a run of its own, other writers do not: isolate the two ends so
  // that text sharing their runs, outside the field, survives.
  splitRunAround(doc, beginRun, occ.begin, 'before');
  splitRunAround(doc, endRun, occ.end, 'after');
  beginRun.parentNode!.insertBefore(run, beginRun);
  // The whole begin…end span goes, so no field code is left for Word or LibreOffice to update.
  deleteRange(beginRun, endRun);
}

/** Moves the content of `run` before (or after) `marker` into a new run with the same rPr. */
function splitRunAround(doc: Document, run: Element, marker: Element, side: 'before' | 'after'): void {
  const children = elementChildren(run).filter((c) => !(c.namespaceURI === W && c.localName === 'rPr'));
  const at = children.indexOf(marker);
  const moving = side === 'before' ? children.slice(0, at) : children.slice(at + 1);
  if (moving.length === 0) {
    return;
  }
  const rest = doc.createElementNS(W, 'w:r');
  const rPr = firstChild(run, 'rPr');
  if (rPr) {
    rest.appendChild(rPr.cloneNode(true));
  }
  for (const c of moving) {
    rest.appendChild(c);
  }
  run.parentNode!.insertBefore(rest, side === 'before' ? run : run.nextSibling);
}

/**
 * Deletes everything from `start` to `end` inclusive in document order, as an editor deletes a
 * selection: a field whose result spans paragraphs leaves one paragraph, the first.
 */
function deleteRange(start: Element, end: Element): void {
  if (start === end) {
    removeUnlessMarker(start);
    return;
  }
  const startChain = ancestorsInclusive(start);
  const endChain = ancestorsInclusive(end);
  const common = startChain.find((a) => endChain.includes(a))!;
  // The children of the common ancestor that hold the start and the end.
  const sTop = startChain[startChain.indexOf(common) - 1];
  const eTop = endChain[endChain.indexOf(common) - 1];
  // Start side: what follows the start inside each of its containers below sTop.
  for (let i = 0; startChain[i] !== sTop; i++) {
    removeSiblingsAfter(startChain[i]);
  }
  for (let n = sTop.nextSibling; n && n !== eTop; ) {
    const next = n.nextSibling;
    removeUnlessMarker(n);
    n = next;
  }
  // End side: what precedes the end inside each of its containers below eTop.
  for (let i = 0; endChain[i] !== eTop; i++) {
    removeSiblingsBefore(endChain[i]);
  }
  removeUnlessMarker(start);
  removeUnlessMarker(end);
  // The rest of the end's paragraph joins the start's one: the paragraph marks in between were
  // part of the deleted span.
  if (sTop !== start && eTop !== end && sTop.localName === 'p' && eTop.localName === 'p') {
    for (const child of Array.from(eTop.childNodes)) {
      if (!(isElement(child) && child.localName === 'pPr')) {
        sTop.appendChild(child);
      }
    }
    eTop.parentNode!.removeChild(eTop);
  }
}

function removeSiblingsAfter(node: Node): void {
  for (let n = node.nextSibling; n; ) {
    const next = n.nextSibling;
    removeUnlessMarker(n);
    n = next;
  }
}

function removeSiblingsBefore(node: Node): void {
  for (let n = node.previousSibling; n; ) {
    const prev = n.previousSibling;
    // Container properties (pPr, tcPr, ...) describe the container, not the deleted content.
    if (!(isElement(n) && /Pr$/.test(n.localName ?? ''))) {
      removeUnlessMarker(n);
    }
    n = prev;
  }
}

function removeUnlessMarker(node: Node): void {
  if (isElement(node) && node.namespaceURI === W && RANGE_MARKERS.has(node.localName ?? '')) {
    return;
  }
  node.parentNode?.removeChild(node);
}

/** A text content control whose content becomes the value, the control itself kept. */
export function fillSdt(doc: Document, sdt: Element, value: string): void {
  const pr = firstChild(sdt, 'sdtPr')!;
  const content = firstChild(sdt, 'sdtContent');
  if (!content) {
    return;
  }
  const showingPlaceholder = firstChild(pr, 'showingPlcHdr');
  const firstRun = firstDescendant(content, 'r');
  // While the placeholder shows, its runs carry the grey PlaceholderText style; Word types into
  // the control with the control's own rPr (or the run's without that style), and so do we.
  let rPr = firstRun ? firstChild(firstRun, 'rPr') : undefined;
  if (showingPlaceholder) {
    rPr = firstChild(pr, 'rPr') ?? rPr;
    if (rPr) {
      rPr = rPr.cloneNode(true) as Element;
      const style = firstChild(rPr, 'rStyle');
      if (style && /^placeholder\s*text$/i.test(style.getAttributeNS(W, 'val') ?? '')) {
        rPr.removeChild(style);
      }
    }
    pr.removeChild(showingPlaceholder);
  }
  // A data-bound control would be refilled from its custom XML part when the document opens.
  const binding = firstChild(pr, 'dataBinding');
  if (binding) {
    pr.removeChild(binding);
  }
  if (rPr && showingPlaceholder && elementChildren(rPr).length === 0) {
    rPr = undefined;
  }
  const paragraphs = descendants(content, 'p');
  if (paragraphs.length === 0) {
    // Run-level control: its content is runs.
    const plainText = firstChild(pr, 'text');
    if (plainText && /[\r\n]/.test(value)) {
      // LibreOffice (7.4) moves the line breaks of a plain-text control to its start; the same
      // control as rich text keeps them where they are. Word reads either.
      pr.removeChild(plainText);
    }
    clearChildren(content);
    content.appendChild(makeRun(doc, value, rPr));
    return;
  }
  // Block-, row- or cell-level: the first paragraph keeps its properties and takes the value;
  // other block content at the top goes, deeper paragraphs (other cells) are emptied.
  const first = paragraphs[0];
  for (const child of elementChildren(content)) {
    if (!ancestorsInclusive(first).includes(child) && (child.localName === 'p' || child.localName === 'tbl' || child.localName === 'sdt')) {
      content.removeChild(child);
    }
  }
  for (const p of descendants(content, 'p')) {
    for (const child of Array.from(p.childNodes)) {
      if (!(isElement(child) && child.localName === 'pPr')) {
        p.removeChild(child);
      }
    }
  }
  // One paragraph per line, as Enter makes them in Word: LibreOffice (7.4) drops a w:br inside a
  // block-level control, while paragraphs survive.
  const emptyParagraph = first.cloneNode(true) as Element;
  let previous = first;
  normalizeText(value)
    .split('\n')
    .forEach((line, i) => {
      let p = first;
      if (i > 0) {
        p = emptyParagraph.cloneNode(true) as Element;
        previous.parentNode!.insertBefore(p, previous.nextSibling);
      }
      p.appendChild(makeRun(doc, line, rPr));
      previous = p;
    });
}

/** Newlines as \n, and no character XML 1.0 cannot carry (a value holding one would corrupt the part). */
function normalizeText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[^\t\n\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');
}

/** One run of `text` in the given formatting; newlines become w:br and tabs w:tab. */
function makeRun(doc: Document, text: string, rPr: Element | undefined, textElement: 't' | 'instrText' = 't'): Element {
  const run = doc.createElementNS(W, 'w:r');
  if (rPr) {
    run.appendChild(rPr.cloneNode(true));
  }
  const lines = normalizeText(text).split('\n');
  lines.forEach((line, li) => {
    if (li > 0) {
      run.appendChild(doc.createElementNS(W, 'w:br'));
    }
    line.split('\t').forEach((chunk, ci) => {
      if (ci > 0) {
        run.appendChild(doc.createElementNS(W, 'w:tab'));
      }
      if (chunk !== '' || (lines.length === 1 && ci === 0)) {
        const t = doc.createElementNS(W, `w:${textElement}`);
        // Without it Word and LibreOffice drop leading and trailing spaces of the value.
        t.setAttributeNS(XML_NS, 'xml:space', 'preserve');
        t.appendChild(doc.createTextNode(chunk));
        run.appendChild(t);
      }
    });
  });
  return run;
}
