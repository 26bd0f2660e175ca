// POST /api/nom151/stamp (multipart `file`): the same PDF with a NOM-151 stamp applied as a document
// time stamp revision. Answered as JSON, as public clients read it (decisions.md): the file in
// Base64 and the stamp's fields; `hash` is the SHA-256 the token attests (the bytes its /ByteRange
// covers), `pdf_sha256` that of the whole returned file.
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { applyPdfStamp } from './apply-pdf-stamp.js';
import { requirePieceLeft } from '../packages/consume-piece.js';
import type { StampedPdf } from '../../schemas/stamps.js';
import { recordApiStamp, stampAnswer } from './stamp-hash.js';

export async function stampPdf(deps: Deps, opts: { accountId: string; bytes: Buffer }): Promise<StampedPdf> {
  await requirePieceLeft(deps.db, { accountId: opts.accountId, kind: 'stamps', at: deps.clock.now() });
  const { pdf, issued } = await applyPdfStamp(deps, opts.bytes);
  await recordApiStamp(deps, opts.accountId, 'pdf', issued);
  return { pdf: pdf.toString('base64'), pdf_sha256: createHash('sha256').update(pdf).digest('hex'), ...stampAnswer(issued) };
}
