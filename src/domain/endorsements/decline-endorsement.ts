// An endorser refuses to sign (POST /sign/api/{token}/reject on an endorser's link): the endorsement
// is declined, the document stays completed and its chain as it was, and a new endorsement may be
// asked for. No document_rejected event: the document was not rejected.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { endorsementOfSigner, markEndorsementDeclined } from '../../store/endorsements-repo.js';
import type { Database } from '../../store/schema.js';
import type { RejectResult } from '../../schemas/signing.js';
import type { SigningSession } from '../signing/signing-session.js';

export async function declineEndorsement(
  trx: Transaction<Database>,
  _deps: Deps,
  s: SigningSession,
  o: { reason: string; at: Date; ip: string | null },
): Promise<RejectResult> {
  const endorsement = await endorsementOfSigner(trx, s.signer.id);
  if (!endorsement) {
    throw new Error(`declineEndorsement: signer row ${s.signer.id} is an endorser without an endorsement`);
  }
  await markEndorsementDeclined(trx, { signerRowId: s.signer.id, at: o.at, reason: o.reason, ip: o.ip });
  await appendHistory(trx, {
    documentId: s.document.id,
    at: o.at,
    action: 'endorsement_declined',
    actor: `signer:${s.signer.signer_id}`,
    ip: o.ip,
    details: { endorsement_id: endorsement.endorsement_id, sequence: endorsement.sequence, reason: o.reason },
  });
  return { status: 'rejected', rejected_at: o.at.toISOString(), document_status: s.document.status };
}
