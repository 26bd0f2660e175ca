// Queues an email: the row and its delivery job commit with the change that causes the email (an
// invitation with the flow that starts, an OTP with the code), or not at all.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { newPublicId } from '../ids.js';
import type { RenderedMail } from '../../notify/email-templates.js';
import { addSendEmailJob } from '../../jobs/payloads/send-email.js';
import { insertMessage, type MailKind } from '../../store/mail-repo.js';
import type { Database } from '../../store/schema.js';

export interface QueuedAttachment {
  filename: string;
  /** Blob key of the bytes (the blob must already be stored). */
  sha256: string;
  contentType: string;
}

export async function queueEmail(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock' | 'secrets'>,
  m: {
    accountId: string | null;
    documentId: string | null;
    kind: MailKind;
    to: string;
    mail: RenderedMail;
    attachments?: QueuedAttachment[];
  },
): Promise<string> {
  const messageId = newPublicId();
  await insertMessage(trx, deps.secrets, {
    message_id: messageId,
    account_id: m.accountId,
    document_id: m.documentId,
    kind: m.kind,
    recipient: m.to,
    subject: m.mail.subject,
    body_text: m.mail.text,
    body_html: m.mail.html,
    attachments: (m.attachments ?? []).map((a) => ({ filename: a.filename, sha256: a.sha256, content_type: a.contentType })),
    created_at: deps.clock.now(),
  });
  await addSendEmailJob(trx, { messageId });
  return messageId;
}
