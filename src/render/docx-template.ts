// The docx template engine: detects the merge fields and content controls of a Word document and
// fills them with values as plain text in the formatting the template author gave the field.
// Pure: bytes in, bytes out. The XML is edited through a DOM, never with regular expressions,
// because runs, fields and controls nest and split in ways a pattern cannot follow.
import { XMLSerializer } from '@xmldom/xmldom';
import { findOccurrences } from './docx-fields.js';
import { fillComplex, fillSdt, fillSimple } from './docx-fill.js';
import { openPackage } from './docx-package.js';
import type { DetectedTemplate, FillValues } from './types.js';

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
