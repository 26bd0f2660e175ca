// The conclusion email, once every signer has signed: to each signer and to the workflow's
// `conclusion_emails`, with the signed PDF attached when `attach_files` is true. A PDF over the
// attachment limit travels as a download link instead (valid 30 days), and the email says so.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { newSigningToken } from '../ids.js';
import { queueEmail, type QueuedAttachment } from '../mail/queue-email.js';
import { conclusionMail } from '../../notify/email-templates.js';
import type { Database } from '../../store/schema.js';
import { flowSigners, insertDownloadLink, markConcluded, type FlowDocument } from '../../store/workflow-repo.js';
import { languageOf } from '../signing/workflow-language.js';
import { daysMs, effectiveWorkflow } from './effective-workflow.js';

const DOWNLOAD_LINK_DAYS = 30;

export interface ConcludedFile {
  documentId: string;
  name: string;
  sha256: string;
}

export async function concludeDocument(trx: Transaction<Database>, deps: Deps, doc: FlowDocument): Promise<void> {
  if (!(await markConcluded(trx, doc.id, deps.clock.now()))) {
    return; // concluded already: the emails went out once
  }
  const signers = await flowSigners(trx, doc.id);
  await sendConclusion(trx, deps, {
    accountId: doc.account_id,
    historyDocumentIds: [doc.id],
    workflow: doc.workflow,
    title: doc.name,
    files: [{ documentId: doc.id, name: doc.name, sha256: doc.original_sha256 }],
    signerEmails: signers.map((s) => s.email),
  });
}

/** Shared by documents and sets: one email per recipient carrying (or linking) every file. */
export async function sendConclusion(
  trx: Transaction<Database>,
  deps: Deps,
  c: {
    accountId: string;
    historyDocumentIds: string[];
    workflow: unknown;
    title: string;
    files: ConcludedFile[];
    signerEmails: (string | null)[];
  },
): Promise<void> {
  const now = deps.clock.now();
  const wf = effectiveWorkflow(c.workflow as Record<string, unknown> | null);
  const recipients = [...new Set([...c.signerEmails, ...wf.conclusionEmails].filter((e): e is string => !!e).map((e) => e.toLowerCase()))];
  if (recipients.length === 0) {
    return;
  }
  const attachments: QueuedAttachment[] = [];
  const links: string[] = [];
  if (wf.attachFiles) {
    for (const f of c.files) {
      const size = (await deps.blobs.get(f.sha256)).length;
      if (size <= deps.config.limits.mailAttachmentBytes) {
        attachments.push({ filename: pdfName(f.name), sha256: f.sha256, contentType: 'application/pdf' });
      } else {
        const link = newSigningToken();
        await insertDownloadLink(trx, {
          tokenHash: link.hash,
          documentId: f.documentId,
          expiresAt: new Date(now.getTime() + daysMs(DOWNLOAD_LINK_DAYS)),
          at: now,
        });
        links.push(`${deps.config.publicUrl}/download/${link.token}`);
      }
    }
  }
  const language = languageOf(c.workflow, deps.config.defaultLanguage);
  const mail = conclusionMail({ language, documentName: c.title, attached: attachments.length > 0, downloadUrls: links });
  for (const to of recipients) {
    await queueEmail(trx, deps, { accountId: c.accountId, documentId: c.historyDocumentIds[0], kind: 'conclusion', to, mail, attachments });
  }
  for (const documentId of c.historyDocumentIds) {
    await appendHistory(trx, {
      documentId,
      at: now,
      action: 'conclusion_sent',
      actor: 'system',
      details: { recipients, attached: attachments.length, download_links: links.length },
    });
  }
}

function pdfName(name: string): string {
  return /\.pdf$/i.test(name) ? name : `${name}.pdf`;
}
