// A delivery-status notification (RFC 3464) about a certified email, fed by the operator's mail
// system (`sello mail dsn`, docs/operations.md). Anyone can mail a report to the sender address, the
// recipient included, and the recipient knows the message's Message-ID: so only a report carrying
// the secret envelope id the service sent (ENVID, RFC 3461; never in the message's headers) counts.
// Then the first "delivered" sets delivered_at, the first "failed" sets bounced_at and emits
// email_error, once per message whatever reported it first (an SMTP refusal or a bounce: one dedupe
// key). A report matched by the Message-ID of the returned original alone is kept, marked
// unverified, and changes nothing else.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { emitEvent } from '../events/emit-event.js';
import { appendHistory } from '../history/append-history.js';
import { DsnParseError, parseDsn, type DeliveryStatusNotification } from '../../notify/parse-dsn.js';
import {
  findByEnvelopeId,
  findByHeaderMessageId,
  recordDeliveryReport as storeReport,
  type CertifiedEmailRow,
  type StoredDeliveryReport,
} from '../../store/certified-email-repo.js';

export interface RecordedReport {
  document_ticket: string;
  recipient: string;
  action: string;
  status: string | null;
  /** This report set delivered_at / bounced_at (false when an earlier report had, or it is unverified). */
  delivered: boolean;
  bounced: boolean;
  /** It carried the message's secret envelope id; false: matched by the Message-ID only, kept as unverified. */
  verified: boolean;
}

export async function recordDeliveryReport(deps: Pick<Deps, 'db' | 'clock'>, raw: Buffer): Promise<RecordedReport> {
  let dsn: DeliveryStatusNotification;
  try {
    dsn = await parseDsn(raw);
  } catch (err) {
    if (err instanceof DsnParseError) {
      throw new AppError('INVALID_INPUT', `report: ${err.message}`, { field: 'report' });
    }
    throw err;
  }
  const { c, verified } = await matchEmail(deps, dsn);
  const r =
    dsn.recipients.find((x) => x.originalRecipient === c.recipient || x.finalRecipient === c.recipient) ??
    // The email went to one address: a report with one recipient (forwarded, renamed) is about it.
    (dsn.recipients.length === 1 ? dsn.recipients[0] : undefined);
  if (!r) {
    throw new AppError('CERTIFIED_EMAIL_NOT_FOUND', `the report names other recipients than ${c.recipient}; nothing recorded`);
  }
  const at = deps.clock.now();
  const report: StoredDeliveryReport = {
    received_at: at.toISOString(),
    action: r.action,
    status: r.status,
    recipient: r.originalRecipient ?? r.finalRecipient,
    diagnostic_code: r.diagnosticCode,
    reporting_mta: dsn.reportingMta,
    remote_mta: r.remoteMta,
    verified,
  };
  const firsts = await deps.db.transaction().execute(async (trx) => {
    const f = await storeReport(trx, c.id, report, at, verified);
    const action = f.firstBounced ? 'certified_email_bounced' : f.firstDelivered ? 'certified_email_delivered' : 'certified_email_report';
    await appendHistory(trx, {
      documentId: c.document_id,
      at,
      action,
      actor: 'system',
      details: { recipient: c.recipient, dsn_action: r.action, status: r.status, diagnostic_code: r.diagnosticCode, verified },
    });
    if (f.firstBounced) {
      await emitEvent(trx, deps, {
        accountId: c.account_id,
        documentId: c.document_id,
        kind: 'email_error',
        meta: {
          channel: 'email',
          recipient: c.recipient,
          code: r.status ?? '',
          reply: r.diagnosticCode ?? `Action: failed; Status: ${r.status ?? ''}`,
        },
        dedupeKey: `email_error:${c.message_id}`,
      });
    }
    return f;
  });
  return {
    document_ticket: c.ticket,
    recipient: c.recipient,
    action: r.action,
    status: r.status,
    delivered: firsts.firstDelivered,
    bounced: firsts.firstBounced,
    verified,
  };
}

async function matchEmail(deps: Pick<Deps, 'db'>, dsn: DeliveryStatusNotification): Promise<{ c: CertifiedEmailRow; verified: boolean }> {
  const byEnvelope = dsn.envelopeId ? await findByEnvelopeId(deps.db, dsn.envelopeId) : undefined;
  if (byEnvelope) {
    return { c: byEnvelope, verified: true };
  }
  const byHeader = dsn.originalMessageId ? await findByHeaderMessageId(deps.db, dsn.originalMessageId) : undefined;
  if (byHeader) {
    return { c: byHeader, verified: false };
  }
  throw new AppError(
    'CERTIFIED_EMAIL_NOT_FOUND',
    `no certified email matches this report (Original-Envelope-Id ${dsn.envelopeId ?? 'absent'}, ` +
      `Message-ID of the original ${dsn.originalMessageId ?? 'absent'}); nothing recorded`,
  );
}
