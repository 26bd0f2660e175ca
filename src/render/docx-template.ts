// The docx template engine: detects the merge fields and content controls of a Word document and
// fills them with values as plain text in the formatting the template author gave the field.
// Pure: bytes in, bytes out. The XML is edited through a DOM, never with regular expressions,
// because runs, fields and controls nest and split in ways a pattern cannot follow.
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import type { Document, Element, Node } from '@xmldom/xmldom';
import JSZip from 'jszip';
import { ZipBoundsError, checkZipBounds } from './zip-guard.js';
import { TemplateError, type DetectedTemplate, type FillValues } from './types.js';

/** WordprocessingML main namespace (ECMA-376 Part 1, 17). */
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_DOCUMENT_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';

const ELEMENT_NODE = 1;

/**
 * Content-control types that are not free text (ECMA-376 17.5.2.*, plus w14 checkbox and w15
 * repeating sections): filling them with text would break what Word expects inside them.
 */
const NON_TEXT_SDT_TYPES = new Set([
  'date',
  'comboBox',
  'dropDownList',
  'picture',
  'docPartObj',
  'docPartList',
  'group',
  'citation',
  'bibliography',
  'equation',
  'checkbox',
  'repeatingSection',
  'repeatingSectionItem',
]);

/** Range markers kept when a field span is deleted, so no bookmark or comment loses its other end. */
const RANGE_MARKERS = new Set(['bookmarkStart', 'bookmarkEnd', 'commentRangeStart', 'commentRangeEnd', 'permStart', 'permEnd']);

interface MergeInstruction {
  name: string;
  /** `\b`: text before the value, only when the value is not empty. */
  before: string;
  /** `\f`: text after the value, only when the value is not empty. */
  after: string;
  /** `\* Upper|Lower|Caps|FirstCap`, lower-cased; MERGEFORMAT and CHARFORMAT are ignored. */
  format?: string;
}

type Occurrence =
  | { kind: 'simple'; seq: number; el: Element; merge: MergeInstruction }
  | {
      kind: 'complex';
      seq: number;
      begin: Element;
      end: Element;
      merge: MergeInstruction;
      /** The first run holding result content (between separate and end), if any. */
      firstResultRun?: Element;
      /** True when the field sits inside the instruction of an enclosing field (e.g. an IF). */
      inInstruction: boolean;
    }
  | { kind: 'sdt'; seq: number; el: Element; name: string };

interface Part {
  path: string;
  doc: Document;
}

/** Fields of a docx template: merge fields (simple and complex) and text content controls. */
export async function detectDocxTemplate(bytes: Uint8Array): Promise<DetectedTemplate> {
  const { parts } = await openPackage(bytes);
  const seen = new Set<string>();
  const fields: DetectedTemplate['fields'] = [];
  for (const part of parts) {
    for (const occ of findOccurrences(part.doc)) {
      const id = occ.kind === 'sdt' ? occ.name : occ.merge.name;
      if (!seen.has(id)) {
        seen.add(id);
        fields.push({ id, value: '' });
      }
    }
  }
  return { fields, tables: [] };
}

/** The template with every field replaced by its value (missing values are empty). */
export async function fillDocxTemplate(bytes: Uint8Array, values: FillValues): Promise<Buffer> {
  const { zip, parts } = await openPackage(bytes);
  const serializer = new XMLSerializer();
  for (const part of parts) {
    const occurrences = findOccurrences(part.doc);
    if (occurrences.length === 0) {
      continue;
    }
    // Last first: an inner field is replaced before any enclosing one, and no replacement moves
    // the elements of a field still to be processed.
    for (const occ of [...occurrences].reverse()) {
      if (occ.kind === 'simple') {
        fillSimple(part.doc, occ.el, occ.merge, values);
      } else if (occ.kind === 'complex') {
        fillComplex(part.doc, occ, values);
      } else {
        fillSdt(part.doc, occ.el, values.fields.get(occ.name) ?? '');
      }
    }
    zip.file(part.path, serializer.serializeToString(part.doc));
  }
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

// ---------------------------------------------------------------------------------------------
// Package

// A real docx has tens of entries and rarely more than a few MB of XML and media.
const DOCX_BOUNDS = {
  maxEntries: 5000,
  maxTotalBytes: 200 * 1024 * 1024,
  // The parts this module reads (and so inflates): the package relationships and WordprocessingML.
  inflated: (name: string) => /\.(xml|rels)$/i.test(name),
};

async function openPackage(bytes: Uint8Array): Promise<{ zip: JSZip; parts: Part[] }> {
  try {
    checkZipBounds(bytes, DOCX_BOUNDS);
  } catch (err) {
    if (err instanceof ZipBoundsError) {
      throw new TemplateError('INVALID_TEMPLATE', `The template is not a usable docx file: ${err.message}`);
    }
    throw err;
  }
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (err) {
    throw new TemplateError('INVALID_TEMPLATE', 'The template is not a docx file (not a zip archive)', {
      cause: String(err),
    });
  }
  const mainPath = (await mainDocumentPath(zip)) ?? 'word/document.xml';
  const main = zip.file(mainPath);
  if (!main) {
    throw new TemplateError('INVALID_TEMPLATE', 'The template is not a docx file (no word/document.xml)');
  }
  // Body first, then headers and footers in number order: the order fields are listed in.
  const headerFooter = Object.keys(zip.files)
    .filter((p) => /^word\/(header|footer)\d*\.xml$/.test(p))
    .sort((a, b) => partRank(a) - partRank(b) || a.localeCompare(b, 'en', { numeric: true }));
  const parts: Part[] = [];
  for (const path of [mainPath, ...headerFooter]) {
    parts.push({ path, doc: parseXml(await zip.file(path)!.async('string'), path) });
  }
  return { zip, parts };
}

function partRank(path: string): number {
  return path.startsWith('word/header') ? 0 : 1;
}

/** The main document part named by _rels/.rels: some generators do not call it document.xml. */
async function mainDocumentPath(zip: JSZip): Promise<string | undefined> {
  const rels = zip.file('_rels/.rels');
  if (!rels) {
    return undefined;
  }
  const doc = parseXml(await rels.async('string'), '_rels/.rels');
  for (const rel of Array.from(doc.getElementsByTagNameNS(REL_NS, 'Relationship'))) {
    if (rel.getAttribute('Type') === OFFICE_DOCUMENT_REL && rel.getAttribute('TargetMode') !== 'External') {
      const target = (rel.getAttribute('Target') ?? '').replace(/^\//, '');
      return target && zip.file(target) ? target : undefined;
    }
  }
  return undefined;
}

function parseXml(xml: string, path: string): Document {
  try {
    return new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') {
          throw new Error(message);
        }
      },
    }).parseFromString(xml, 'application/xml');
  } catch (err) {
    throw new TemplateError('INVALID_TEMPLATE', `The template's ${path} is not well-formed XML`, {
      cause: err instanceof Error ? err.message : String(err),
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Detection

interface OpenField {
  seq: number;
  begin: Element;
  instr: string;
  state: 'instr' | 'result';
  firstResultRun?: Element;
  inInstruction: boolean;
}

/** Every merge field and text content control of a part, in document order. */
function findOccurrences(doc: Document): Occurrence[] {
  const found: Occurrence[] = [];
  const stack: OpenField[] = [];
  let seq = 0;

  const visitRun = (run: Element): void => {
    for (const child of elementChildren(run)) {
      if (child.namespaceURI !== W) {
        continue;
      }
      const top = stack[stack.length - 1];
      if (child.localName === 'fldChar') {
        const type = child.getAttributeNS(W, 'fldCharType');
        if (type === 'begin') {
          stack.push({ seq: seq++, begin: child, instr: '', state: 'instr', inInstruction: top?.state === 'instr' });
        } else if (type === 'separate' && top) {
          top.state = 'result';
        } else if (type === 'end' && top) {
          stack.pop();
          const merge = parseMergeField(top.instr);
          if (merge) {
            found.push({
              kind: 'complex',
              seq: top.seq,
              begin: top.begin,
              end: child,
              merge,
              firstResultRun: top.firstResultRun,
              inInstruction: top.inInstruction,
            });
          }
        }
      } else if (child.localName === 'instrText') {
        // Word splits an instruction over runs at will (` MERGE` + `FIELD Cust` + `omer `).
        if (top?.state === 'instr') {
          top.instr += child.textContent ?? '';
        }
      } else if (child.localName !== 'rPr' && top?.state === 'result' && !top.firstResultRun) {
        top.firstResultRun = run;
      }
    }
  };

  const visit = (el: Element): void => {
    if (el.namespaceURI === W) {
      // Tracked deletions are not part of the document as it reads.
      if (el.localName === 'del' || el.localName === 'moveFrom') {
        return;
      }
      if (el.localName === 'r') {
        visitRun(el);
        return;
      }
      if (el.localName === 'fldSimple') {
        const merge = parseMergeField(el.getAttributeNS(W, 'instr') ?? '');
        if (merge) {
          found.push({ kind: 'simple', seq: seq++, el, merge });
        }
      } else if (el.localName === 'sdt') {
        const name = textControlName(el);
        if (name) {
          found.push({ kind: 'sdt', seq: seq++, el, name });
        }
      }
    }
    for (const child of elementChildren(el)) {
      visit(child);
    }
  };

  visit(doc.documentElement!);
  return found.sort((a, b) => a.seq - b.seq);
}

/** The tag of a plain-text or rich-text content control; undefined for any other control. */
function textControlName(sdt: Element): string | undefined {
  const pr = firstChild(sdt, 'sdtPr');
  if (!pr) {
    return undefined;
  }
  const children = elementChildren(pr);
  // A rich-text control has no type element (or w:richText); a plain-text one has w:text.
  if (children.some((c) => NON_TEXT_SDT_TYPES.has(c.localName ?? ''))) {
    return undefined;
  }
  const tag = firstChild(pr, 'tag')?.getAttributeNS(W, 'val');
  return tag ? tag : undefined;
}

/**
 * The field name and text switches of a MERGEFIELD instruction, or undefined for any other
 * field. Word quotes names with spaces (`MERGEFIELD "First Name"`) and escapes `"` and `\`
 * inside quotes with a backslash.
 */
function parseMergeField(instr: string): MergeInstruction | undefined {
  const tokens: { text: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < instr.length) {
    const c = instr[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"') {
      let text = '';
      i++;
      while (i < instr.length && instr[i] !== '"') {
        if (instr[i] === '\\' && (instr[i + 1] === '"' || instr[i + 1] === '\\')) {
          i++;
        }
        text += instr[i++];
      }
      i++;
      tokens.push({ text, quoted: true });
    } else {
      let text = '';
      while (i < instr.length && !/\s/.test(instr[i]) && instr[i] !== '"') {
        text += instr[i++];
      }
      tokens.push({ text, quoted: false });
    }
  }
  if (tokens.length < 2 || tokens[0].quoted || tokens[0].text.toUpperCase() !== 'MERGEFIELD') {
    return undefined;
  }
  const name = tokens[1].text.trim();
  if (!name || (!tokens[1].quoted && name.startsWith('\\'))) {
    return undefined;
  }
  const merge: MergeInstruction = { name, before: '', after: '' };
  for (let t = 2; t < tokens.length; t++) {
    const sw = tokens[t].quoted ? '' : tokens[t].text.toLowerCase();
    const arg = tokens[t + 1]?.text ?? '';
    if (sw === '\\b' || sw === '\\f' || sw === '\\*') {
      t++;
      if (sw === '\\b') {
        merge.before = arg;
      } else if (sw === '\\f') {
        merge.after = arg;
      } else if (!['mergeformat', 'charformat'].includes(arg.toLowerCase())) {
        merge.format = arg.toLowerCase();
      }
    }
  }
  return merge;
}

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

// ---------------------------------------------------------------------------------------------
// Filling

function fillSimple(doc: Document, el: Element, merge: MergeInstruction, values: FillValues): void {
  const firstRun = firstDescendant(el, 'r');
  const rPr = firstRun ? firstChild(firstRun, 'rPr') : undefined;
  el.parentNode!.replaceChild(makeRun(doc, mergeText(merge, values), rPr), el);
}

function fillComplex(doc: Document, occ: Extract<Occurrence, { kind: 'complex' }>, values: FillValues): void {
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

function fillSdt(doc: Document, sdt: Element, value: string): void {
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

// ---------------------------------------------------------------------------------------------
// DOM helpers

function isElement(node: Node | null | undefined): node is Element {
  return !!node && node.nodeType === ELEMENT_NODE;
}

function elementChildren(el: Element): Element[] {
  return Array.from(el.childNodes).filter(isElement);
}

function firstChild(el: Element, localName: string): Element | undefined {
  return elementChildren(el).find((c) => c.namespaceURI === W && c.localName === localName);
}

function descendants(el: Element, localName: string): Element[] {
  return Array.from(el.getElementsByTagNameNS(W, localName));
}

function firstDescendant(el: Element, localName: string): Element | undefined {
  return descendants(el, localName)[0];
}

function ancestorsInclusive(node: Node): Node[] {
  const chain: Node[] = [];
  for (let n: Node | null = node; n; n = n.parentNode) {
    chain.push(n);
  }
  return chain;
}

function clearChildren(el: Element): void {
  while (el.firstChild) {
    el.removeChild(el.firstChild);
  }
}
