// A real SMTP server on loopback that keeps every message it receives, parsed and as the bytes it
// received, for the tests; it answers each accepted message with a queue id, as real servers do. It
// can be told to refuse recipients (a 550 reply) or to defer them (a 451 reply, at RCPT TO or after
// DATA) to test delivery failures.
import { randomBytes } from 'node:crypto';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string | null; mimeType: string; content: Buffer }[];
  /** The message's bytes exactly as the server received them after DATA. */
  raw: Buffer;
  /** The envelope id the client gave with MAIL FROM (RFC 3461 ENVID), if any. */
  envid: string | null;
  /** The queue id this server answered with ("250 Ok: queued as <id>"). */
  queueId: string;
}

export interface SmtpCatcher {
  url: string;
  port: number;
  messages: CaughtMail[];
  /** Recipients answered with "550 mailbox unavailable". */
  refuse: Set<string>;
  /** Recipients answered with "451 try again later", at RCPT TO or after the message's DATA. */
  defer: Map<string, 'rcpt' | 'data'>;
  /** How many times a recipient was deferred. */
  deferred: Map<string, number>;
  close(): Promise<void>;
}

export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const messages: CaughtMail[] = [];
  const refuse = new Set<string>();
  const defer = new Map<string, 'rcpt' | 'data'>();
  const deferred = new Map<string, number>();
  const tryLater = (address: string) => {
    deferred.set(address, (deferred.get(address) ?? 0) + 1);
    const err = new Error('try again later') as Error & { responseCode: number };
    err.responseCode = 451;
    return err;
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    // Announce DSN (RFC 3461) as Postfix does: the client then gives the envelope id with MAIL FROM.
    hideDSN: false,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address.toLowerCase())) {
        const err = new Error('mailbox unavailable') as Error & { responseCode: number };
        err.responseCode = 550;
        return callback(err);
      }
      if (defer.get(address.address.toLowerCase()) === 'rcpt') {
        return callback(tryLater(address.address.toLowerCase()));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const later = session.envelope.rcptTo.map((r) => r.address.toLowerCase()).find((a) => defer.get(a) === 'data');
        if (later) {
          return callback(tryLater(later));
        }
        const raw = Buffer.concat(chunks);
        const parsed = await PostalMime.parse(raw);
        const queueId = randomBytes(6).toString('hex').toUpperCase();
        messages.push({
          raw,
          envid: session.envelope.dsn?.envid ?? null,
          queueId,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: parsed.subject ?? '',
          text: parsed.text ?? '',
          html: parsed.html ?? '',
          attachments: parsed.attachments.map((a) => ({
            filename: a.filename,
            mimeType: a.mimeType,
            content: Buffer.from(a.content as ArrayBuffer),
          })),
        });
        callback(null, `Ok: queued as ${queueId}`);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    refuse,
    defer,
    deferred,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
