// The signatures and document time stamps already in a PDF, as the long-term validation step needs
// them: the bytes of each /Contents (the CMS, or the RFC 3161 token of a /DocTimeStamp) and where
// it ends, in file order. Read only; judging them is the report's job (read-signatures.ts), this
// only says what validation data is owed to whom.
import { PDF, PdfArray, PdfName, PdfNumber, PdfString } from '@libpdf/core';
import { PdfSignError } from './sign-errors.js';

export interface SignedField {
  fieldName: string;
  /** `document_timestamp` for /Type /DocTimeStamp (SubFilter ETSI.RFC3161), else `signature`. */
  kind: 'signature' | 'document_timestamp';
  subFilter: string;
  /** The /Contents value as written, zero padding included (the SHA-1 of these bytes keys its VRI entry). */
  contents: Uint8Array;
  /** Offset where its /ByteRange ends: the length of the revision it signs. */
  coveredLength: number;
}

/** Every signed signature field of the PDF, in the order their revisions were written. */
export async function readSignedFields(bytes: Uint8Array): Promise<SignedField[]> {
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (err) {
    throw new PdfSignError('SIGNING_FAILED', `the PDF cannot be read: ${(err as Error).message}`);
  }
  return signedFieldsOf(pdf);
}

export function signedFieldsOf(pdf: PDF): SignedField[] {
  const out: SignedField[] = [];
  for (const field of pdf.getForm()?.getSignatureFields() ?? []) {
    const dict = field.isSigned() ? field.getSignatureDict() : null;
    const contents = dict?.get('Contents');
    const range = dict?.get('ByteRange');
    if (!dict || !(contents instanceof PdfString) || !(range instanceof PdfArray) || range.length !== 4) {
      continue;
    }
    const n = (i: number) => {
      const v = range.at(i);
      return v instanceof PdfNumber ? v.value : 0;
    };
    const type = dict.get('Type');
    const subFilter = dict.get('SubFilter');
    const sub = subFilter instanceof PdfName ? subFilter.value : '';
    out.push({
      fieldName: field.name,
      kind: (type instanceof PdfName && type.value === 'DocTimeStamp') || sub === 'ETSI.RFC3161' ? 'document_timestamp' : 'signature',
      subFilter: sub,
      contents: contents.bytes,
      coveredLength: n(2) + n(3),
    });
  }
  return out.sort((a, b) => a.coveredLength - b.coveredLength);
}
