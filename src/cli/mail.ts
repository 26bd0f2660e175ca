// `sello mail list [--json] [--limit N]`: the emails the service sent or keeps in its outbox (when
// no SMTP server is configured), newest first, for operators.
import type { Deps } from '../domain/deps.js';
import { listMessages } from '../store/mail-repo.js';
import { parseListCommand } from './args.js';

export function parseMailCommand(argv: string[]): { json: boolean; limit: number } {
  return parseListCommand(argv, 'usage: sello mail list [--json] [--limit N]');
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
