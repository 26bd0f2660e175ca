// One invitation (or reminder) to one signer of a document set: ONE email for all the documents
// where that person has a box, with their set link (/sign/set/{token}); the set signer and their
// document rows marked invited, an entry in the history of each of those documents, and the next
// reminder scheduled — all in the caller's transaction.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { queueEmail } from '../mail/queue-email.js';
import { phoneChannelOf, queueMessage } from '../messages/queue-message.js';
import { invitationText } from '../../notify/message-templates.js';
import { languageOf } from '../signing/workflow-language.js';
import { daysMs, effectiveWorkflow } from '../workflows/effective-workflow.js';
import { isOpen } from '../workflows/invite-due.js';
import { invitationMail } from '../../notify/email-templates.js';
import type { Database } from '../../store/schema.js';
import type { FlowSet } from '../../store/set-flow-repo.js';
import { listSetSigners, markSetSignerInvited, signerRowsOf, type SetSignerRow } from '../../store/set-signers-repo.js';
import { addWorkflowRemindJob } from '../../jobs/payloads/workflow-remind.js';
import { markSignerInvited } from '../../store/workflow-repo.js';

/** The set signer's personal link, opened from its sealed token. */
export function setSigningLink(deps: Pick<Deps, 'config' | 'secrets'>, tokenSealed: Buffer | null): string | null {
  return tokenSealed ? `${deps.config.publicUrl}/sign/set/${deps.secrets.open(tokenSealed)}` : null;
}

/** Who the flow waits for now: every set signer still to sign, or in an ordered flow the first of them. */
export function dueSetSigners<T extends { status: string }>(signers: T[], workflow: unknown): T[] {
  const open = signers.filter((s) => isOpen(s.status));
  return effectiveWorkflow(workflow as Record<string, unknown> | null).ordered ? open.slice(0, 1) : open;
}

/** The last time the set signer was contacted (invitation or reminder). */
export function lastContact(s: { invited_at: Date | null; last_reminded_at: Date | null }): Date | null {
  const times = [s.invited_at, s.last_reminded_at].filter((d): d is Date => d !== null).map((d) => new Date(d).getTime());
  return times.length ? new Date(Math.max(...times)) : null;
}

export async function inviteSetSigner(
  trx: Transaction<Database>,
  deps: Deps,
  o: { set: FlowSet; signer: SetSignerRow; reminder: boolean },
): Promise<boolean> {
  const { set, signer } = o;
  const rows = await signerRowsOf(trx, signer.id);
  const open = rows.filter((r) => r.document_status === 'pending' && isOpen(r.status));
  if (open.length === 0) {
    return false; // nothing left for this person to sign
  }
  const now = deps.clock.now();
  const wf = effectiveWorkflow(set.workflow);
  const language = languageOf(set.workflow, deps.config.defaultLanguage);
  const url = setSigningLink(deps, signer.token_sealed);
  const phone = phoneChannelOf(signer.authority);
  const to = phone ? signer.data : signer.email;
  const documentName = o.reminder && set.name ? set.name : open[0].document_name;
  if (phone && url) {
    // SMS and WHATSAPP signers: one message on their channel for the whole set, billed once.
    await queueMessage(trx, deps, {
      accountId: set.account_id,
      documentId: open[0].document_id,
      signerId: open[0].signer_id,
      channel: phone,
      kind: o.reminder ? 'reminder' : 'invitation',
      language,
      to: signer.data,
      rendered: invitationText({ language, senderName: set.account_name, documentName, signUrl: url }, o.reminder),
      onExhausted: 'record',
    });
  } else if (to && url) {
    // A signer without an address is reached through the set link the close response handed out.
    await queueEmail(trx, deps, {
      accountId: set.account_id,
      documentId: open[0].document_id,
      kind: o.reminder ? 'reminder' : 'invitation',
      to,
      mail: invitationMail(
        {
          language,
          signerName: signer.name,
          documentName,
          signUrl: url,
          senderName: set.account_name,
          subject: wf.subject,
          message: wf.message,
          documentCount: rows.length,
        },
        o.reminder,
      ),
    });
  }
  await markSetSignerInvited(trx, signer.id, now, o.reminder);
  for (const r of open) {
    await markSignerInvited(trx, r.id, now, o.reminder);
    await appendHistory(trx, {
      documentId: r.document_id,
      at: now,
      action: o.reminder ? 'reminded' : 'invited',
      actor: 'system',
      details: {
        signer_id: r.signer_id,
        set_signer_id: signer.signer_id,
        document_set: set.uuid,
        documents: rows.length,
        channel: phone ?? (to ? 'email' : 'none'),
        recipient: to,
      },
    });
  }
  await scheduleSetReminder(trx, { setId: set.id, setSignerId: signer.id, days: wf.remindEveryDays, from: now });
  return true;
}

/**
 * Invites the set signers the flow waits for. `resend` (a restarted flow) sends the invitation again
 * to each of them; otherwise only to those never invited (the next one of an ordered flow).
 */
export async function inviteDueSetSigners(trx: Transaction<Database>, deps: Deps, set: FlowSet, o: { resend: boolean }): Promise<number> {
  let sent = 0;
  for (const signer of dueSetSigners(await listSetSigners(trx, set.id), set.workflow)) {
    if ((o.resend || !signer.invited_at) && (await inviteSetSigner(trx, deps, { set, signer, reminder: false }))) {
      sent++;
    }
  }
  return sent;
}

export async function scheduleSetReminder(
  trx: Transaction<Database>,
  r: { setId: string; setSignerId: string; days: number; from: Date },
): Promise<void> {
  if (r.days <= 0) {
    return;
  }
  const runAt = new Date(r.from.getTime() + daysMs(r.days));
  await addWorkflowRemindJob(trx, { scope: 'set', setId: r.setId, setSignerId: r.setSignerId, dueAt: runAt.toISOString() }, runAt);
}
