// Decides what kind of change each object change of a revision is (the difference analysis of
// pyHanko and EU DSS, after PDF 32000-1 §12.8.2.2 and ETSI EN 319 142-1 §5.4-5.5). The kinds a
// signature may allow after it: another signature with its field, widget and appearance; DSS
// validation data and document time stamps; filling in form fields; annotations (certification
// level 3 only). Anything else (page content, fonts, the page tree, a redefined signature
// dictionary, a catalog key outside the form and the DSS) is 'other' and never allowed; what draws
// nothing (the structure tree growing, developer extensions, arrays of the form) is 'structure'.
// Whatever the objects are named, page-view.ts then compares what each page shows, and names as
// 'other' what no filling or signing explains. Which kinds a given signature allows is
// verify-pdf.ts's decision; here each change is only named.
import { PdfArray, PdfDict, type PdfObject, PdfRef, PdfStream } from '@libpdf/core';
import { describeObject, type DocumentFacts } from './document-facts.js';
import { referrers, soleOwner } from './appearance-owners.js';
import { shownChanges } from './page-view.js';
import { changedKeys, type ObjectChange, objectAt, sameObject, sameResolved } from './revision-diff.js';

export type ChangeCategory =
  | 'signature'
  | 'timestamp'
  | 'dss'
  | 'form-fill'
  | 'annotation'
  | 'metadata'
  | 'structure'
  | 'unreferenced'
  | 'other';

export interface ClassifiedChange {
  revision: number;
  objectNumber: number;
  kind: ObjectChange['kind'];
  category: ChangeCategory;
  /** What the object is and, for a change, which keys changed. */
  description: string;
  /** The field a signature or form-fill change is about (for /Lock, FieldMDP and sneaky signatures). */
  field?: string;
  /** The published attack the change is the mark of, when what it shows says so (page-view.ts). */
  attack?: 'shadow-replace' | 'sneaky-signature';
}

const SIGNATURE_FIELD_KEYS = new Set(['V', 'AP', 'AS', 'F', 'P']);
const WIDGET_KEYS = new Set(['AP', 'AS', 'F', 'P']);
// /I: the selected indices of a choice field, set with its value (§12.7.5.4).
// /DA: the default appearance the new /AP was made with; what is shown is the /AP (page-view.ts).
const FORM_FIELD_KEYS = new Set(['V', 'AS', 'AP', 'I', 'DA']);
// What a signature adds to the structure tree: elements for its widget, the parent tree entries.
const STRUCTURE_KEYS = new Set(['K', 'ParentTree', 'ParentTreeNextKey', 'Nums', 'Kids', 'Limits']);
const ACROFORM_KEYS = new Set(['Fields', 'SigFlags', 'DR', 'DA', 'NeedAppearances']);

const refNumbers = (o: PdfObject | undefined | null): number[] =>
  o instanceof PdfArray ? o.toArray().flatMap((x) => (x instanceof PdfRef ? [x.objectNumber] : [])) : [];
const within = (keys: string[], allowed: Set<string>) => keys.every((k) => allowed.has(k));

/** Old entries kept, in order of appearance; the new ones returned. Null when one was removed. */
function addedEntries(before: number[], after: number[]): number[] | null {
  const kept = new Set(after);
  if (!before.every((n) => kept.has(n))) {
    return null;
  }
  const old = new Set(before);
  return after.filter((n) => !old.has(n));
}

/** `b` keeps every entry of `a` (inline dictionaries compared the same way) and may add more. */
function onlyAdded(a: PdfDict, b: PdfDict, depth = 0): boolean {
  return [...a].every(([k, v]) => {
    const w = b.get(k);
    if (sameObject(v, w)) {
      return true;
    }
    const inline = (o: PdfObject | undefined) => o instanceof PdfDict && !(o instanceof PdfStream);
    return depth < 4 && inline(v) && inline(w) && onlyAdded(v as PdfDict, w as PdfDict, depth + 1);
  });
}

interface Pair {
  before: DocumentFacts;
  after: DocumentFacts;
  /** Objects the later revision added as identical copies of what an entry named before. */
  copies: Set<number>;
}

/** Keys whose values differ between two versions of a dictionary, each read in its own revision. */
const keysChanged = (pair: Pair, a: PdfDict, b: PdfDict) => changedKeys(a, b, { before: pair.before.view.pdf, after: pair.after.view.pdf });

/**
 * The objects an update added only to hold a copy of what an entry named before (a writer that
 * rewrites a page's /Resources into a new object as it adds a time stamp): every entry of a
 * changed dictionary or array, and of a catalog written anew, compared by what it resolves to.
 */
function copiesOf(before: DocumentFacts, after: DocumentFacts, changes: ObjectChange[]): Set<number> {
  const copies = new Set<number>();
  const pdfA = before.view.pdf;
  const pdfB = after.view.pdf;
  const compare = (a: PdfObject | null, b: PdfObject | null) => {
    if (a instanceof PdfDict && b instanceof PdfDict) {
      for (const [key, value] of b) {
        if (!sameObject(a.get(key), value)) {
          sameResolved(pdfA, a.get(key), pdfB, value, copies);
        }
      }
    } else if (a instanceof PdfArray && b instanceof PdfArray && a.length === b.length) {
      const xs = a.toArray();
      for (const [i, y] of b.toArray().entries()) {
        if (!sameObject(xs[i], y)) {
          sameResolved(pdfA, xs[i], pdfB, y, copies);
        }
      }
    }
  };
  // The objects that name an added one: a holder that only re-pointed an entry at a copy reads the
  // same as before, so it is no change of its own (diffRevisions) and must be looked at here.
  const from = referrers(after);
  const holders = new Set(changes.filter((c) => c.kind === 'changed').map((c) => c.objectNumber));
  for (const c of changes) {
    if (c.kind === 'added') {
      for (const p of from.get(c.objectNumber) ?? []) {
        holders.add(p);
      }
    }
  }
  for (const n of holders) {
    if (n !== 0) {
      compare(objectAt(pdfA, n), objectAt(pdfB, n));
    }
  }
  if (before.catalog !== null && after.catalog !== null && before.catalog !== after.catalog) {
    compare(objectAt(pdfA, before.catalog), objectAt(pdfB, after.catalog));
  }
  return copies;
}

/** A change to a page's /Annots (the page dictionary's or an indirect array's). */
function annotsChange(pair: Pair, before: number[], after: number[]): { category: ChangeCategory; description: string } {
  const added = addedEntries(before, after);
  if (added === null) {
    return { category: 'other', description: 'an annotation was removed from a page' };
  }
  const signatures = added.filter((n) => pair.after.fields.get(pair.after.widgets.get(n) ?? -1)?.isSignature);
  if (signatures.length === added.length) {
    return { category: 'signature', description: 'signature widgets added to a page' };
  }
  return { category: 'annotation', description: 'annotations added to a page' };
}

/** The form dictionary: only new signature fields, /SigFlags and additions to /DR. */
function acroFormChange(pair: Pair, a: PdfDict, b: PdfDict): { category: ChangeCategory; description: string } {
  const keys = keysChanged(pair, a, b);
  if (!within(keys, ACROFORM_KEYS)) {
    return { category: 'other', description: `form dictionary changed (${keys.join(', ')})` };
  }
  const pdfA = pair.before.view.pdf;
  const pdfB = pair.after.view.pdf;
  const resolve = (pdf: typeof pdfA, o: PdfObject | undefined) => (o instanceof PdfRef ? objectAt(pdf, o.objectNumber) : (o ?? null));
  const added = addedEntries(refNumbers(resolve(pdfA, a.get('Fields'))), refNumbers(resolve(pdfB, b.get('Fields'))));
  if (added === null) {
    return { category: 'other', description: 'a form field was removed' };
  }
  if (added.some((n) => !pair.after.fields.get(n)?.isSignature)) {
    return { category: 'other', description: 'a form field other than a signature field was added' };
  }
  const drA = resolve(pdfA, a.get('DR'));
  const drB = resolve(pdfB, b.get('DR'));
  if (keys.includes('DR') && drA instanceof PdfDict && drB instanceof PdfDict) {
    // Resources may be added for a new appearance; a redefined font would change the appearance a
    // reader regenerates for existing fields. The other entries draw nothing of their own.
    for (const [category, value] of drA) {
      if (category.value !== 'Font' && category.value !== 'Encoding') {
        continue;
      }
      const next = resolve(pdfB, drB.get(category));
      const prev = resolve(pdfA, value);
      if (prev instanceof PdfDict && next instanceof PdfDict) {
        if ([...prev].some(([k, v]) => !sameObject(v, next.get(k)))) {
          return { category: 'other', description: `form default resource /${category.value} redefined` };
        }
      } else if (!sameObject(value, drB.get(category))) {
        return { category: 'other', description: `form default resource /${category.value} redefined` };
      }
    }
  }
  if (keys.includes('NeedAppearances')) {
    return { category: 'form-fill', description: 'form dictionary: /NeedAppearances' };
  }
  return { category: 'signature', description: `form dictionary: ${keys.map((k) => `/${k}`).join(' ')}` };
}

function catalogChange(pair: Pair, a: PdfDict, b: PdfDict): { category: ChangeCategory; description: string } {
  const keys = keysChanged(pair, a, b);
  // /Version and /Extensions name the PDF version and extensions the file uses; writers raise them.
  const other = keys.filter((k) => !['DSS', 'Extensions', 'AcroForm', 'Metadata', 'Version', 'StructTreeRoot'].includes(k));
  if (other.length > 0) {
    return { category: 'other', description: `document catalog changed: ${other.map((k) => `/${k}`).join(' ')}` };
  }
  const formA = a.get('AcroForm');
  const formB = b.get('AcroForm');
  if (keys.includes('AcroForm')) {
    if (formA instanceof PdfDict && formB instanceof PdfDict) {
      return acroFormChange(pair, formA, formB);
    }
    if (formA !== undefined && !(formB instanceof PdfRef && formA instanceof PdfDict)) {
      return { category: 'other', description: 'document catalog: the form was replaced' };
    }
    // A form added (or moved to its own object) is judged by its fields, each a change of its own.
    return { category: 'signature', description: 'document catalog: /AcroForm' };
  }
  const structural = ['Version', 'Extensions', 'StructTreeRoot'];
  return {
    category: keys.every((k) => k === 'Metadata') ? 'metadata' : keys.every((k) => structural.includes(k)) ? 'structure' : 'dss',
    description: `document catalog: ${keys.map((k) => `/${k}`).join(' ')}`,
  };
}

type Verdict = Omit<ClassifiedChange, 'revision' | 'objectNumber' | 'kind'>;

/** One object change as the rules see it: its number, both versions, and the keys that changed. */
interface Subject {
  pair: Pair;
  before: DocumentFacts;
  after: DocumentFacts;
  kind: ObjectChange['kind'];
  n: number;
  a: PdfObject | null;
  b: PdfObject | null;
  keys: string[];
  keyText: string;
  /** What the object is, for the descriptions ("page 2", "font"). */
  what: string;
}

const otherChange = (x: Subject, description = `${x.what} ${x.kind}${x.keyText}`): Verdict => ({ category: 'other', description });

/**
 * The rules in the order they are tried: the first that names the change decides. Each answers
 * undefined when the object is not its kind.
 */
const RULES: ((x: Subject) => Verdict | undefined)[] = [
  structuralAddition,
  validationData,
  structureTree,
  metadataObject,
  signatureValue,
  catalogObject,
  formObject,
  formField,
  fieldWidget,
  pageObject,
  addedAppearance,
  appearanceRedrawn,
];

function classify(pair: Pair, change: ObjectChange): Verdict {
  const { before, after } = pair;
  const n = change.objectNumber;
  const a = objectAt(before.view.pdf, n);
  const b = objectAt(after.view.pdf, n);
  const keys = a instanceof PdfDict && b instanceof PdfDict ? keysChanged(pair, a, b) : [];
  const x: Subject = {
    pair,
    before,
    after,
    kind: change.kind,
    n,
    a,
    b,
    keys,
    keyText: keys.length > 0 ? ` (${keys.map((k) => (k.startsWith('(') ? k : `/${k}`)).join(' ')})` : '',
    what: describeObject(change.kind === 'removed' ? before : after, n),
  };
  for (const rule of RULES) {
    const verdict = rule(x);
    if (verdict) {
      return verdict;
    }
  }
  if (!after.reachable.has(n) && (change.kind === 'added' || !before.reachable.has(n))) {
    return { category: 'unreferenced', description: `${x.what} ${change.kind}, referenced by nothing` };
  }
  return otherChange(x);
}

/** Cross-reference and object streams, and objects added as identical copies of what they stand for. */
function structuralAddition({ kind, b, n, pair, what }: Subject): Verdict | undefined {
  if (kind === 'added' && b instanceof PdfStream && ['XRef', 'ObjStm'].includes(b.getName('Type')?.value ?? '')) {
    return { category: 'structure', description: 'cross-reference or object stream' };
  }
  // Named where an identical object was named before: a reader sees what it saw (page-view.ts
  // still compares what each page shows).
  if (kind === 'added' && pair.copies.has(n)) {
    return { category: 'structure', description: `${what} added as an identical copy of the object it stands for` };
  }
  return undefined;
}

function validationData({ kind, n, before, after }: Subject): Verdict | undefined {
  if (after.dss.has(n) && (kind === 'added' || before.dss.has(n) || !before.reachable.has(n))) {
    return { category: 'dss', description: 'validation data (DSS)' };
  }
  if (kind === 'removed' && before.dss.has(n)) {
    return { category: 'dss', description: 'validation data (DSS)' };
  }
  if (after.extensions.has(n) && (kind === 'added' || before.extensions.has(n))) {
    return { category: 'structure', description: `developer extensions ${kind}` };
  }
  return undefined;
}

function structureTree({ kind, n, b, keys, keyText, before, after }: Subject): Verdict | undefined {
  // The structure tree grows with the widgets a signature adds; what it says of existing content
  // (/Alt, /ActualText, /Lang...) may not change.
  if (
    after.structure.has(n) &&
    (kind === 'added' || (before.structure.has(n) && (b instanceof PdfArray || within(keys, STRUCTURE_KEYS))))
  ) {
    return { category: 'structure', description: `logical structure ${kind}${keyText}` };
  }
  // An array of its own for a form's /Fields, a field's /Kids or a page's /Annots: what it lists
  // is judged with the form, field or page that names it.
  if (kind === 'added' && b instanceof PdfArray) {
    const from = referrers(after).get(n) ?? new Set<number>();
    const holders = [...from].every((p) => p === after.catalog || p === after.acroForm || after.fields.has(p) || after.pages.has(p));
    if (from.size > 0 && holders) {
      return { category: 'structure', description: 'array of the form, a field or a page' };
    }
  }
  return undefined;
}

function metadataObject({ kind, n, b, before, after }: Subject): Verdict | undefined {
  // Decided (docs/api.md): the information dictionary and the catalog's XMP metadata may be
  // updated after signing, as pyHanko allows: no reader shows them as the page, and writers update
  // them with every save. Only while nothing of the document itself uses that object.
  const metadataOnly = !after.document.has(n) && !before.document.has(n);
  if ((n === after.info || n === before.info) && metadataOnly) {
    return { category: 'metadata', description: 'document information dictionary' };
  }
  if ((n === after.metadata || n === before.metadata) && metadataOnly && (b === null || b instanceof PdfStream)) {
    return { category: 'metadata', description: `XMP metadata stream ${kind}` };
  }
  return undefined;
}

function signatureValue(x: Subject): Verdict | undefined {
  const { kind, n, before, after } = x;
  if (!after.signatureValues.has(n) && !before.signatureValues.has(n)) {
    return undefined;
  }
  if (kind !== 'added' || before.reachable.has(n)) {
    return otherChange(
      x,
      `signature dictionary of ${(after.signatureValues.get(n) ?? before.signatureValues.get(n))!.fieldName} redefined`,
    );
  }
  const sig = after.signatureValues.get(n)!;
  return {
    category: sig.isTimestamp ? 'timestamp' : 'signature',
    description: `${sig.isTimestamp ? 'document time stamp' : 'signature'} ${sig.fieldName}`,
    field: sig.fieldName,
  };
}

function catalogObject({ n, a, b, pair, before, after }: Subject): Verdict | undefined {
  if (n === after.catalog && n === before.catalog && a instanceof PdfDict && b instanceof PdfDict) {
    return catalogChange(pair, a, b);
  }
  // A catalog written as a new object (the trailer's /Root switched): judged entry by entry against
  // the catalog it replaces, with the rules of a catalog changed in place.
  const oldCatalog = before.catalog === null ? null : objectAt(before.view.pdf, before.catalog);
  if (n === after.catalog && n !== before.catalog && oldCatalog instanceof PdfDict && b instanceof PdfDict && !(b instanceof PdfStream)) {
    const r = catalogChange(pair, oldCatalog, b);
    return { category: r.category, description: `document catalog written anew: ${r.description}` };
  }
  return undefined;
}

/** The form dictionary, its default resources and its /Fields array. */
function formObject(x: Subject): Verdict | undefined {
  const { kind, n, a, b, pair, before, after } = x;
  if (n === after.acroForm && a instanceof PdfDict && b instanceof PdfDict) {
    return acroFormChange(pair, a, b);
  }
  // A dictionary of the form's default resources given new entries (a font for a filled field):
  // an existing entry redefined would change what a reader regenerates for other fields.
  const resources = kind === 'changed' && before.defaultResources.has(n) && after.defaultResources.has(n);
  if (resources && a instanceof PdfDict && b instanceof PdfDict && onlyAdded(a, b) && !(a instanceof PdfStream)) {
    return { category: 'form-fill', description: 'form default resources: entries added' };
  }
  if (n === after.fieldsArray && n === before.fieldsArray && a instanceof PdfArray && b instanceof PdfArray) {
    const added = addedEntries(refNumbers(a), refNumbers(b));
    if (added === null) {
      return otherChange(x, 'a form field was removed');
    }
    if (added.some((f) => !after.fields.get(f)?.isSignature)) {
      return otherChange(x, 'a form field other than a signature field was added');
    }
    return { category: 'signature', description: 'form fields: signature fields added' };
  }
  return undefined;
}

function formField(x: Subject): Verdict | undefined {
  const { kind, n, a, keys, keyText, before, after } = x;
  const field = after.fields.get(n) ?? before.fields.get(n);
  if (!field) {
    return undefined;
  }
  if (!field.isSignature) {
    if (kind === 'changed' && within(keys, FORM_FIELD_KEYS)) {
      return { category: 'form-fill', description: `form field ${field.name} filled in`, field: field.name };
    }
    return otherChange(x, `form field ${field.name} ${kind}${keyText}`);
  }
  if (kind === 'added') {
    return { category: 'signature', description: `signature field ${field.name} added`, field: field.name };
  }
  const wasUnsigned = !(a instanceof PdfDict) || a.get('V') === undefined;
  if (kind === 'changed' && wasUnsigned && within(keys, SIGNATURE_FIELD_KEYS)) {
    return { category: 'signature', description: `signature field ${field.name} signed`, field: field.name };
  }
  if (kind === 'changed' && !keys.includes('V') && within(keys, WIDGET_KEYS)) {
    return { category: 'signature', description: `appearance of signature field ${field.name}`, field: field.name };
  }
  return otherChange(x, `signature field ${field.name} ${kind}${keyText}`);
}

function fieldWidget(x: Subject): Verdict | undefined {
  const { kind, n, keys, keyText, before, after } = x;
  const widgetOf = after.widgets.get(n) ?? before.widgets.get(n);
  if (widgetOf === undefined) {
    return undefined;
  }
  const owner = after.fields.get(widgetOf) ?? before.fields.get(widgetOf);
  if (owner?.isSignature && (kind === 'added' || within(keys, WIDGET_KEYS))) {
    return { category: 'signature', description: `widget of signature field ${owner.name}`, field: owner.name };
  }
  if (owner && !owner.isSignature && kind === 'changed' && within(keys, FORM_FIELD_KEYS)) {
    return { category: 'form-fill', description: `widget of form field ${owner.name}`, field: owner.name };
  }
  return otherChange(x, `widget of ${owner?.name ?? 'a field'} ${kind}${keyText}`);
}

/** A page's /Annots (in the page or an array of its own), and the annotations themselves. */
function pageObject(x: Subject): Verdict | undefined {
  const { kind, n, a, b, keys, keyText, what, pair, before, after } = x;
  if (after.pages.has(n) && before.pages.has(n) && a instanceof PdfDict && b instanceof PdfDict) {
    if (!within(keys, new Set(['Annots']))) {
      return otherChange(x);
    }
    const res = (pdf: typeof before.view.pdf, o: PdfObject | undefined) => (o instanceof PdfRef ? objectAt(pdf, o.objectNumber) : o);
    const r = annotsChange(pair, refNumbers(res(before.view.pdf, a.get('Annots'))), refNumbers(res(after.view.pdf, b.get('Annots'))));
    return { category: r.category, description: `${what}: ${r.description}` };
  }
  if (after.annotArrays.has(n) && kind === 'changed') {
    const r = annotsChange(pair, refNumbers(a), refNumbers(b));
    return { category: r.category, description: `page ${(after.pages.get(after.annotArrays.get(n)!) ?? 0) + 1}: ${r.description}` };
  }
  if (after.annotations.has(n) && (kind === 'added' || before.annotations.has(n))) {
    return { category: 'annotation', description: `annotation ${kind}${keyText}` };
  }
  return undefined;
}

function addedAppearance({ kind, n, after }: Subject): Verdict | undefined {
  if (kind !== 'added') {
    return undefined;
  }
  if (after.signatureAppearance.has(n)) {
    return { category: 'signature', description: 'signature appearance' };
  }
  if (after.formAppearance.has(n)) {
    return { category: 'form-fill', description: 'form field appearance' };
  }
  if (after.annotationAppearance.has(n)) {
    return { category: 'annotation', description: 'annotation appearance' };
  }
  return undefined;
}

// An appearance rewritten in place (pyHanko's in-place appearance update): an annotation change
// when one comment alone used it, a form filling or a signing when one widget alone did;
// page-view.ts then judges what the new one shows.
function appearanceRedrawn({ kind, n, before, after }: Subject): Verdict | undefined {
  if (kind !== 'changed') {
    return undefined;
  }
  if (before.annotationAppearance.has(n)) {
    const owner = soleOwner(before, n);
    if (owner !== null && before.annotations.has(owner) && after.annotations.has(owner)) {
      return { category: 'annotation', description: 'appearance of an annotation redrawn in place' };
    }
  }
  if (before.formAppearance.has(n) || before.signatureAppearance.has(n)) {
    const widget = soleOwner(before, n);
    const owner = widget === null ? undefined : before.fields.get(before.widgets.get(widget) ?? -1);
    if (owner) {
      return {
        category: owner.isSignature ? 'signature' : 'form-fill',
        description: `appearance of ${owner.isSignature ? 'signature field' : 'form field'} ${owner.name} redrawn in place`,
        field: owner.name,
      };
    }
  }
  return undefined;
}

/** Every change between two consecutive revisions, named. */
export function classifyChanges(before: DocumentFacts, after: DocumentFacts, changes: ObjectChange[]): ClassifiedChange[] {
  const pair = { before, after, copies: copiesOf(before, after, changes) };
  const out = changes.map((c) => ({ revision: after.view.revision, objectNumber: c.objectNumber, kind: c.kind, ...classify(pair, c) }));
  // Whatever the objects were, what each page shows may only change as filling and signing do.
  // A page's drawing is only named when no object change already stands as disallowed: the
  // verdict is the same, and the change that explains it is the object's own.
  const disallowed = new Set(out.filter((c) => c.category === 'other').map((c) => c.objectNumber));
  const shown = shownChanges(before, after);
  out.push(...(disallowed.size > 0 ? [] : shown.drawing), ...shown.annotations.filter((c) => !disallowed.has(c.objectNumber)));
  // The catalog written as a new object is judged as its own change (classify); any other switch
  // of /Root (to nothing, or to an object that was already there) shows another document.
  const switched = before.catalog !== after.catalog;
  if (switched && !out.some((c) => c.objectNumber === after.catalog && c.description.startsWith('document catalog written anew'))) {
    out.push({
      revision: after.view.revision,
      objectNumber: after.catalog ?? 0,
      kind: 'changed',
      category: 'other',
      description: 'the trailer names another document catalog',
    });
  }
  return out;
}
