// What each object of one revision is for: the catalog, the pages and their annotations, the form's
// fields and widgets, signature values, the DSS, the appearance streams of each kind of widget.
// The difference analysis (change-rules.ts) decides from these roles whether a change is one a
// signature allows, as pyHanko's difference analysis and EU DSS do: by what an object is in the
// document, not by what the update that wrote it claims.
import { type PDF, PdfArray, PdfDict, PdfName, type PdfObject, PdfRef, PdfStream } from '@libpdf/core';
import { MAX_DEPTH, objectAt, reachable, type RevisionView } from './revision-diff.js';

export interface FieldFacts {
  /** Fully qualified name (§12.7.3.2). */
  name: string;
  isSignature: boolean;
  /** Object number of the field's signature dictionary (/V), when it is indirect. */
  valueNumber: number | null;
  widgets: number[];
}

export interface SignatureValueFacts {
  fieldName: string;
  subFilter: string;
  isTimestamp: boolean;
}

export interface DocumentFacts {
  view: RevisionView;
  catalog: number | null;
  info: number | null;
  /** Everything a reader can reach from the trailer. */
  reachable: Set<number>;
  /** The catalog's XMP metadata stream (/Metadata), when it is indirect. */
  metadata: number | null;
  /**
   * What the catalog reaches without passing through a /Metadata key: the document itself. The
   * information dictionary and the XMP stream only count as metadata when nothing of the document
   * uses them, or pointing /Info or /Metadata at a page's content would make a content change
   * "metadata".
   */
  document: Set<number>;
  dss: Set<number>;
  /**
   * Objects of the catalog's /Extensions (developer extensions, ISO 32000-2 §7.12) and of the
   * logical structure tree (/StructTreeRoot, §14.7), where nothing else of the document uses them:
   * neither draws on a page. Links out of the tree (/Pg, /Obj, /Stm) are not followed.
   */
  extensions: Set<number>;
  structure: Set<number>;
  acroForm: number | null;
  /** What the form's default resources (/DR) reach. */
  defaultResources: Set<number>;
  /** The form's /Fields array, when it is an object of its own. */
  fieldsArray: number | null;
  fields: Map<number, FieldFacts>;
  /** Widget object number → field object number. */
  widgets: Map<number, number>;
  /** Signature dictionaries that are some field's value. */
  signatureValues: Map<number, SignatureValueFacts>;
  /** Page object number → 0-based index. */
  pages: Map<number, number>;
  /** Indirect /Annots arrays → the page object number. */
  annotArrays: Map<number, number>;
  /** Annotations on pages that are not widgets. */
  annotations: Set<number>;
  /** Objects reachable from the appearance of signature widgets, form widgets, other annotations, /DR. */
  signatureAppearance: Set<number>;
  formAppearance: Set<number>;
  annotationAppearance: Set<number>;
  /** The certification signature (catalog /Perms /DocMDP): its dictionary and /P (1, 2 or 3). */
  certification: { signatureNumber: number; level: 1 | 2 | 3 } | null;
}

const numberOf = (o: PdfObject | undefined): number | null => (o instanceof PdfRef ? o.objectNumber : null);
const resolved = (pdf: PDF, o: PdfObject | undefined): PdfObject | undefined =>
  o instanceof PdfRef ? (objectAt(pdf, o.objectNumber) ?? undefined) : o;
const asDict = (pdf: PDF, o: PdfObject | undefined): PdfDict | null => {
  const r = resolved(pdf, o);
  return r instanceof PdfDict ? r : null;
};
const asArray = (pdf: PDF, o: PdfObject | undefined): PdfObject[] => {
  const r = resolved(pdf, o);
  return r instanceof PdfArray ? r.toArray() : [];
};
const nameOf = (pdf: PDF, d: PdfDict, key: string): string => {
  const v = resolved(pdf, d.get(key));
  return v instanceof PdfName ? v.value : '';
};

/** §12.8.2.2: /Perms /DocMDP names the certification signature; its /Reference holds /P. */
function certificationOf(pdf: PDF, catalog: PdfDict): DocumentFacts['certification'] {
  const ref = asDict(pdf, catalog.get('Perms'))?.get('DocMDP');
  const sig = asDict(pdf, ref);
  const n = numberOf(ref);
  if (!sig || n === null) {
    return null;
  }
  for (const item of asArray(pdf, sig.get('Reference'))) {
    const r = asDict(pdf, item);
    if (r && nameOf(pdf, r, 'TransformMethod') === 'DocMDP') {
      const p = resolved(pdf, asDict(pdf, r.get('TransformParams'))?.get('P'));
      const level = p && 'value' in p && typeof p.value === 'number' ? p.value : 2;
      return { signatureNumber: n, level: level === 1 || level === 3 ? level : 2 };
    }
  }
  return { signatureNumber: n, level: 2 };
}

function collectFields(pdf: PDF, facts: DocumentFacts, fieldsArray: PdfObject[]): void {
  const stack = fieldsArray.map((f) => ({ ref: f, parentName: '', parentFt: '', depth: 0 }));
  const seen = new Set<number>();
  while (stack.length > 0) {
    const { ref, parentName, parentFt, depth } = stack.pop()!;
    const n = numberOf(ref);
    const dict = asDict(pdf, ref);
    if (!dict || depth > MAX_DEPTH || (n !== null && seen.has(n))) {
      continue;
    }
    if (n !== null) {
      seen.add(n);
    }
    const t = resolved(pdf, dict.get('T'));
    const partial = t && 'asString' in t ? (t as { asString(): string }).asString() : '';
    const name = partial ? (parentName ? `${parentName}.${partial}` : partial) : parentName;
    const ft = nameOf(pdf, dict, 'FT') || parentFt;
    const kids = asArray(pdf, dict.get('Kids'));
    const kidFields = kids.filter((k) => {
      const kd = asDict(pdf, k);
      return kd && (kd.has('T') || kd.has('FT') || !kd.has('Subtype'));
    });
    if (kidFields.length > 0 && kidFields.length === kids.length) {
      for (const k of kids) {
        stack.push({ ref: k, parentName: name, parentFt: ft, depth: depth + 1 });
      }
      if (n !== null) {
        facts.fields.set(n, { name, isSignature: ft === 'Sig', valueNumber: null, widgets: [] });
      }
      continue;
    }
    const widgets = kids.length > 0 ? kids.map(numberOf).filter((w): w is number => w !== null) : n !== null ? [n] : [];
    const valueNumber = numberOf(dict.get('V'));
    if (n !== null) {
      facts.fields.set(n, { name, isSignature: ft === 'Sig', valueNumber, widgets });
    }
    for (const w of widgets) {
      if (n !== null) {
        facts.widgets.set(w, n);
      }
    }
    const value = asDict(pdf, dict.get('V'));
    if (ft === 'Sig' && value && valueNumber !== null) {
      const subFilter = nameOf(pdf, value, 'SubFilter');
      facts.signatureValues.set(valueNumber, {
        fieldName: name,
        subFilter,
        isTimestamp: subFilter === 'ETSI.RFC3161' || nameOf(pdf, value, 'Type') === 'DocTimeStamp',
      });
    }
  }
}

/** The roles of every object of one revision. */
export function documentFacts(view: RevisionView): DocumentFacts {
  const pdf = view.pdf;
  const trailer = pdf.context.info.trailer;
  const catalogRef = trailer.get('Root');
  const catalog = asDict(pdf, catalogRef);
  const facts: DocumentFacts = {
    view,
    catalog: numberOf(catalogRef),
    info: numberOf(trailer.get('Info')),
    reachable: reachable(pdf, [catalogRef, trailer.get('Info')]),
    metadata: null,
    document: reachable(pdf, [catalogRef], new Set(['Metadata'])),
    dss: new Set(),
    extensions: new Set(),
    structure: new Set(),
    acroForm: null,
    fieldsArray: null,
    defaultResources: new Set(),
    fields: new Map(),
    widgets: new Map(),
    signatureValues: new Map(),
    pages: new Map(),
    annotArrays: new Map(),
    annotations: new Set(),
    signatureAppearance: new Set(),
    formAppearance: new Set(),
    annotationAppearance: new Set(),
    certification: null,
  };
  if (!catalog) {
    return facts;
  }
  facts.dss = reachable(pdf, [catalog.get('DSS')]);
  // What the rest of the document reaches, so that an object shared with it is judged as its own.
  const rest = reachable(pdf, [catalogRef], new Set(['Metadata', 'Extensions', 'StructTreeRoot', 'StructParents', 'DSS']));
  const own = (set: Set<number>) => new Set([...set].filter((n) => !rest.has(n)));
  facts.extensions = own(reachable(pdf, [catalog.get('Extensions')]));
  facts.structure = own(reachable(pdf, [catalog.get('StructTreeRoot')], new Set(['Pg', 'Obj', 'Stm', 'StmOwn'])));
  facts.metadata = numberOf(catalog.get('Metadata'));
  facts.certification = certificationOf(pdf, catalog);
  const form = catalog.get('AcroForm');
  facts.acroForm = numberOf(form);
  const formDict = asDict(pdf, form);
  facts.fieldsArray = numberOf(formDict?.get('Fields'));
  facts.defaultResources = reachable(pdf, [formDict?.get('DR')]);
  if (formDict) {
    collectFields(pdf, facts, asArray(pdf, formDict.get('Fields')));
  }
  collectAppearances(pdf, facts, formDict);
  return facts;
}

/** The pages, their annotations, and every object drawn as an appearance: a signature's, a form field's, a comment's. */
function collectAppearances(pdf: PDF, facts: DocumentFacts, formDict: PdfDict | null | undefined): void {
  let pages: { ref: PdfRef; dict: PdfDict }[] = [];
  try {
    pages = pdf.getPages().map((p) => ({ ref: p.ref, dict: p.dict }));
  } catch {
    pages = [];
  }
  const sigAp: (PdfObject | undefined)[] = [];
  const formAp: (PdfObject | undefined)[] = [];
  const annotAp: (PdfObject | undefined)[] = [];
  pages.forEach((p, i) => {
    facts.pages.set(p.ref.objectNumber, i);
    const annots = p.dict.get('Annots');
    if (annots instanceof PdfRef) {
      facts.annotArrays.set(annots.objectNumber, p.ref.objectNumber);
    }
    for (const a of asArray(pdf, annots)) {
      const n = numberOf(a);
      const d = asDict(pdf, a);
      if (n === null || !d) {
        continue;
      }
      const field = facts.widgets.get(n);
      if (field !== undefined) {
        (facts.fields.get(field)?.isSignature ? sigAp : formAp).push(d.get('AP'));
      } else {
        facts.annotations.add(n);
        annotAp.push(d.get('AP'), d.get('Popup'));
      }
    }
  });
  // Widgets not listed on a page (an invisible signature) still have appearances of their own.
  for (const [w, field] of facts.widgets) {
    const d = asDict(pdf, PdfRef.of(w, 0));
    (facts.fields.get(field)?.isSignature ? sigAp : formAp).push(d?.get('AP'));
  }
  // Back-links (/P to the page, /Parent) would make the whole document an "appearance".
  const up = new Set(['P', 'Parent']);
  facts.signatureAppearance = reachable(pdf, [...sigAp, formDict?.get('DR')], up);
  facts.formAppearance = reachable(pdf, formAp, up);
  facts.annotationAppearance = reachable(pdf, annotAp, up);
}

/** A few words on what an object is, for a change that names it. */
export function describeObject(facts: DocumentFacts, n: number): string {
  if (n === facts.catalog) {
    return 'document catalog';
  }
  if (facts.pages.has(n)) {
    return `page ${facts.pages.get(n)! + 1}`;
  }
  if (facts.signatureValues.has(n)) {
    return `signature dictionary of ${facts.signatureValues.get(n)!.fieldName}`;
  }
  if (facts.fields.has(n)) {
    return `form field ${facts.fields.get(n)!.name}`;
  }
  if (facts.annotations.has(n)) {
    return 'annotation';
  }
  const obj = objectAt(facts.view.pdf, n);
  if (obj instanceof PdfDict) {
    const type = nameOf(facts.view.pdf, obj, 'Type');
    const subtype = nameOf(facts.view.pdf, obj, 'Subtype');
    if (type === 'Pages') {
      return 'page tree';
    }
    if (type === 'Font' || subtype.startsWith('Type') || subtype === 'TrueType') {
      return 'font';
    }
    if (subtype === 'Image' || subtype === 'Form') {
      return subtype === 'Image' ? 'image' : 'form XObject';
    }
    if (obj instanceof PdfStream) {
      return 'content stream';
    }
    return type ? `${type} dictionary` : 'dictionary';
  }
  return obj instanceof PdfArray ? 'array' : 'object';
}
