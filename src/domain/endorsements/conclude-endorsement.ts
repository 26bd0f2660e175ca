// What follows an endorser's signature (sign-document.ts or the e.firma finish): the revision is the
// document's new original, the endorsement is signed and its endorsee becomes the holder, the
// original_signed event carries the endorsement's id (decisions.md "Endorsements"), the history
// says who endorsed to whom, and the universal rendition is made again from the endorsed original.
// The document stays completed; nothing of the signing workflow runs again.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { emitEvent } from '../events/emit-event.js';
import { eventSigner } from '../events/event-types.js';
import { appendHistory } from '../history/append-history.js';
import { recordSignature } from '../../store/signing-repo.js';
import { endorsementOfSigner, markEndorsementSigned } from '../../store/endorsements-repo.js';
import type { Database } from '../../store/schema.js';
import { markUniversalOwedAgain } from '../../store/universal-repo.js';
import { addUniversalBuildJob } from '../../jobs/payloads/universal-build.js';
import { queueCompletionStamp } from '../nom151/queue-document-stamp.js';
import type { SignResult } from '../../schemas/signing.js';
import type { SigningSession } from '../signing/signing-session.js';
import type { SignatureOutcome } from '../signing/conclude-signature.js';

export async function concludeEndorsement(
  trx: Transaction<Database>,
  deps: Deps,
  s: SigningSession,
  o: SignatureOutcome,
): Promise<SignResult> {
  const endorsement = await endorsementOfSigner(trx, s.signer.id);
  if (!endorsement) {
    throw new Error(`concludeEndorsement: signer row ${s.signer.id} is an endorser without an endorsement`);
  }
  await recordSignature(trx, {
    documentId: s.document.id,
    signerRowId: s.signer.id,
    sha256: o.sha256,
    at: o.now,
    certificateSerial: o.certificateSerial,
    type: o.type,
    ip: o.ip ?? null,
    certificateStatus: o.certificateStatus ?? null,
  });
  await markEndorsementSigned(trx, s.signer.id, o.now);
  await markUniversalOwedAgain(trx, s.document.id);
  await addUniversalBuildJob(trx, { documentId: s.document.id });
  // A document kept under NOM-151 gets a stamp of its endorsed original (and, once made, of its new
  // universal rendition: after-universal-stored.ts).
  await queueCompletionStamp(trx, s.document.id);
  await emitEvent(trx, deps, {
    accountId: s.document.account_id,
    documentId: s.document.id,
    kind: 'original_signed',
    meta: {
      signer: eventSigner(s.signer),
      authority: s.signer.authority,
      signed_at: o.now.toISOString(),
      endorsement_id: endorsement.endorsement_id,
    },
    dedupeKey: `signed:${s.signer.signer_id}`,
  });
  await appendHistory(trx, {
    documentId: s.document.id,
    at: o.now,
    action: 'endorsed',
    actor: `signer:${s.signer.signer_id}`,
    ip: o.ip ?? null,
    details: {
      endorsement_id: endorsement.endorsement_id,
      sequence: endorsement.sequence,
      type: endorsement.type,
      endorser: endorsement.endorser_name,
      endorsee: endorsement.endorsee_name,
      signature_type: o.type,
      certificate_serial: o.certificateSerial,
      revision_sha256: o.sha256,
      authority: s.signer.authority,
      ...o.historyDetails,
    },
  });
  return { status: 'signed', signed_at: o.now.toISOString(), document_status: 'completed' };
}
