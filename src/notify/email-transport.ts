// Email transports behind one interface: SMTP through nodemailer when SELLO_SMTP_URL is set. Without
// one, messages stay in the outbox table (the caller records them there in every case), readable
// with `sello mail list` and, outside production, at /dev/outbox.
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: MailAttachment[];
  /** Where replies go: the sending account's address (its brand), else none (replies go to From). */
  replyTo?: string;
}

export interface SentMail {
  messageId: string;
  /** The receiving server's final reply, e.g. "250 2.0.0 Ok: queued as ...". */
  response: string;
}

/** A delivery failure, with what the receiving mail server answered (decisions.md: email_error meta). */
export class MailDeliveryError extends Error {
  constructor(
    message: string,
    /** SMTP reply code when the server answered (e.g. 550), else undefined (network, timeout). */
    readonly responseCode: number | undefined,
    readonly reply: string,
    /** True when retrying cannot help: a 5xx answer about the message or recipient. */
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}

export interface MailTransport {
  send(from: string, message: MailMessage): Promise<SentMail>;
  /**
   * Sends a message built beforehand, byte for byte (it must use CRLF line ends and end with one,
   * as SMTP DATA carries it: then the receiving server gets exactly these bytes). `envelopeId` is
   * asked back in delivery-status notifications (RFC 3461 ENVID) where the server supports them.
   */
  sendRaw(envelope: { from: string; to: string }, raw: Buffer, opts: { envelopeId: string }): Promise<SentMail>;
  close(): void;
}

export function createSmtpTransport(url: string, opts: { timeoutMs?: number } = {}): MailTransport {
  const timeout = opts.timeoutMs ?? 30_000;
  const transporter = nodemailer.createTransport(url, {
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  return {
    async send(from, m) {
      try {
        const info = await transporter.sendMail({
          from,
          to: m.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
          ...(m.replyTo ? { replyTo: m.replyTo } : {}),
          attachments: m.attachments?.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
        });
        return { messageId: String(info.messageId), response: String(info.response ?? '') };
      } catch (err) {
        throw deliveryError(m.to, err);
      }
    },
    async sendRaw(envelope, raw, opts) {
      try {
        const options: SMTPTransport.MailOptions = {
          envelope: { from: envelope.from, to: [envelope.to] },
          raw,
          // Used only when the server announces DSN (RFC 3461); otherwise nodemailer leaves it out.
          dsn: { envid: opts.envelopeId, ret: 'HDRS', notify: ['SUCCESS', 'FAILURE', 'DELAY'], orcpt: envelope.to },
        };
        const info = await transporter.sendMail(options);
        return { messageId: String(info.messageId), response: String(info.response ?? '') };
      } catch (err) {
        throw deliveryError(envelope.to, err);
      }
    },
    close: () => transporter.close(),
  };
}

function deliveryError(to: string, err: unknown): MailDeliveryError {
  const e = err as { responseCode?: number; response?: string; message?: string };
  const code = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  return new MailDeliveryError(
    `mail to ${to} not delivered: ${e.message ?? String(err)}`,
    code,
    e.response ?? e.message ?? String(err),
    code !== undefined && code >= 500,
  );
}
