// Strict Base64 decoding for request fields: Buffer.from() silently skips invalid characters,
// which would turn a corrupt upload into a different file instead of an error.
import { AppError, type ErrorCode } from './errors.js';

// Character-class searches stop at the first offending character and run far faster on a 30 MB
// string than an anchored ^[...]*$ match.
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;
const NOT_BASE64URL = /[^A-Za-z0-9_-]/;

/** Standard Base64: its alphabet, '=' only as one or two final padding characters, length % 4 == 0. */
function isStandardBase64(text: string): boolean {
  if (text.length % 4 !== 0 || NOT_BASE64.test(text)) {
    return false;
  }
  const pad = text.indexOf('=');
  return pad === -1 || (pad >= text.length - 2 && text.endsWith('='.repeat(text.length - pad)));
}

export interface DecodeOptions {
  field: string;
  maxBytes: number;
  /** Code for text that is not Base64 (b64_doc answers 422 PDF_INVALID; other fields 400). */
  invalidCode?: ErrorCode;
  /**
   * Decode into shared memory: a file the PDF jail's workers will read, which then reach it
   * without a copy (jail/shared-bytes.ts).
   */
  shared?: boolean;
}

export function decodeBase64(value: string, opts: DecodeOptions): Buffer {
  // Tolerated: a data: URI prefix and line breaks (both common in what clients send).
  const text = value.replace(/^data:[\w.+/-]+;base64,/i, '').replace(/[\r\n\t ]+/g, '');
  if (Math.floor((text.length * 3) / 4) > opts.maxBytes + 2) {
    throw new AppError('DOCUMENT_TOO_LARGE', `${opts.field}: larger than the limit of ${Math.round(opts.maxBytes / 1048576)} MB`, {
      field: opts.field,
    });
  }
  const standard = isStandardBase64(text);
  if (!standard && NOT_BASE64URL.test(text)) {
    throw new AppError(opts.invalidCode ?? 'INVALID_INPUT', `${opts.field}: not valid Base64`, { field: opts.field });
  }
  const encoding = standard ? 'base64' : 'base64url';
  const bytes = opts.shared ? sharedDecode(text, encoding) : Buffer.from(text, encoding);
  if (bytes.length > opts.maxBytes) {
    throw new AppError('DOCUMENT_TOO_LARGE', `${opts.field}: larger than the limit of ${Math.round(opts.maxBytes / 1048576)} MB`, {
      field: opts.field,
    });
  }
  if (bytes.length === 0) {
    throw new AppError(opts.invalidCode ?? 'INVALID_INPUT', `${opts.field}: empty`, { field: opts.field });
  }
  return bytes;
}

function sharedDecode(text: string, encoding: 'base64' | 'base64url'): Buffer {
  const bytes = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(text, encoding)));
  bytes.write(text, encoding);
  return bytes;
}
