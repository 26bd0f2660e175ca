// Queues a document's certified email, inside the transaction of what causes it: the creation of a
// document without signers, or the last signature (then the signed original travels). The outbox
// row, its delivery job, the evidence row's tokens and the history entry commit together, or not
// at all; the row is claimed FOR UPDATE and only while unqueued, so the email is queued once.
//
// The PDF is attached when it is within SELLO_MAX_ATTACHMENT_KB (the limit of every email's
// attachments); the link to it is in every certified email, attached or not, so that a download
// (a proven retrieval, apart from the open image's probable read) can be recorded either way.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { newSigningToken } from '../ids.js';
import { queueEmail } from '../mail/queue-email.js';
import { explicitLanguage } from '../signing/workflow-language.js';
import { certifiedMail } from '../../notify/certified-email-template.js';
import { claimUnqueued, markQueued } from '../../store/certified-email-repo.js';
import type { Database } from '../../store/schema.js';

export async function queueCertifiedEmail(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock' | 'config' | 'blobs' | 'secrets'>,
  opts: { documentId: string; pdfSha256: string },
): Promise<void> {
  const c = await claimUnqueued(trx, opts.documentId);
  if (!c) {
    return; // no certified email on this document, or queued already
  }
  const now = deps.clock.now();
  const size = (await deps.blobs.get(opts.pdfSha256)).length;
  const attached = size <= deps.config.limits.mailAttachmentBytes;
  const open = newSigningToken();
  const download = newSigningToken();
  const mail = certifiedMail({
    language: explicitLanguage(c.document_workflow) ?? deps.config.defaultLanguage,
    subject: c.subject,
    message: c.message,
    senderName: c.account_name,
    documentName: c.document_name,
    attached,
    downloadUrl: `${deps.config.publicUrl}/certified-email/download/${download.token}`,
    openImageUrl: `${deps.config.publicUrl}/certified-email/open/${open.token}`,
  });
  const messageId = await queueEmail(trx, deps, {
    accountId: c.account_id,
    documentId: opts.documentId,
    kind: 'certified',
    to: c.recipient,
    mail,
    attachments: attached ? [{ filename: pdfName(c.document_name), sha256: opts.pdfSha256, contentType: 'application/pdf' }] : [],
  });
  const headerMessageId = `<${messageId}@${new URL(deps.config.publicUrl).hostname}>`;
  await markQueued(trx, c.id, {
    messageId,
    headerMessageId,
    documentSha256: opts.pdfSha256,
    attached,
    openTokenHash: open.hash,
    downloadTokenHash: download.hash,
    at: now,
  });
  await appendHistory(trx, {
    documentId: opts.documentId,
    at: now,
    action: 'certified_email_queued',
    actor: 'system',
    details: { recipient: c.recipient, message_id: headerMessageId, document_sha256: opts.pdfSha256, attached },
  });
}

function pdfName(name: string): string {
  return /\.pdf$/i.test(name) ? name : `${name}.pdf`;
}
