// Names the published attack a failed or modified signature looks like, so a report can say more
// than "invalid": universal signature forgery, signature wrapping and incremental saving
// (Mladenov et al., "1 Trillion Dollar Refund", 2019), shadow hide / replace / hide-and-replace
// (Mainka et al., 2021), evil annotation and sneaky signature (Mainka et al., attacks on certified
// PDFs, 2021). The verdicts do not depend on these names: they are explanations, recognized from
// the same facts the verdicts come from.
import type { ClassifiedChange } from './change-rules.js';
import type { DocumentFacts } from './document-facts.js';
import { PdfStream } from '@libpdf/core';
import { objectAt } from './revision-diff.js';

/** A stream whose data (as stored; an empty stream stays short compressed) is only white space. */
function isBlankStream(facts: DocumentFacts, n: number): boolean {
  const obj = objectAt(facts.view.pdf, n);
  if (!(obj instanceof PdfStream)) {
    return false;
  }
  try {
    return Buffer.from(obj.getDecodedData()).toString('latin1').trim() === '';
  } catch {
    return false;
  }
}

export type AttackName =
  | 'universal-signature-forgery'
  | 'signature-wrapping'
  | 'incremental-saving'
  | 'shadow-hide'
  | 'shadow-replace'
  | 'shadow-hide-and-replace'
  | 'evil-annotation'
  | 'sneaky-signature';

export interface AttackFinding {
  name: AttackName;
  /** The signature field the pattern was found on. */
  field: string;
  detail: string;
}

const FORGERY_RULES = new Set(['byte-range-missing', 'byte-range-malformed', 'contents-missing', 'contents-empty', 'contents-not-der']);
const WRAPPING_RULES = new Set([
  'byte-range-not-from-zero',
  'byte-range-short-of-revision',
  'byte-range-duplicated',
  'contents-gap-mismatch',
  'signature-dictionary-misplaced',
]);

/** A signature whose structure is refused: forgery (no real signature) or wrapping (a real one moved). */
export function structuralAttack(field: string, rule: string, cmsVerifiesOverRange: boolean): AttackFinding | null {
  if (FORGERY_RULES.has(rule) || (rule === 'cms-malformed' && !cmsVerifiesOverRange)) {
    return {
      name: 'universal-signature-forgery',
      field,
      detail: `the signature is not one (${rule}); validators that skip it accept the file`,
    };
  }
  if (WRAPPING_RULES.has(rule) && cmsVerifiesOverRange) {
    return {
      name: 'signature-wrapping',
      field,
      detail: `the CMS verifies over its /ByteRange, but the range does not frame this signature in its revision (${rule})`,
    };
  }
  return null;
}

/**
 * The pattern of the changes a signature does not allow. `signed` is the signature's own revision,
 * `final` the file as it ends; `disallowed` are the changes after the signature it does not allow.
 */
export function modificationAttack(opts: {
  field: string;
  signed: DocumentFacts;
  final: DocumentFacts;
  disallowed: ClassifiedChange[];
  certified: boolean;
}): AttackFinding {
  const { field, signed, final, disallowed } = opts;
  const sneaky = disallowed.find((c) => c.description.startsWith('sneaky signature'));
  if (sneaky) {
    return { name: 'sneaky-signature', field, detail: sneaky.description };
  }
  // What a page shows named the attack (page-view.ts): an opaque box over signed content, a
  // widget redrawn without its value changing.
  const shown = disallowed.find((c) => c.attack);
  if (shown?.attack) {
    return { name: shown.attack, field, detail: shown.description };
  }
  if (disallowed.every((c) => c.category === 'annotation') && opts.certified) {
    return { name: 'evil-annotation', field, detail: 'annotations were added or changed after a certification that does not allow them' };
  }
  const touched = new Set(disallowed.filter((c) => c.kind !== 'removed').map((c) => c.objectNumber));
  const signedObjects = (n: number) => signed.view.size > n && !touched.has(n);
  // Content present but unreachable when signed, and shown now: prepared before signing, revealed after.
  const present = [...final.reachable].filter((n) => !signed.reachable.has(n) && signedObjects(n) && objectAt(signed.view.pdf, n) !== null);
  const pageTree = disallowed.some((c) => /page tree|\/Pages|another document catalog/.test(c.description));
  if (present.length > 0) {
    return {
      name: pageTree ? 'shadow-hide-and-replace' : 'shadow-replace',
      field,
      detail: `objects ${present.slice(0, 5).join(', ')} were in the signed revision but not shown, and are shown now`,
    };
  }
  const added = disallowed.some((c) => c.kind === 'added' && final.reachable.has(c.objectNumber));
  const hidden = [...signed.reachable].filter((n) => !final.reachable.has(n));
  if (!added && hidden.length > 0) {
    return { name: 'shadow-hide', field, detail: `objects ${hidden.slice(0, 5).join(', ')} shown when signed are no longer shown` };
  }
  // The other way to hide: a signed content stream redefined as nothing, uncovering what it covered.
  const emptied = disallowed.filter((c) => c.kind === 'changed' && isBlankStream(final, c.objectNumber));
  if (!added && emptied.length > 0 && emptied.length === disallowed.length) {
    return { name: 'shadow-hide', field, detail: `content ${emptied.map((c) => c.objectNumber).join(', ')} shown when signed was emptied` };
  }
  const first = disallowed[0];
  return { name: 'incremental-saving', field, detail: `revision ${first.revision}: ${first.description}` };
}
