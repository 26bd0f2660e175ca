// POST /api/nom151/stamp (multipart `file`): the same PDF with a NOM-151 stamp applied as a document
// time stamp revision. Answered as JSON, as public clients read it (decisions.md): the file in
// Base64 and the stamp's fields; `hash` is the SHA-256 the token attests (the bytes its /ByteRange
// covers), `pdf_sha256` that of the whole returned file.
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { insertStamp } from '../../store/stamps-repo.js';
import { applyPdfStamp } from './apply-pdf-stamp.js';
import { consumePiece, requirePieceLeft } from '../packages/consume-piece.js';
import type { StampedPdf } from '../../schemas/stamps.js';
import { stampAnswer } from './stamp-hash.js';

export async function stampPdf(deps: Deps, opts: { accountId: string; bytes: Buffer }): Promise<StampedPdf> {
  await requirePieceLeft(deps.db, { accountId: opts.accountId, kind: 'stamps', at: deps.clock.now() });
  const { pdf, issued } = await applyPdfStamp(deps, opts.bytes);
  await deps.db.transaction().execute(async (trx) => {
    await consumePiece(trx, { accountId: opts.accountId, kind: 'stamps', channel: 'pdf', at: deps.clock.now() });
    await insertStamp(trx, {
      accountId: opts.accountId,
      documentId: null,
      subject: 'pdf',
      coveredSha256: issued.hash,
      token: issued.token,
      provider: issued.provider,
      tsaName: issued.tsa,
      genTime: issued.genTime,
      serial: issued.serial,
      at: deps.clock.now(),
    });
  });
  return { pdf: pdf.toString('base64'), pdf_sha256: createHash('sha256').update(pdf).digest('hex'), ...stampAnswer(issued) };
}
