// GET /api/document/{ticket}/endorsements: the chain, in order, and who holds the document now.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { documentByTicket, endorsementsOf, type EndorsementRow } from '../../store/endorsements-repo.js';
import type { EndorsementChain, EndorsementEntry } from '../../schemas/endorsements.js';

export async function listEndorsements(deps: Deps, o: { accountId: string; ticket: string }): Promise<EndorsementChain> {
  const doc = await documentByTicket(deps.db, o.accountId, o.ticket);
  if (!doc) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document with ticket ${o.ticket}`);
  }
  return endorsementChain(await endorsementsOf(deps.db, doc.id));
}

/** The chain as the API, the report and the history PDF show it. */
export function endorsementChain(rows: EndorsementRow[]): EndorsementChain {
  const holder = rows.filter((e) => e.status === 'signed').at(-1);
  return {
    endorsements: rows.map(endorsementEntry),
    holder: holder ? { name: holder.endorsee_name, email: holder.endorsee_email, rfc: holder.endorsee_rfc } : null,
  };
}

/** One endorsement as the listing shows it (and the answer of a withdrawal). */
export function endorsementEntry(e: EndorsementRow): EndorsementEntry {
  return {
    endorsement_id: e.endorsement_id,
    sequence: e.sequence,
    type: e.type,
    text: e.text,
    endorser: { name: e.endorser_name, authority: e.authority, data: e.data, signer_id: e.signer_id },
    endorsee: { name: e.endorsee_name, email: e.endorsee_email, rfc: e.endorsee_rfc },
    status: e.status,
    created_at: new Date(e.created_at).toISOString(),
    signed_at: e.signed_at ? new Date(e.signed_at).toISOString() : null,
    declined_at: e.declined_at ? new Date(e.declined_at).toISOString() : null,
    withdrawn_at: e.withdrawn_at ? new Date(e.withdrawn_at).toISOString() : null,
    withdrawal_reason: e.withdrawal_reason,
  };
}
