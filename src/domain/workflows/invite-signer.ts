// One invitation (or reminder) to one signer of a standalone document: the email with the signer's
// own link, the signer marked invited, the history entry, and the next reminder scheduled — all in
// the caller's transaction, so the email is queued exactly when the state change commits.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { queueEmail } from '../mail/queue-email.js';
import { invitationMail } from '../../notify/email-templates.js';
import type { Database } from '../../store/schema.js';
import { markSignerInvited, REMIND_TASK, scheduleJob, type FlowDocument, type FlowSigner } from '../../store/workflow-repo.js';
import { daysMs, effectiveWorkflow } from './effective-workflow.js';
import { signingLink } from './signing-link.js';

export function reminderJobKey(signerRowId: string): string {
  return `remind:signer:${signerRowId}`;
}

export async function inviteSigner(
  trx: Transaction<Database>,
  deps: Deps,
  o: { document: FlowDocument; signer: FlowSigner; reminder: boolean },
): Promise<void> {
  const { document: doc, signer } = o;
  const now = deps.clock.now();
  const wf = effectiveWorkflow(doc.workflow);
  const url = signingLink(deps, signer.token_sealed);
  // Only the email channel exists on this server: a signer without an address (SMS, WHATSAPP,
  // SAT without a sticker email) is reached through the links the client distributes.
  if (signer.email && url) {
    await queueEmail(trx, deps, {
      accountId: doc.account_id,
      documentId: doc.id,
      kind: o.reminder ? 'reminder' : 'invitation',
      to: signer.email,
      mail: invitationMail(
        {
          language: wf.language,
          signerName: signer.name,
          documentName: doc.name,
          signUrl: url,
          senderName: doc.account_name,
          subject: wf.subject,
          message: wf.message,
        },
        o.reminder,
      ),
    });
  }
  await markSignerInvited(trx, signer.id, now, o.reminder);
  await appendHistory(trx, {
    documentId: doc.id,
    at: now,
    action: o.reminder ? 'reminded' : 'invited',
    actor: 'system',
    details: { signer_id: signer.signer_id, channel: signer.email ? 'email' : 'none', recipient: signer.email },
  });
  await scheduleReminder(trx, { signerRowId: signer.id, documentId: doc.id, days: wf.remindEveryDays, from: now });
}

export async function scheduleReminder(
  trx: Transaction<Database>,
  r: { signerRowId: string; documentId: string; days: number; from: Date },
): Promise<void> {
  if (r.days <= 0) {
    return;
  }
  const runAt = new Date(r.from.getTime() + daysMs(r.days));
  await scheduleJob(trx, {
    task: REMIND_TASK,
    payload: { scope: 'document', documentId: r.documentId, signerRowId: r.signerRowId, dueAt: runAt.toISOString() },
    runAt,
    key: reminderJobKey(r.signerRowId),
  });
}
