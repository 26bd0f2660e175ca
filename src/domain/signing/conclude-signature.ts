// What follows a signer's new revision, whichever way it was signed (a certificate the service
// issued, or the signer's own SAT e.firma): the signer and the document rows, the original_signed
// event, the history entry, the document's completion when this was the last signer, and the
// workflow's next step. Runs inside the transaction that holds the document row's lock.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { emitEvent } from '../events/emit-event.js';
import { eventSigner } from '../events/event-types.js';
import { appendHistory } from '../history/append-history.js';
import { advanceAfterSignature } from '../workflows/advance-flow.js';
import { completeDocument, recordSignature, signersOf } from '../../store/signing-repo.js';
import type { Database } from '../../store/schema.js';
import { markUniversalPending } from '../../store/universal-repo.js';
import { addUniversalBuildJob } from '../../jobs/payloads/universal-build.js';
import { queueCompletionStamp } from '../nom151/queue-document-stamp.js';
import { queueCertifiedEmail } from '../certified-email/queue-certified-email.js';
import type { SignResult } from '../../schemas/signing.js';
import type { SigningSession } from './signing-session.js';
import { concludeEndorsement } from '../endorsements/conclude-endorsement.js';

export interface SignatureOutcome {
  /** The blob key of the new revision. */
  sha256: string;
  now: Date;
  certificateSerial: string;
  type: 'drawn' | 'typed' | 'efirma' | 'certificate';
  ip?: string;
  /** The certificate's revocation status at signing time, when the service learnt it from outside. */
  certificateStatus?: 'good' | 'unknown';
  /** Added to the history entry's details (e.g. the e.firma's RFC). */
  historyDetails?: Record<string, unknown>;
}

export async function concludeSignature(
  trx: Transaction<Database>,
  deps: Deps,
  s: SigningSession,
  o: SignatureOutcome,
): Promise<SignResult> {
  const { sha256, now } = o;
  if (s.signer.role === 'endorser') {
    return concludeEndorsement(trx, deps, s, o);
  }
  await recordSignature(trx, {
    documentId: s.document.id,
    signerRowId: s.signer.id,
    sha256,
    at: now,
    certificateSerial: o.certificateSerial,
    type: o.type,
    ip: o.ip ?? null,
    certificateStatus: o.certificateStatus ?? null,
  });
  await emitEvent(trx, deps, {
    accountId: s.document.account_id,
    documentId: s.document.id,
    kind: 'original_signed',
    meta: { signer: eventSigner(s.signer), authority: s.signer.authority, signed_at: now.toISOString() },
    dedupeKey: `signed:${s.signer.signer_id}`,
  });
  await appendHistory(trx, {
    documentId: s.document.id,
    at: now,
    action: 'signed',
    actor: `signer:${s.signer.signer_id}`,
    ip: o.ip ?? null,
    details: {
      signature_type: o.type,
      certificate_serial: o.certificateSerial,
      revision_sha256: sha256,
      authority: s.signer.authority,
      ...o.historyDetails,
    },
  });
  const everyone = await signersOf(trx, s.document.id);
  const completed = everyone.every((x) => x.status === 'signed' || x.id === s.signer.id);
  if (completed) {
    await completeDocument(trx, s.document.id, now);
    // The universal rendition (PAdES B-LTA) is owed from now on: its job commits with the completion.
    await markUniversalPending(trx, s.document.id);
    await addUniversalBuildJob(trx, { documentId: s.document.id });
    await queueCompletionStamp(trx, s.document.id);
    await appendHistory(trx, { documentId: s.document.id, at: now, action: 'completed', actor: 'system', details: { sha256 } });
    // The certified email, if the document has one, carries the signed original: this revision.
    await queueCertifiedEmail(trx, deps, { documentId: s.document.id, pdfSha256: sha256 });
    await emitEvent(trx, deps, {
      accountId: s.document.account_id,
      documentId: s.document.id,
      kind: 'document_completed',
      meta: {},
      dedupeKey: `completed:${s.document.ticket}`,
    });
  }
  // Reminders stop, the next signer of an ordered flow is invited, or the conclusion email goes.
  await advanceAfterSignature(trx, deps, { documentId: s.document.id, signerRowId: s.signer.id, completed });
  return { status: 'signed' as const, signed_at: now.toISOString(), document_status: completed ? 'completed' : s.document.status };
}
