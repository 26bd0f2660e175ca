// Bounds what the Flate streams of a PDF inflate to, before the PDF library sees the file.
//
// Why here and not in the library: @libpdf/core inflates object streams and cross-reference
// streams while it parses (and any other stream when it is read) with pako.inflate, whole and
// without any limit. A 1 MB file whose object stream inflates to 1 GiB held the parser for many
// seconds and took 2 GB. The library offers no hook on its filters, so every stream that could be
// zlib data is inflated here first, with node:zlib in streaming mode: the output is counted and
// thrown away chunk by chunk (never held), and inflation stops the moment the file's total output
// or one stream's ratio passes its limit. Pure: bytes in, a verdict out.
import { constants, createInflate } from 'node:zlib';

export interface InflateLimits {
  /** Most bytes all the file's Flate streams may inflate to, together. */
  maxTotalBytes: number;
  /** Most output bytes per compressed byte of one stream, once it has inflated past RATIO_FLOOR. */
  maxRatio: number;
}

/** The file's compressed streams inflate beyond the limits: a decompression bomb, or too much to handle. */
export class InflateLimitError extends Error {
  override name = 'InflateLimitError';
}

/** Below this output a stream's ratio is not judged: small runs of blank data compress very well. */
export const RATIO_FLOOR = 1024 * 1024;

/** Where a stream's data starts: the keyword, not "endstream", then CRLF or LF (§7.3.8.1; CR alone tolerated). */
const STREAM_KEYWORD = /(?<!end)stream(?:\r\n|\n|\r)/g;

/** A zlib header (RFC 1950 §2.2): deflate, a window of at most 32K, the check bits right. */
function zlibHeaderAt(bytes: Uint8Array, at: number): boolean {
  const cmf = bytes[at];
  const flg = bytes[at + 1];
  return at + 1 < bytes.length && (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

/**
 * Inflates every stream of the file whose data starts with a zlib header, whatever its dictionary
 * says (a /Filter can be an indirect object, and the library follows it). Each inflation reads
 * until its own end marker, not up to "endstream" or /Length, which a file can get wrong on
 * purpose. Throws InflateLimitError past a limit; answers the total output otherwise.
 */
export async function checkFlateStreams(bytes: Uint8Array, limits: InflateLimits): Promise<{ streams: number; inflatedBytes: number }> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let total = 0;
  let streams = 0;
  for (const m of text.matchAll(STREAM_KEYWORD)) {
    const start = m.index + m[0].length;
    if (!zlibHeaderAt(bytes, start)) {
      continue;
    }
    streams++;
    total += await inflateCounting(bytes.subarray(start), limits, total);
  }
  return { streams, inflatedBytes: total };
}

/** One stream's output size; rejects as soon as the running total or the stream's ratio is over. */
function inflateCounting(data: Uint8Array, limits: InflateLimits, before: number): Promise<number> {
  return new Promise((resolve, reject) => {
    // Z_SYNC_FLUSH: a stream cut short still inflates what it has, as readers (and the library) do.
    const z = createInflate({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
    let out = 0;
    let done = false;
    const stop = (err: Error | null) => {
      if (done) {
        return;
      }
      done = true;
      z.destroy();
      if (err) {
        reject(err);
      } else {
        resolve(out);
      }
    };
    z.on('data', (chunk: Buffer) => {
      out += chunk.length;
      if (before + out > limits.maxTotalBytes) {
        stop(
          new InflateLimitError(
            `its compressed streams inflate to more than ${Math.round(limits.maxTotalBytes / 1048576)} MB (a decompression bomb, or more data than this service reads)`,
          ),
        );
      } else if (out > RATIO_FLOOR && out / Math.max(1, z.bytesWritten) > limits.maxRatio) {
        stop(new InflateLimitError(`a compressed stream inflates more than ${limits.maxRatio} times its size (a decompression bomb)`));
      }
    });
    // Data that is not valid zlib after all ends this stream's count: the library gets no more from it.
    z.on('error', () => stop(null));
    z.on('end', () => stop(null));
    z.end(data);
  });
}
