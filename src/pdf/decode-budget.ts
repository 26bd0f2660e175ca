// Bounds what the PDF library decompresses while it works on a file: a budget of bytes, each
// decoding charged before it runs, never a ratio.
//
// Why bytes and not a ratio: ordinary files inflate far more than any sensible ratio. A 300-dpi
// scan of a blank A4 page is 8.7 MB of grayscale that Flate packs into 8.5 KB (about 1,000 times),
// and a flat-colour image or a repetitive content stream does the same. What hurts the service is
// what it inflates, not how well the data compressed: the library inflates (pako, whole, outside
// the worker's heap limit) the object streams and cross-reference streams it parses, and any other
// stream a task reads; a 1 MB object stream that inflates to 1 GiB once held the parser for
// seconds and took 2 GB. So every byte the library decodes, through whatever filter, is charged to
// the task's budget, and the task stops at the budget: a bomb is never inflated whole nor held, and
// an image the task never reads costs nothing, however large it would be.
//
// How: every decoding the library does goes through PdfStream.getDecodedData, metered here only
// while a budget is active (in the PDF jail's worker threads; the main thread never installs it).
// A stream is decoded one filter at a time, and before each expanding filter runs, the size of
// what it will produce is found without producing it and charged: Flate by inflating with the
// library's own inflater while keeping nothing (a bomb costs time up to the budget, never memory),
// LZW, RunLength and CCITT fax (which write into one growing buffer: LZW up to ~2,700 times,
// RunLength 64, CCITT beyond any ratio) from their codes. A Flate stream inside a Flate stream is
// charged at each layer, as it is inflated at each.
import { PdfName, PdfStream, type PdfDict, type PdfObject } from '@libpdf/core';
import pako from 'pako';

/** The task's decoders produced more bytes than its budget: a decompression bomb, or more data than the service reads. */
export class DecodeLimitError extends Error {
  override name = 'DecodeLimitError';
}

class Budget {
  left: number;
  exceeded = false;

  constructor(readonly limit: number) {
    this.left = limit;
  }

  /** Charges `bytes` about to be (or just) produced; throws once the budget is spent. */
  charge(bytes: number): void {
    this.left -= bytes;
    if (this.left < 0) {
      this.exceeded = true;
      throw this.error();
    }
  }

  error(): DecodeLimitError {
    return new DecodeLimitError(
      `its compressed streams decompress to more than ${Math.round(this.limit / 1048576)} MB (a decompression bomb, or more data than this service reads)`,
    );
  }
}

let active: Budget | undefined;

/**
 * Runs `work` with every decoding the PDF library does charged to a budget of `limitBytes`. Throws
 * DecodeLimitError when the budget runs out, even if the library caught the error on its way (its
 * Flate filter swallows errors and answers empty data). One task at a time per thread.
 */
export async function withDecodeBudget<T>(limitBytes: number, work: () => Promise<T>): Promise<T> {
  install();
  const budget = new Budget(limitBytes);
  active = budget;
  try {
    const out = await work();
    if (budget.exceeded) {
      throw budget.error();
    }
    return out;
  } catch (err) {
    throw budget.exceeded ? budget.error() : err;
  } finally {
    active = undefined;
  }
}

let installed = false;

function install(): void {
  if (installed) {
    return;
  }
  installed = true;
  const decode = PdfStream.prototype.getDecodedData;
  PdfStream.prototype.getDecodedData = function (this: PdfStream): Uint8Array {
    const budget = active;
    const specs = budget ? filterSpecs(this) : [];
    if (!budget || specs.length === 0) {
      return decode.call(this);
    }
    let data = this.data;
    for (const spec of specs) {
      const expected = decodedLength(spec.name, data, spec.params, budget.left);
      budget.charge(expected);
      const entries: Record<string, PdfObject> = { Filter: PdfName.of(spec.name) };
      if (spec.params) {
        entries.DecodeParms = spec.params;
      }
      data = decode.call(PdfStream.fromDict(entries, data));
      // Exact in the end: what the count could not see (a stream cut short, a filter not counted).
      budget.charge(Math.max(0, data.length - expected));
    }
    return data;
  };
}

interface FilterSpec {
  name: string;
  params?: PdfDict;
}

/** The filter chain exactly as the library reads it (its own method, so both always agree). */
function filterSpecs(stream: PdfStream): FilterSpec[] {
  const entry = stream.get('Filter');
  if (!entry) {
    return [];
  }
  const build = (stream as unknown as { buildFilterSpecs(e: PdfObject): FilterSpec[] }).buildFilterSpecs;
  return build.call(stream, entry);
}

/**
 * What the library's decoder `name` will produce from `data` (a bound for CCITT; 0 for the filters
 * that shrink or keep the size, charged once they ran), counting past `limit` only far enough to
 * exceed it.
 */
export function decodedLength(name: string, data: Uint8Array, params: PdfDict | undefined, limit: number): number {
  switch (name) {
    case 'FlateDecode':
      return flateLength(data, limit);
    case 'LZWDecode':
      return lzwLength(data, params?.getNumber('EarlyChange')?.value ?? 1, limit);
    case 'RunLengthDecode':
      return runLengthLength(data, limit);
    case 'CCITTFaxDecode': {
      // Every row takes at least one bit, and two rows of `columns` bytes are held besides the output.
      const columns = params?.getNumber('Columns')?.value ?? 1728;
      const rows = params?.getNumber('Rows')?.value ?? 0;
      const maxRows = rows > 0 ? Math.min(rows, data.length * 8) : data.length * 8;
      return Math.ceil(Math.max(0, columns) / 8) * maxRows + 2 * Math.max(0, columns);
    }
    default:
      return 0;
  }
}

const STOP = new Error('past the limit');

/**
 * Flate (§7.4.4; RFC 1950) as the library inflates it, with its own inflater, counting the output
 * 64 KB at a time and keeping none of it. A predictor (§7.4.4.4) only shrinks what it is given.
 */
export function flateLength(data: Uint8Array, limit: number): number {
  const inflater = new pako.Inflate();
  let total = 0;
  inflater.onData = (chunk: Uint8Array) => {
    total += chunk.length;
    if (total > limit) {
      throw STOP;
    }
  };
  inflater.onEnd = () => undefined;
  try {
    inflater.push(data, true);
  } catch (err) {
    if (err !== STOP) {
      throw err;
    }
  }
  return total;
}

/**
 * LZW (§7.4.4) as the library decodes it, counting lengths instead of bytes: a code's string is one
 * longer than the string it extends, so a table of lengths gives the output size.
 */
export function lzwLength(data: Uint8Array, earlyChange: number, limit: number): number {
  const lengths = new Uint32Array(4096);
  lengths.fill(1, 0, 256);
  const totalBits = data.length * 8;
  let bitPos = 0;
  let codeLength = 9;
  let nextCode = 258;
  let prev = 0; // length of the previous string; 0: none since the last clear
  let total = 0;
  while (total <= limit) {
    if (bitPos + codeLength > totalBits) {
      break; // the library reads a code cut short by the end of data as the end
    }
    let code = 0;
    for (let i = 0; i < codeLength; i++, bitPos++) {
      code = (code << 1) | ((data[bitPos >> 3] >> (7 - (bitPos & 7))) & 1);
    }
    if (code === 257) {
      break;
    }
    if (code === 256) {
      codeLength = 9;
      nextCode = 258;
      prev = 0;
      continue;
    }
    let length: number;
    if (code < nextCode) {
      length = lengths[code];
    } else if (code === nextCode && prev > 0) {
      length = prev + 1;
    } else {
      break; // the library throws here: nothing more is produced
    }
    total += length;
    if (prev > 0 && nextCode < 4096) {
      lengths[nextCode] = prev + 1;
      nextCode++;
      const threshold = earlyChange === 1 ? nextCode : nextCode - 1;
      if (threshold === 512 && codeLength < 10) {
        codeLength = 10;
      } else if (threshold === 1024 && codeLength < 11) {
        codeLength = 11;
      } else if (threshold === 2048 && codeLength < 12) {
        codeLength = 12;
      }
    }
    prev = length;
  }
  return total;
}

/** RunLengthDecode (§7.4.5) as the library decodes it: a length byte, then literal bytes or one repeated byte. */
export function runLengthLength(data: Uint8Array, limit: number): number {
  let total = 0;
  let i = 0;
  while (i < data.length && total <= limit) {
    const length = data[i++];
    if (length === 128) {
      break;
    }
    if (length < 128) {
      const count = Math.min(length + 1, data.length - i);
      total += count;
      i += count;
    } else {
      total += 257 - length;
      i++;
    }
  }
  return total;
}
