// Which form fields a signature locks (PDF 32000-1 §12.7.4.5 /Lock, §12.8.2.4 FieldMDP): filling
// in a locked field after that signature is a change the signer forbade, even where the document's
// certification level allows form filling.
import { type PDF, PdfArray, PdfDict, PdfName, type PdfObject, PdfRef, PdfString } from '@libpdf/core';
import { objectAt } from './revision-diff.js';

export type FieldLock = { action: 'All' } | { action: 'Include' | 'Exclude'; fields: string[] };

const get = (pdf: PDF, o: PdfObject | undefined) => (o instanceof PdfRef ? (objectAt(pdf, o.objectNumber) ?? undefined) : o);

function lockOf(pdf: PDF, dict: PdfDict | undefined): FieldLock | null {
  if (!dict) {
    return null;
  }
  const action = get(pdf, dict.get('Action'));
  const name = action instanceof PdfName ? action.value : '';
  if (name === 'All') {
    return { action: 'All' };
  }
  if (name !== 'Include' && name !== 'Exclude') {
    return null;
  }
  const list = get(pdf, dict.get('Fields'));
  const fields = list instanceof PdfArray ? list.toArray().flatMap((f) => (f instanceof PdfString ? [f.asString()] : [])) : [];
  return { action: name, fields };
}

/** The locks of the signature whose dictionary is object `sigNumber`, from its field's /Lock and its /Reference. */
export function fieldLocks(pdf: PDF, fieldDict: PdfDict | null, sigNumber: number | null): FieldLock[] {
  const locks: FieldLock[] = [];
  const fromField = lockOf(pdf, get(pdf, fieldDict?.get('Lock')) as PdfDict | undefined);
  if (fromField) {
    locks.push(fromField);
  }
  const sig = sigNumber === null ? undefined : objectAt(pdf, sigNumber);
  const refs = sig instanceof PdfDict ? get(pdf, sig.get('Reference')) : undefined;
  for (const r of refs instanceof PdfArray ? refs.toArray() : []) {
    const ref = get(pdf, r);
    if (ref instanceof PdfDict && get(pdf, ref.get('TransformMethod')) instanceof PdfName) {
      const method = (get(pdf, ref.get('TransformMethod')) as PdfName).value;
      const params = get(pdf, ref.get('TransformParams'));
      const lock = method === 'FieldMDP' && params instanceof PdfDict ? lockOf(pdf, params) : null;
      if (lock) {
        locks.push(lock);
      }
    }
  }
  return locks;
}

/** Whether any of the locks covers the field (its fully qualified name, or a parent's). */
export function isLocked(locks: FieldLock[], field: string): boolean {
  const covers = (names: string[]) => names.some((n) => field === n || field.startsWith(`${n}.`));
  return locks.some((l) => l.action === 'All' || (l.action === 'Include' ? covers(l.fields) : !covers(l.fields)));
}
