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
import { endorsementsOf, insertEndorsement, lockDocumentByTicket } from '../../store/endorsements-repo.js';
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
    const chain = await endorsementsOf(trx, doc.id);
    const pending = chain.find((e) => e.status === 'pending');
    if (pending) {
      throw new AppError('ENDORSEMENT_PENDING', 'the document has an endorsement waiting for its endorser to sign', {
        endorsement_id: pending.endorsement_id,
      });
    }
    const holder = chain.filter((e) => e.status === 'signed').at(-1);
    if (holder && !isHolder(holder, req.endorser)) {
      throw new AppError(
        'NOT_HOLDER',
        `only the current holder, ${holder.endorsee_name}, may endorse the document now: the endorser must be identified by ` +
          `${[
            holder.endorsee_email && `the email ${holder.endorsee_email} (EMAIL or EMAIL_LINK)`,
            holder.endorsee_rfc && `the RFC ${holder.endorsee_rfc} (SAT)`,
          ]
            .filter(Boolean)
            .join(' or ')}`,
        { holder: { name: holder.endorsee_name } },
      );
    }
    const pdf = await readPdf(deps.pdfJail, await deps.blobs.get(doc.original_sha256), deps.config.limits.pages);
    const box = placeBox(req, pdf, chain.length);
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

/**
 * The caller's box, checked as a sticker's is; else a box at the lower right of the last page,
 * each further endorsement stacked above the one before (wrapping to the bottom when the page is full).
 */
function placeBox(req: EndorsementRequest, pdf: PdfInfo, earlier: number) {
  if (req.box) {
    const c = checkBox(req.box.page, req.box.rect, pdf);
    if (!c.ok) {
      throw invalid(c.field, c.rule);
    }
    return { page: c.page, ...c.rect };
  }
  const page = pdf.pageCount - 1;
  const { width, height } = pdf.pages[page].cropBox;
  const w = Math.min(BOX_W, width - 2 * MARGIN);
  const h = Math.min(BOX_H, height - 2 * MARGIN);
  if (w <= 0 || h <= 0) {
    throw invalid('rect', `the last page (${width} × ${height} points) is too small for an endorsement box: give page and rect`);
  }
  const perColumn = Math.max(1, Math.floor((height - 2 * MARGIN + GAP) / (h + GAP)));
  const ly = MARGIN + (earlier % perColumn) * (h + GAP);
  const lx = width - MARGIN - w;
  return { page, lx, ly, tx: lx + w, ty: ly + h };
}
