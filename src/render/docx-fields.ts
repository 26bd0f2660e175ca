// Detection in a docx part: merge fields (simple and complex, the instruction parsed as Word
// reads it) and text content controls, in document order.
import type { Document, Element } from '@xmldom/xmldom';
import { W, elementChildren, firstChild } from './docx-xml.js';

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

/** A MERGEFIELD instruction: the field name and the switches that shape its text. */
export interface MergeInstruction {
  name: string;
  /** `\b`: text before the value, only when the value is not empty. */
  before: string;
  /** `\f`: text after the value, only when the value is not empty. */
  after: string;
  /** `\* Upper|Lower|Caps|FirstCap`, lower-cased; MERGEFORMAT and CHARFORMAT are ignored. */
  format?: string;
}

/** One fillable place in a part: a simple or complex merge field, or a text content control. */
export type Occurrence =
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

interface OpenField {
  seq: number;
  begin: Element;
  instr: string;
  state: 'instr' | 'result';
  firstResultRun?: Element;
  inInstruction: boolean;
}

/** Every merge field and text content control of a part, in document order. */
export function findOccurrences(doc: Document): Occurrence[] {
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
