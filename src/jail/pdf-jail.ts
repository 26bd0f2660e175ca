// The PDF jail: every PDF the service reads on a client's behalf (uploads and url_doc, pdf
// templates, page data, the signature report and the verification page, QR stamping) is parsed
// in a worker thread with a heap limit and a time limit, never on the main thread.
//
// Why: the PDF library is written for cooperative files. A 600-byte file with a stray ")" in its
// page tree made it loop while allocating ~200 MB/s; on the main thread that stopped every request
// of every account and /healthz, and after ~90 s the process died out of memory. Here the worker
// that meets such a file is terminated when it passes its limits (V8 stops it at its heap limit;
// the timer here at its time), the caller gets PdfTooComplexError (422 PDF_TOO_COMPLEX), and the
// next task gets a fresh worker. What V8's heap limit does not count (the ArrayBuffers that
// inflated streams fill) is bounded as it is produced, by pdf/decode-budget.ts, inside the worker.
import { DocumentTimestampError, type DocumentTimestampProblem, type PreparedTimestamp } from '../pdf/document-timestamp.js';
import type { PdfDocumentTimestamps } from '../pdf/read-document-timestamps.js';
import { type EncryptedPolicy, PdfInputError, type PdfInfo, type PdfProblem } from '../pdf/inspect-pdf.js';
import { QrStampError, type QrPlacement } from '../pdf/qr-stamp.js';
import { SignerFieldError, type SignerFieldPlacement } from '../pdf/signer-fields.js';
import { PdfReadError, type PdfSignatures } from '../pdf/read-signatures.js';
import type { VerifiedPdf } from '../pdf/verify/verify-pdf.js';
import { TemplateError, type DetectedTemplate, type FillValues, type TemplateProblem } from '../template-types.js';
import { sharedBytes } from './shared-bytes.js';
import { PoolBusyError, WorkerLimitError, WorkerPool, WorkerTaskError, workerModule } from './worker-pool.js';

export interface PdfJailOptions {
  /** PDFs read at once, one worker thread each. */
  workers: number;
  /** Reads waiting for a worker; beyond it PdfJailBusyError. */
  queue: number;
  /** Longest one read may take before its worker is terminated. */
  timeoutMs: number;
  /** Heap limit of each worker (V8 old generation), in MB. */
  memoryMb: number;
  /** Most bytes the PDF library may decompress while it works on one file. */
  inflate: { maxTotalBytes: number };
}

/** Reading the PDF passed a limit (time, memory, decompression) and was stopped. */
export class PdfTooComplexError extends Error {
  override name = 'PdfTooComplexError';
}

/** Every worker is busy and the queue is full: the client may retry shortly. */
export class PdfJailBusyError extends Error {
  override name = 'PdfJailBusyError';
}

/** Buffers cross the thread as plain Uint8Arrays: the certificates' bytes are made Buffers again. */
function rebuildBuffers<T extends PdfSignatures>(read: T): T {
  for (const sig of read.signatures) {
    for (const cert of sig.certificates) {
      cert.der = Buffer.from(cert.der);
    }
    if (sig.signer) {
      sig.signer.der = Buffer.from(sig.signer.der);
    }
  }
  return read;
}

export class PdfJail {
  private readonly pool: WorkerPool;

  constructor(private readonly opts: PdfJailOptions) {
    this.pool = new WorkerPool({
      entry: workerModule('pdf-jail-worker', import.meta.url),
      size: opts.workers,
      maxQueue: opts.queue,
      timeoutMs: opts.timeoutMs,
      // The young generation is kept small so the limit is mostly the old generation's, which is
      // where a parser's runaway structures end up.
      resourceLimits: { maxOldGenerationSizeMb: opts.memoryMb, maxYoungGenerationSizeMb: Math.min(32, Math.max(4, opts.memoryMb / 8)) },
    });
  }

  /**
   * Pages and geometry of an upload, read strictly (pdf/inspect-pdf.ts); `encrypted` says what to do
   * with a file encrypted with an owner password only (refused by default). Throws PdfInputError.
   */
  inspect(bytes: Uint8Array, maxPages: number, encrypted: EncryptedPolicy = 'refuse'): Promise<PdfInfo> {
    return this.run('inspect', { bytes, maxPages, encrypted });
  }

  /** Every signature of a stored document (pdf/read-signatures.ts). Throws PdfReadError. */
  async readSignatures(
    bytes: Uint8Array,
    opts: { trustedRootsDer: Uint8Array[]; timestampRootsDer?: Uint8Array[] },
  ): Promise<PdfSignatures> {
    return rebuildBuffers(await this.run<PdfSignatures>('readSignatures', { bytes, ...opts }));
  }

  /**
   * Every signature of a PDF with the verifier's verdicts: structure, CMS, what came after it,
   * PAdES level and attack patterns (pdf/verify/verify-pdf.ts). Throws PdfReadError, and
   * PdfTooComplexError for a file beyond the verifier's bounds.
   */
  async verifyPdf(bytes: Uint8Array, opts: { trustedRootsDer: Uint8Array[]; timestampRootsDer?: Uint8Array[] }): Promise<VerifiedPdf> {
    return rebuildBuffers(await this.run<VerifiedPdf>('verifyPdf', { bytes, ...opts }));
  }

  /** The file with QR codes drawn (pdf/qr-stamp.ts). Throws QrStampError. */
  async stampQr(bytes: Uint8Array, placements: QrPlacement[], url: string): Promise<Buffer> {
    return Buffer.from(await this.run<Uint8Array>('stampQr', { bytes, placements, url }));
  }

  /** The file with the fields signers fill added, empty (pdf/signer-fields.ts). Throws SignerFieldError. */
  async placeSignerFields(bytes: Uint8Array, fields: SignerFieldPlacement[]): Promise<Buffer> {
    return Buffer.from(await this.run<Uint8Array>('placeSignerFields', { bytes, fields }));
  }

  /** The fields of a pdf template (pdf/form/pdf-form-template.ts). Throws TemplateError. */
  detectPdfForm(bytes: Uint8Array): Promise<DetectedTemplate> {
    return this.run('detectPdfForm', { bytes });
  }

  /** A pdf template filled and flattened (pdf/form/pdf-form-template.ts). Throws TemplateError. */
  async fillPdfForm(bytes: Uint8Array, values: FillValues): Promise<Buffer> {
    return Buffer.from(await this.run<Uint8Array>('fillPdfForm', { bytes, values }));
  }

  /** A static, printable copy: fields and annotations drawn into the pages (pdf/flatten-pdf.ts). Throws PdfInputError. */
  async flatten(bytes: Uint8Array, maxPages: number): Promise<Buffer> {
    return Buffer.from(await this.run<Uint8Array>('flatten', { bytes, maxPages }));
  }

  /** The file with a /DocTimeStamp revision reserved (pdf/document-timestamp.ts). Throws DocumentTimestampError. */
  async prepareDocumentTimestamp(bytes: Uint8Array, fieldName?: string): Promise<PreparedTimestamp> {
    const p = await this.run<PreparedTimestamp>('prepareDocumentTimestamp', { bytes, fieldName });
    return { ...p, bytes: Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength) };
  }

  /** The document time stamps of a file and its later revisions (pdf/read-document-timestamps.ts). Throws PdfReadError. */
  readDocumentTimestamps(bytes: Uint8Array): Promise<PdfDocumentTimestamps> {
    return this.run('readDocumentTimestamps', { bytes });
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async run<T>(task: string, input: Record<string, unknown>): Promise<T> {
    try {
      const bytes = input.bytes instanceof Uint8Array ? sharedBytes(input.bytes) : input.bytes;
      return await this.pool.run<T>(task, { ...input, bytes, decodeBudget: this.opts.inflate.maxTotalBytes });
    } catch (err) {
      throw this.rebuild(err);
    }
  }

  /** The worker's error as the class the callers know. */
  private rebuild(err: unknown): Error {
    if (err instanceof WorkerLimitError) {
      const what =
        err.limit === 'time' ? `took longer than ${this.opts.timeoutMs / 1000} s` : `needed more than ${this.opts.memoryMb} MB of memory`;
      return new PdfTooComplexError(`reading the PDF ${what} and was stopped; the file is malformed or too complex for this service`);
    }
    if (err instanceof PoolBusyError) {
      return new PdfJailBusyError('every PDF reader is busy; retry shortly');
    }
    if (!(err instanceof WorkerTaskError)) {
      return err as Error;
    }
    const { message, data } = err.failure;
    switch (data?.kind) {
      case 'inflate':
        return new PdfTooComplexError(`the PDF was refused: ${message}`);
      case 'input':
        return new PdfInputError(data.problem as PdfProblem, message);
      case 'template':
        return new TemplateError(data.problem as TemplateProblem, message, data.details as Record<string, unknown> | undefined);
      case 'qr':
        return new QrStampError(message);
      case 'signerFields':
        return new SignerFieldError(message);
      case 'read':
        return new PdfReadError(message);
      case 'docTimestamp':
        return new DocumentTimestampError(data.problem as DocumentTimestampProblem, message);
      default:
        return new PdfReadError(`the PDF cannot be read: ${message}`);
    }
  }
}
