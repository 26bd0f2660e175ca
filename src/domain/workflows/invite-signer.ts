// One invitation (or reminder) to one signer of a standalone document: the email with the signer's
// own link, the signer marked invited, the history entry, and the next reminder scheduled — all in
// the caller's transaction, so the email is queued exactly when the state change commits.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { queueEmail } from '../mail/queue-email.js';
import { phoneChannelOf, queueMessage } from '../messages/queue-message.js';
import { invitationMail } from '../../notify/email-templates.js';
import { invitationText } from '../../notify/message-templates.js';
import type { Database } from '../../store/schema.js';
import { addWorkflowRemindJob } from '../../jobs/payloads/workflow-remind.js';
import { markSignerInvited, type FlowDocument, type FlowSigner } from '../../store/workflow-repo.js';
import { languageOf } from '../signing/workflow-language.js';
import { daysMs, effectiveWorkflow } from './effective-workflow.js';
import { signingLink } from './signing-link.js';

export async function inviteSigner(
  trx: Transaction<Database>,
  deps: Deps,
  o: { document: FlowDocument; signer: FlowSigner; reminder: boolean },
): Promise<void> {
  const { document: doc, signer } = o;
  const now = deps.clock.now();
  const wf = effectiveWorkflow(doc.workflow);
  const language = languageOf(doc.workflow, deps.config.defaultLanguage);
  const url = signingLink(deps, signer.token_sealed);
  const phone = phoneChannelOf(signer.authority);
  const to = phone ? signer.data : invitationAddress(signer);
  let messageId: string | undefined;
  if (phone && url) {
    // SMS and WHATSAPP signers are invited on the channel that proves them, at the phone in `data`.
    const sent = await queueMessage(trx, deps, {
      accountId: doc.account_id,
      documentId: doc.id,
      signerId: signer.signer_id,
      channel: phone,
      kind: o.reminder ? 'reminder' : 'invitation',
      language,
      to: signer.data,
      rendered: invitationText({ language, senderName: doc.account_name, documentName: doc.name, signUrl: url }, o.reminder),
      onExhausted: 'record',
    });
    messageId = sent.messageId;
  } else if (to && url) {
    // A signer without an address (SAT without a sticker email) is reached through the links the
    // client distributes.
    await queueEmail(trx, deps, {
      accountId: doc.account_id,
      documentId: doc.id,
      kind: o.reminder ? 'reminder' : 'invitation',
      to,
      mail: invitationMail(
        {
          language,
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
    details: { signer_id: signer.signer_id, channel: phone ?? (to ? 'email' : 'none'), recipient: to, message_id: messageId },
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
  await rescheduleReminder(trx, { signerRowId: r.signerRowId, documentId: r.documentId, at: new Date(r.from.getTime() + daysMs(r.days)) });
}

/** The signer's next reminder at `at`, replacing the one scheduled. */
export async function rescheduleReminder(
  trx: Transaction<Database>,
  r: { signerRowId: string; documentId: string; at: Date },
): Promise<void> {
  await addWorkflowRemindJob(
    trx,
    { scope: 'document', documentId: r.documentId, signerRowId: r.signerRowId, dueAt: r.at.toISOString() },
    r.at,
  );
}

/**
 * Where a signer's invitation goes: for EMAIL_LINK and EMAIL the address in `data`, the one whose
 * possession the authority proves (decisions.md "Authorities"); for the others the sticker's email.
 */
export function invitationAddress(signer: { authority: string; data: string; email: string | null }): string | null {
  return signer.authority === 'EMAIL_LINK' || signer.authority === 'EMAIL' ? signer.data : signer.email;
}
