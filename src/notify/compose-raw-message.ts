// Builds an email's RFC 5322 bytes once, so that what is hashed is what is sent: the certified
// email's content_sha256 is the SHA-256 of these bytes, and the SMTP server receives them as they
// are (MailTransport.sendRaw). CRLF line ends throughout and a final CRLF, as SMTP DATA carries a
// message: nodemailer would otherwise turn bare LFs into CRLFs, or add the last one, on the wire.
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { MailMessage } from './email-transport.js';

export async function composeRawMessage(m: MailMessage & { from: string; messageId: string; date: Date }): Promise<Buffer> {
  // `newline` is read by nodemailer's MailComposer but missing from its type definitions.
  const composer = new MailComposer({
    from: m.from,
    to: m.to,
    subject: m.subject,
    text: m.text,
    html: m.html,
    messageId: m.messageId,
    date: m.date,
    attachments: m.attachments?.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
    ...({ newline: 'windows' } as object),
  });
  const raw = await composer.compile().build();
  return raw.subarray(-2).toString('latin1') === '\r\n' ? raw : Buffer.concat([raw, Buffer.from('\r\n')]);
}
