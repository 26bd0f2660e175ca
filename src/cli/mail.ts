// `sello mail list [--json] [--limit N]`: the emails the service sent or keeps in its outbox (when
// no SMTP server is configured), newest first, for operators.
import type { Deps } from '../domain/deps.js';
import { listMessages } from '../store/mail-repo.js';
import { UsageError, flags } from './args.js';

export function parseMailCommand(argv: string[]): { json: boolean; limit: number } {
  const [sub, ...rest] = argv;
  if (sub !== 'list') {
    throw new UsageError('usage: sello mail list [--json] [--limit N]');
  }
  const { values } = flags(rest, { json: 'boolean', limit: 'string' });
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new UsageError('--limit: a whole number from 1 to 1000');
  }
  return { json: values.json === true, limit };
}

export async function runMailCommand(deps: Pick<Deps, 'db'>, cmd: { json: boolean; limit: number }): Promise<void> {
  const rows = await listMessages(deps.db, cmd.limit);
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
