// The worker side of PdfJail: every PDF read on a client's behalf runs here, on its own thread
// with a heap limit, stopped by the parent when it runs out of time. Each task runs with what the
// PDF library decompresses charged to a budget of bytes (pdf/decode-budget.ts), and hands the
// bytes to the pure library that does the work. Errors go back as data (their kind and problem)
// for PdfJail to rebuild.
import { DocumentTimestampError, prepareDocumentTimestamp } from '../pdf/document-timestamp.js';
import { DocumentTimestampReadError, readDocumentTimestamps } from '../pdf/read-document-timestamps.js';
import { DecodeLimitError, withDecodeBudget } from '../pdf/decode-budget.js';
import { flattenPdf } from '../pdf/flatten-pdf.js';
import { type EncryptedPolicy, inspectPdf, PdfInputError, refuseIfPasswordNeeded } from '../pdf/inspect-pdf.js';
import { QrStampError, stampQrCodes, type QrPlacement } from '../pdf/qr-stamp.js';
import { SignerFieldError, placeSignerFields, type SignerFieldPlacement } from '../pdf/signer-fields.js';
import { PdfReadError, readSignatures } from '../pdf/read-signatures.js';
import { VerifyLimitError, verifyPdf } from '../pdf/verify/verify-pdf.js';
import { detectPdfForm, fillPdfForm } from '../pdf/form/pdf-form-template.js';
import { TemplateError, type FillValues } from '../template-types.js';
import { retireAfterTask, serveTasks } from './serve-tasks.js';

interface Common {
  bytes: Uint8Array;
  /** Most bytes the library may decompress for this task. */
  decodeBudget: number;
}

/**
 * A worker that read a file this large ends after the task. Its heap grew to hold the file's
 * object model (a 1,000-page, 50 MB file: about 150 MB) and would keep that memory until the
 * worker next collects garbage, which an idle worker never does; a fresh worker costs far less
 * than such a read.
 */
const RETIRE_AFTER_BYTES = 8 * 1024 * 1024;

function admitted<T>(m: Common, work: () => Promise<T>): Promise<T> {
  if (m.bytes.byteLength > RETIRE_AFTER_BYTES) {
    retireAfterTask();
  }
  return withDecodeBudget(m.decodeBudget, work);
}

serveTasks(
  {
    inspect: (m: Common & { maxPages: number; encrypted?: EncryptedPolicy }) =>
      admitted(m, () => inspectPdf(m.bytes, { maxPages: m.maxPages, encrypted: m.encrypted })),
    // Encrypted signed files are read as readers read them (pdf/encrypted-pdf.ts); one that needs a password is refused.
    readSignatures: (m: Common & { trustedRootsDer: Uint8Array[]; timestampRootsDer?: Uint8Array[] }) =>
      admitted(m, async () => {
        await refuseIfPasswordNeeded(m.bytes);
        return readSignatures(m.bytes, { trustedRootsDer: m.trustedRootsDer, timestampRootsDer: m.timestampRootsDer });
      }),
    verifyPdf: (m: Common & { trustedRootsDer: Uint8Array[]; timestampRootsDer?: Uint8Array[] }) =>
      admitted(m, async () => {
        await refuseIfPasswordNeeded(m.bytes);
        return verifyPdf(m.bytes, { trustedRootsDer: m.trustedRootsDer, timestampRootsDer: m.timestampRootsDer });
      }),
    stampQr: (m: Common & { placements: QrPlacement[]; url: string }) => admitted(m, () => stampQrCodes(m.bytes, m.placements, m.url)),
    placeSignerFields: (m: Common & { fields: SignerFieldPlacement[] }) => admitted(m, () => placeSignerFields(m.bytes, m.fields)),
    detectPdfForm: (m: Common) => admitted(m, () => detectPdfForm(m.bytes)),
    fillPdfForm: (m: Common & { values: FillValues }) => admitted(m, () => fillPdfForm(m.bytes, m.values)),
    flatten: (m: Common & { maxPages: number }) => admitted(m, async () => (await flattenPdf(m.bytes, { maxPages: m.maxPages })).pdf),
    prepareDocumentTimestamp: (m: Common & { fieldName?: string }) =>
      admitted(m, () => prepareDocumentTimestamp(m.bytes, { fieldName: m.fieldName })),
    readDocumentTimestamps: (m: Common) => admitted(m, () => readDocumentTimestamps(m.bytes)),
  },
  (err) => {
    if (err instanceof DecodeLimitError || err instanceof VerifyLimitError) {
      return { kind: 'inflate' };
    }
    if (err instanceof PdfInputError) {
      return { kind: 'input', problem: err.problem };
    }
    if (err instanceof TemplateError) {
      return { kind: 'template', problem: err.problem, details: err.details };
    }
    if (err instanceof QrStampError) {
      return { kind: 'qr' };
    }
    if (err instanceof SignerFieldError) {
      return { kind: 'signerFields' };
    }
    if (err instanceof DocumentTimestampError) {
      return { kind: 'docTimestamp', problem: err.problem };
    }
    if (err instanceof PdfReadError || err instanceof DocumentTimestampReadError) {
      return { kind: 'read' };
    }
    // A RangeError from deep recursion in the library, or any other failure while reading: the
    // file could not be read, which is the client's to know; the parent logs nothing more.
    return { kind: 'other' };
  },
);
