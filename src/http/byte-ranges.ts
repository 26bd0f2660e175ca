// A stored PDF sent whole or in byte ranges (RFC 9110 §14), for a viewer that reads a long document
// by parts (pdf.js with a URL asks for the chunks the page in view needs). One range per request
// (what pdf.js asks for); a request for several is answered with the whole file, which §14.2
// allows. The ETag is the blob's SHA-256: the file is content-addressed, and a signature makes a
// new file with a new hash, so If-Range never joins parts of two versions of the document.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';

export type ByteRange = { start: number; end: number };

/**
 * The range a Range header asks for within `size` bytes: undefined to send the whole file (no header,
 * another unit, several ranges or a syntax this does not read: §14.2 lets a server ignore them),
 * 'unsatisfiable' when no byte of the file is in it (§15.5.17, 416).
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) {
    return undefined;
  }
  if (m[1] === '') {
    // A suffix: the last N bytes (§14.1.2); bytes=-0 asks for nothing.
    const n = Number(m[2]);
    return n === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) {
    return undefined; // last < first: an invalid range-spec, ignored (§14.1.1)
  }
  return start >= size ? 'unsatisfiable' : { start, end };
}

/** If-Range (§13.1.5) with the file's strong ETag: a range only of the version the client holds. */
function rangeAllowed(req: FastifyRequest, etag: string): boolean {
  const ifRange = req.headers['if-range'];
  return ifRange === undefined || (typeof ifRange === 'string' && ifRange.trim() === etag);
}

/** Sends the PDF (whole: 200; a range: 206; a range outside it: 416 with the file's size). */
export function sendPdf(req: FastifyRequest, reply: FastifyReply, pdf: { bytes: Buffer; sha256: string; name: string }) {
  const etag = `"${pdf.sha256}"`;
  const size = pdf.bytes.length;
  const range = rangeAllowed(req, etag) ? parseByteRange(req.headers.range, size) : undefined;
  reply.header('accept-ranges', 'bytes').header('etag', etag);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    throw new AppError('RANGE_NOT_SATISFIABLE', `range: no byte of the ${size}-byte file is in ${req.headers.range}`, {
      field: 'range',
      size,
    });
  }
  reply
    .type('application/pdf')
    .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(pdf.name)}`)
    .header('cache-control', 'no-store');
  if (range === undefined) {
    return reply.send(pdf.bytes);
  }
  return reply
    .code(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
    .send(pdf.bytes.subarray(range.start, range.end + 1));
}
