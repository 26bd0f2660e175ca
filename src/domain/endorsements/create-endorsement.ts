// POST /api/document/{ticket}/endorse: a completed document passes to a new holder. The endorsement
// waits for its endorser, who signs it through the returned link like any signer (the signer page,
// with the proof the authority asks for); the signature is a further revision of the document
// (sign-document.ts), its appearance stating the endorsement.
import type { Deps } from '../deps.js';
import { AppError, invalid } from '../errors.js';
import { newPublicId, newSigningToken } from '../ids.js';
import { appendHistory } from '../history/append-history.js';
import { checkBox } from '../documents/validate-stickers.js';
import { readPdf } from '../documents/read-pdf.js';
import {
  boxesOfDocument,
  documentByTicket,
  endorsementsOf,
  insertEndorsement,
  lockDocumentByTicket,
} from '../../store/endorsements-repo.js';
import { parseEndorsement, type EndorsementRequest } from './parse-endorsement.js';
import { isHolder } from './holder.js';
import type { PdfInfo } from '../../pdf/inspect-pdf.js';

export interface CreatedEndorsement {
  endorsement_id: string;
  signer_url: string;
  sequence: number;
}

export async function createEndorsement(deps: Deps, o: { accountId: string; ticket: string; body: unknown }): Promise<CreatedEndorsement> {
  const req = parseEndorsement(o.body);
  // The pages are measured before the document row is locked: parsing may take seconds, and the
  // lock would hold up every request on the document meanwhile. Locked, the file must be the same.
  const found = await documentByTicket(deps.db, o.accountId, o.ticket);
  if (!found) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document with ticket ${o.ticket}`);
  }
  const pdf = await readPdf(deps.pdfJail, await deps.blobs.get(found.original_sha256), deps.config.limits.pages);
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentByTicket(trx, o.accountId, o.ticket);
    if (!doc) {
      throw new AppError('DOCUMENT_NOT_FOUND', `no document with ticket ${o.ticket}`);
    }
    if (doc.status !== 'completed') {
      throw new AppError('DOCUMENT_NOT_COMPLETED', `only a completed document can be endorsed; this one is ${doc.status}`, {
        status: doc.status,
      });
    }
    if (doc.original_sha256 !== found.original_sha256) {
      throw new AppError('INVALID_STATE', 'the document gained a signature while the endorsement was prepared: send the request again');
    }
    const chain = await endorsementsOf(trx, doc.id);
    const pending = chain.find((e) => e.status === 'pending');
    if (pending) {
      throw new AppError('ENDORSEMENT_PENDING', 'the document has an endorsement waiting for its endorser to sign', {
        endorsement_id: pending.endorsement_id,
      });
    }
    const holder = chain.filter((e) => e.status === 'signed').at(-1);
    if (holder && !isHolder(holder, req.endorser)) {
      const proofs = [
        holder.endorsee_email && `EMAIL with ${holder.endorsee_email} (a code is sent there)`,
        holder.endorsee_rfc && `SAT with ${holder.endorsee_rfc} (their e.firma)`,
      ].filter(Boolean);
      throw new AppError(
        'NOT_HOLDER',
        `only the current holder, ${holder.endorsee_name}, may endorse the document now; the endorser must be ${proofs.join(' or ')}`,
        { holder: { name: holder.endorsee_name } },
      );
    }
    const box = placeBox(req, pdf, await boxesOfDocument(trx, doc.id));
    const token = newSigningToken();
    const now = deps.clock.now();
    const endorsementId = newPublicId();
    const signerId = newPublicId();
    const sequence = await insertEndorsement(trx, {
      endorsementId,
      documentId: doc.id,
      type: req.type,
      text: req.text,
      endorser: { ...req.endorser, email: req.endorser.authority.startsWith('EMAIL') ? req.endorser.data : null },
      endorsee: req.endorsee,
      signerId,
      tokenHash: token.hash,
      tokenSealed: deps.secrets.seal(token.token),
      stickerId: newPublicId(),
      box,
      at: now,
    });
    await appendHistory(trx, {
      documentId: doc.id,
      at: now,
      action: 'endorsement_requested',
      actor: 'account',
      details: {
        endorsement_id: endorsementId,
        sequence,
        type: req.type,
        endorser: { name: req.endorser.name, authority: req.endorser.authority, signer_id: signerId },
        endorsee: { name: req.endorsee.name },
      },
    });
    return { endorsement_id: endorsementId, signer_url: `${deps.config.publicUrl}/sign/${token.token}`, sequence };
  });
}

const MARGIN = 36;
const BOX_W = 260;
const BOX_H = 110;
const GAP = 8;

type Box = { page: number; lx: number; ly: number; tx: number; ty: number };

const overlaps = (a: Box, b: Box) => a.page === b.page && a.lx < b.tx && b.lx < a.tx && a.ly < b.ty && b.ly < a.ty;

/**
 * The caller's box, checked as a sticker's is; else the first free place at the lower right of the
 * last page, filling columns from the bottom up and then leftwards. Never over another signature's
 * box: a later appearance drawn on an earlier one could hide what it says, and the verifier allows
 * a new signature widget anywhere.
 */
function placeBox(req: EndorsementRequest, pdf: PdfInfo, taken: Box[]): Box {
  if (req.box) {
    const c = checkBox(req.box.page, req.box.rect, pdf);
    if (!c.ok) {
      throw invalid(c.field, c.rule);
    }
    const box = { page: c.page, ...c.rect };
    if (taken.some((t) => overlaps(t, box))) {
      throw invalid('rect', 'the box overlaps a signature box already on that page: an endorsement may not cover another signature');
    }
    return box;
  }
  const page = pdf.pageCount - 1;
  const { width, height } = pdf.pages[page].cropBox;
  const w = Math.min(BOX_W, width - 2 * MARGIN);
  const h = Math.min(BOX_H, height - 2 * MARGIN);
  for (let lx = width - MARGIN - w; w > 0 && h > 0 && lx >= MARGIN; lx -= w + GAP) {
    for (let ly = MARGIN; ly + h <= height - MARGIN; ly += h + GAP) {
      const box = { page, lx, ly, tx: lx + w, ty: ly + h };
      if (!taken.some((t) => overlaps(t, box))) {
        return box;
      }
    }
  }
  throw invalid('rect', `no free place on the last page (${width} × ${height} points) for an endorsement box: give page and rect`);
}
