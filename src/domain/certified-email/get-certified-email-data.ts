// GET /api/certifiedEmail/{ticket}/data: the certified email of a document and its evidence. Times
// are absent until known (decisions.md). The open, seen through an image, is reported apart from
// the download through the link: the first is a probable read (an image proxy or a scanner may
// load the image), the second a proven retrieval of the document.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import type { CertifiedEmailData } from '../../schemas/certified-email.js';
import { findByTicket, type CertifiedEmailRow } from '../../store/certified-email-repo.js';

export async function requireCertifiedEmail(deps: Pick<Deps, 'db'>, accountId: string, ticket: string): Promise<CertifiedEmailRow> {
  const c = await findByTicket(deps.db, accountId, ticket);
  if (!c) {
    // Another account's document, an unknown ticket, or a document sent without certified_email.
    throw new AppError('CERTIFIED_EMAIL_NOT_FOUND', `no certified email for document ${ticket} in this account`);
  }
  return c;
}

export async function getCertifiedEmailData(
  deps: Pick<Deps, 'db' | 'config'>,
  opts: { accountId: string; ticket: string },
): Promise<CertifiedEmailData> {
  const c = await requireCertifiedEmail(deps, opts.accountId, opts.ticket);
  return certifiedEmailData(c, `${deps.config.publicUrl}/api/certifiedEmail/${encodeURIComponent(c.ticket)}/evidence`);
}

export function certifiedEmailStatus(c: CertifiedEmailRow): CertifiedEmailData['status'] {
  if (c.bounced_at) {
    return 'bounced';
  }
  if (c.delivered_at) {
    return 'delivered';
  }
  if (c.refused_at) {
    return c.refused_by_server === false ? 'failed' : 'refused';
  }
  if (c.sent_at) {
    return 'sent';
  }
  if (!c.message_id) {
    return 'waiting';
  }
  return c.mail_status === 'outbox' ? 'outbox' : 'queued';
}

export function certifiedEmailData(c: CertifiedEmailRow, evidencePdfUrl: string): CertifiedEmailData {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : undefined);
  const optional = {
    // What the server received: only once it answered (accepting or refusing after DATA).
    content_sha256: c.sent_at || (c.refused_at && c.refused_by_server !== false) ? (c.raw_sha256 ?? undefined) : undefined,
    sent_at: iso(c.sent_at),
    smtp_reply: c.smtp_reply ?? undefined,
    delivered_at: iso(c.delivered_at),
    bounced_at: iso(c.bounced_at),
    opened_at: iso(c.opened_at),
    downloaded_at: iso(c.downloaded_at),
  };
  return {
    recipient: c.recipient,
    subject: c.subject,
    message: c.message,
    status: certifiedEmailStatus(c),
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
    evidence: {
      pdf: evidencePdfUrl,
      message_id: c.header_message_id,
      document_sha256: c.document_sha256,
      delivery: c.attached === null ? null : c.attached ? 'attachment' : 'link',
      content_bytes: c.raw_sha256 ? c.raw_bytes : null,
      refused: c.refused_at
        ? { at: new Date(c.refused_at).toISOString(), reply: c.refusal_reply ?? '', by_server: c.refused_by_server !== false }
        : null,
      open: c.opened_at ? { seen_through: 'tracking_image', ip: c.open_ip, user_agent: c.open_user_agent } : null,
      download: c.downloaded_at ? { seen_through: 'download_link', ip: c.download_ip, user_agent: c.download_user_agent } : null,
      delivery_reports: c.delivery_reports,
    },
  };
}
