// DELETE /api/document/{ticket}/endorsements/{endorsement_id}: the account withdraws an endorsement
// its endorser has not signed or declined (sent to the wrong person, or with a wrong text). The
// endorser's link stops working at once (signing-session.ts answers ENDORSEMENT_WITHDRAWN), the
// chain stays as it was, and a new endorsement may be asked for. No webhook event: the account
// itself made the change, and the answer says what it is; the history records it.
//
// Withdrawal and the endorser's signature (or refusal) both lock the document row first, so at the
// same moment exactly one of them happens: the second sees the first's result once it has the lock.
import type { Deps } from '../deps.js';
import { AppError, invalid } from '../errors.js';
import { appendHistory } from '../history/append-history.js';
import { endorsementOfDocument, lockDocumentByTicket, markEndorsementWithdrawn } from '../../store/endorsements-repo.js';
import { type EndorsementEntry, WITHDRAWAL_REASON_MAX, type WithdrawEndorsementBody } from '../../schemas/endorsements.js';
import { endorsementEntry } from './list-endorsements.js';

export { WITHDRAWAL_REASON_MAX };

/**
 * The reason of the optional body `{reason}`, trimmed: absent or null is no reason; a blank one is
 * refused (the schema bounds its length, not what trimming leaves).
 */
export function readWithdrawalReason(body: WithdrawEndorsementBody): string | null {
  const r = body?.reason;
  if (r === undefined || r === null) {
    return null;
  }
  const reason = r.trim();
  if (reason.length === 0) {
    throw invalid('reason', `1 to ${WITHDRAWAL_REASON_MAX} characters, or leave it out`);
  }
  return reason;
}

export async function withdrawEndorsement(
  deps: Deps,
  o: { accountId: string; ticket: string; endorsementId: string; body: WithdrawEndorsementBody },
): Promise<EndorsementEntry> {
  const reason = readWithdrawalReason(o.body);
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentByTicket(trx, o.accountId, o.ticket);
    if (!doc) {
      throw new AppError('DOCUMENT_NOT_FOUND', `no document with ticket ${o.ticket}`);
    }
    const e = await endorsementOfDocument(trx, doc.id, o.endorsementId);
    if (!e) {
      throw new AppError('ENDORSEMENT_NOT_FOUND', `the document has no endorsement ${o.endorsementId}`);
    }
    if (e.status !== 'pending') {
      throw new AppError('ENDORSEMENT_NOT_PENDING', `only a pending endorsement can be withdrawn; this one is ${e.status}`, {
        status: e.status,
      });
    }
    const now = deps.clock.now();
    if (!(await markEndorsementWithdrawn(trx, { documentId: doc.id, endorsementId: e.endorsement_id, at: now, reason }))) {
      throw new Error(`withdrawEndorsement: endorsement ${e.endorsement_id} stopped being pending under the document's lock`);
    }
    await appendHistory(trx, {
      documentId: doc.id,
      at: now,
      action: 'endorsement_withdrawn',
      actor: 'account',
      details: { endorsement_id: e.endorsement_id, sequence: e.sequence, endorser: e.endorser_name, reason },
    });
    const withdrawn = await endorsementOfDocument(trx, doc.id, e.endorsement_id);
    return endorsementEntry(withdrawn!);
  });
}
