// `sello mail list [--json] [--limit N]`: the emails the service sent or keeps in its outbox (when
// no SMTP server is configured), newest first, for operators.
// `sello mail dsn [FILE] [--json]`: feeds a delivery-status notification (RFC 3464, the bounce or
// delivery report the mail system received, read from FILE or standard input) to the certified
// email it is about (docs/operations.md, "Certified email"). Exit 0 recorded, 1 not recognized.
import { readFile } from 'node:fs/promises';
import type { Deps } from '../domain/deps.js';
import { recordDeliveryReport } from '../domain/certified-email/record-delivery-report.js';
import { MAX_DSN_BYTES } from '../notify/parse-dsn.js';
import { listMail } from '../domain/mail/list-mail.js';
import { UsageError, flags, parseListCommand } from './args.js';

const USAGE = 'usage: sello mail list [--json] [--limit N] | sello mail dsn [FILE] [--json]';

export type MailCommand = { sub: 'list'; json: boolean; limit: number } | { sub: 'dsn'; json: boolean; file: string | null };

export function parseMailCommand(argv: string[]): MailCommand {
  if (argv[0] === 'dsn') {
    const { values, positionals } = flags(argv.slice(1), { json: 'boolean' });
    if (positionals.length > 1) {
      throw new UsageError(USAGE);
    }
    return { sub: 'dsn', json: values.json === true, file: positionals[0] ?? null };
  }
  return { sub: 'list', ...parseListCommand(argv, USAGE) };
}

export async function runMailCommand(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets'>,
  cmd: MailCommand,
  stdin: AsyncIterable<Buffer> = process.stdin,
): Promise<void> {
  if (cmd.sub === 'dsn') {
    const raw = cmd.file ? await readFile(cmd.file) : await readAll(stdin);
    const r = await recordDeliveryReport(deps, raw);
    if (cmd.json) {
      console.log(JSON.stringify(r));
    } else {
      const outcome = r.bounced ? 'bounce recorded' : r.delivered ? 'delivery recorded' : 'report recorded';
      console.log(`${outcome}: document ${r.document_ticket}, ${r.recipient}, action ${r.action}, status ${r.status ?? '-'}`);
    }
    return;
  }
  const rows = await listMail(deps, { limit: cmd.limit });
  const out = rows.map((m) => ({
    messageId: m.message_id,
    kind: m.kind,
    to: m.recipient,
    subject: m.subject,
    status: m.status,
    createdAt: new Date(m.created_at).toISOString(),
    text: m.body_text,
  }));
  if (cmd.json) {
    console.log(JSON.stringify(out));
    return;
  }
  for (const m of out) {
    console.log(`${m.createdAt}  ${m.status.padEnd(6)}  ${m.kind.padEnd(10)}  ${m.to}  ${m.subject}`);
    console.log(`${m.text.replace(/^/gm, '    ')}`);
  }
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > MAX_DSN_BYTES) {
      throw new UsageError(`the report is larger than ${MAX_DSN_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
