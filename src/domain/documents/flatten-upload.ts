// POST /api/print: an uploaded PDF as a static, printable file (pdf/flatten-pdf.ts, in the PDF jail).
import type { Deps } from '../deps.js';
import { pdfJailError } from './read-pdf.js';

export async function flattenUpload(deps: Pick<Deps, 'config' | 'pdfJail'>, opts: { bytes: Buffer }): Promise<Buffer> {
  try {
    return await deps.pdfJail.flatten(opts.bytes, deps.config.limits.pages);
  } catch (err) {
    throw pdfJailError(err);
  }
}
