// Strict Base64 decoding for request fields: Buffer.from() silently skips invalid characters,
// which would turn a corrupt upload into a different file instead of an error.
import { AppError, type ErrorCode } from './errors.js';

// Character-class searches stop at the first offending character and run far faster on a 30 MB
// string than an anchored ^[...]*$ match.
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;
const NOT_BASE64URL = /[^A-Za-z0-9_-]/;
const DATA_URI = /^data:[\w.+/-]+;base64,/i;

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
  const text = value.replace(DATA_URI, '').replace(/[\r\n\t ]+/g, '');
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

/**
 * Characters decoded at a time by decodeBase64Ascii: a multiple of 4, so that every slice but the
 * last decodes whole; and small, so that each slice's string is made in V8's young generation and
 * goes at its next scavenge: slices of megabytes each go to the large-object space, and the 68 MB of
 * them a 50 MB document makes stayed until a full collection (measured: 100 MB more at the peak).
 */
const ASCII_SLICE = 32 * 1024;

/**
 * decodeBase64 of text held as its bytes, one byte per character (the Base64 of a large JSON body,
 * left where it lies in the body: http/json-base64-field.ts), with the same result and the same
 * errors, without ever making the text a string: it is checked and decoded a slice at a time. What
 * decodeBase64 strips (line breaks, spaces, a data: URI prefix too long to see at once) sends the
 * text the string way instead, still exact. `sliceChars` is for tests.
 */
export function decodeBase64Ascii(ascii: Uint8Array, opts: DecodeOptions, sliceChars = ASCII_SLICE): Buffer {
  const all = Buffer.from(ascii.buffer, ascii.byteOffset, ascii.byteLength);
  const prefix = dataUriPrefixLength(all);
  if (prefix === undefined || [0x0d, 0x0a, 0x09, 0x20].some((c) => all.includes(c))) {
    return decodeBase64(all.toString('latin1'), opts);
  }
  const text = all.subarray(prefix);
  const n = text.length;
  if (Math.floor((n * 3) / 4) > opts.maxBytes + 2) {
    throw new AppError('DOCUMENT_TOO_LARGE', `${opts.field}: larger than the limit of ${Math.round(opts.maxBytes / 1048576)} MB`, {
      field: opts.field,
    });
  }
  const slices = (fn: (slice: string, from: number) => boolean | undefined) => {
    for (let from = 0; from < n; from += sliceChars) {
      if (fn(text.toString('latin1', from, Math.min(n, from + sliceChars)), from) === false) {
        return false;
      }
    }
    return true;
  };
  // isStandardBase64, over the bytes.
  const pad = text.indexOf(0x3d);
  const standard =
    n % 4 === 0 && (pad === -1 || (pad >= n - 2 && text.subarray(pad).every((c) => c === 0x3d))) && slices((s) => !NOT_BASE64.test(s));
  if (!standard && !slices((s) => !NOT_BASE64URL.test(s))) {
    throw new AppError(opts.invalidCode ?? 'INVALID_INPUT', `${opts.field}: not valid Base64`, { field: opts.field });
  }
  const encoding = standard ? 'base64' : 'base64url';
  // Buffer.byteLength(text, encoding): three bytes for four characters, less one per final '='.
  let chars = n;
  for (let i = 0; i < 2 && chars > (i === 0 ? 0 : 1) && text[chars - 1] === 0x3d; i++) {
    chars--;
  }
  const length = (chars * 3) >>> 2;
  const bytes = opts.shared ? Buffer.from(new SharedArrayBuffer(length)) : Buffer.allocUnsafe(length);
  let written = 0;
  slices((s) => {
    written += bytes.write(s, written, encoding);
    return true;
  });
  // Buffer.from(text) ends where the decoding did; the shared decode keeps byteLength's length.
  const decoded = opts.shared ? bytes : bytes.subarray(0, written);
  if (decoded.length > opts.maxBytes) {
    throw new AppError('DOCUMENT_TOO_LARGE', `${opts.field}: larger than the limit of ${Math.round(opts.maxBytes / 1048576)} MB`, {
      field: opts.field,
    });
  }
  if (decoded.length === 0) {
    throw new AppError(opts.invalidCode ?? 'INVALID_INPUT', `${opts.field}: empty`, { field: opts.field });
  }
  return decoded;
}

/** How many bytes decodeBase64's data: URI prefix takes; undefined when only the whole text can tell. */
function dataUriPrefixLength(all: Buffer): number | undefined {
  const window = all.toString('latin1', 0, Math.min(all.length, 4096));
  const m = DATA_URI.exec(window);
  if (m) {
    return m[0].length;
  }
  // A prefix still going at the window's end might end beyond it.
  return window.length < all.length && /^data:[\w.+/-]*(?:;(?:b(?:a(?:s(?:e(?:6(?:4)?)?)?)?)?)?)?$/i.test(window) ? undefined : 0;
}
