// Reads a delivery-status notification (RFC 3464: a multipart/report with a message/delivery-status
// part, usually followed by the original message or its headers) into the fields that say what
// happened to which recipient of which message. Pure: bytes in, fields out.
import PostalMime from 'postal-mime';

export interface DsnRecipient {
  /** failed, delayed, delivered, relayed or expanded (lower case). */
  action: string;
  status: string | null;
  finalRecipient: string | null;
  originalRecipient: string | null;
  diagnosticCode: string | null;
  remoteMta: string | null;
}

export interface DeliveryStatusNotification {
  /** Original-Envelope-Id: the ENVID the sender gave at MAIL FROM (RFC 3461), when the server kept it. */
  envelopeId: string | null;
  reportingMta: string | null;
  /** Message-ID of the message the report is about, from its returned copy or headers. */
  originalMessageId: string | null;
  recipients: DsnRecipient[];
}

export class DsnParseError extends Error {}

/** Largest report read: a DSN returns headers or at most the original message. */
export const MAX_DSN_BYTES = 40 * 1024 * 1024;

export async function parseDsn(raw: Buffer): Promise<DeliveryStatusNotification> {
  if (raw.length > MAX_DSN_BYTES) {
    throw new DsnParseError(`the report is larger than ${MAX_DSN_BYTES} bytes`);
  }
  const email = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
  const parts = email.attachments.map((a) => ({ type: a.mimeType.toLowerCase(), text: toText(a.content) }));
  const status = parts.find((p) => p.type === 'message/delivery-status' || p.type === 'message/global-delivery-status');
  if (!status) {
    throw new DsnParseError('not a delivery-status notification: no message/delivery-status part (RFC 3464)');
  }
  const [perMessage, ...perRecipient] = fieldGroups(status.text);
  if (!perMessage || perRecipient.length === 0) {
    throw new DsnParseError('the delivery-status part names no recipient');
  }
  const recipients = perRecipient
    .slice(0, MAX_RECIPIENTS)
    .map((g) => ({
      action: bounded(g.get('action') ?? '').toLowerCase(),
      status: boundedOrNull(g.get('status')),
      finalRecipient: address(boundedOrNull(g.get('final-recipient')) ?? undefined),
      originalRecipient: address(boundedOrNull(g.get('original-recipient')) ?? undefined),
      diagnosticCode: boundedOrNull(g.get('diagnostic-code')),
      remoteMta: boundedOrNull(g.get('remote-mta')),
    }))
    .filter((r) => r.action !== '');
  if (recipients.length === 0) {
    throw new DsnParseError('the delivery-status part gives no Action for any recipient');
  }
  const original = parts.find((p) =>
    ['message/rfc822', 'text/rfc822-headers', 'message/rfc822-headers', 'message/global'].includes(p.type),
  );
  return {
    envelopeId: boundedOrNull(perMessage.get('original-envelope-id')),
    reportingMta: boundedOrNull(perMessage.get('reporting-mta')),
    originalMessageId: original ? messageIdOf(original.text) : null,
    recipients,
  };
}

// A report is written by whoever mails the sender address: each field it gives is kept, forwarded in
// email_error and printed in the evidence PDF only up to a size no genuine report exceeds.
const MAX_FIELD = 1000;
const MAX_RECIPIENTS = 20;
const bounded = (v: string) => (v.length > MAX_FIELD ? `${v.slice(0, MAX_FIELD)}…` : v);
const boundedOrNull = (v: string | undefined) => (v === undefined ? null : bounded(v));

function toText(content: ArrayBuffer | string | Uint8Array): string {
  return typeof content === 'string' ? content : Buffer.from(content as ArrayBuffer).toString('utf8');
}

/** The header-style field groups of a delivery-status body, separated by blank lines; folded lines unfolded. */
function fieldGroups(body: string): Map<string, string>[] {
  const groups: Map<string, string>[] = [];
  for (const block of body.replace(/\r\n/g, '\n').split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of block.replace(/\n[ \t]+/g, ' ').split('\n')) {
      const m = /^([A-Za-z][A-Za-z0-9-]*)\s*:\s*(.*)$/.exec(line);
      if (m && !fields.has(m[1].toLowerCase())) {
        fields.set(m[1].toLowerCase(), m[2].trim());
      }
    }
    if (fields.size > 0) {
      groups.push(fields);
    }
  }
  return groups;
}

/** "rfc822; ana@example.com" → "ana@example.com" (lower case). */
function address(field: string | undefined): string | null {
  if (!field) {
    return null;
  }
  const value = field.includes(';') ? field.slice(field.indexOf(';') + 1) : field;
  return value.trim().replace(/^<|>$/g, '').toLowerCase() || null;
}

function messageIdOf(message: string): string | null {
  const headers = message
    .replace(/\r\n/g, '\n')
    .split(/\n\n/)[0]
    .replace(/\n[ \t]+/g, ' ');
  const m = /^message-id\s*:\s*(<[^>\s]+>)/im.exec(headers);
  return m ? m[1] : null;
}
