// `sello messages list [--json] [--limit N]`: the SMS and WhatsApp messages the service sent or
// keeps in its outbox (when no provider is configured), newest first, with what became of each
// (queued, sent, delivered, outbox, failed with the provider's code), for operators.
import type { Deps } from '../domain/deps.js';
import { listTextMessages } from '../domain/messages/list-messages.js';
import { parseListCommand } from './args.js';

export function parseMessagesCommand(argv: string[]): { json: boolean; limit: number } {
  return parseListCommand(argv, 'usage: sello messages list [--json] [--limit N]');
}

export async function runMessagesCommand(deps: Pick<Deps, 'db' | 'secrets'>, cmd: { json: boolean; limit: number }): Promise<void> {
  const rows = await listTextMessages(deps, { limit: cmd.limit });
  const out = rows.map((m) => ({
    messageId: m.message_id,
    channel: m.channel,
    kind: m.kind,
    to: m.recipient,
    status: m.status,
    provider: m.provider,
    error: m.error_code ? { code: m.error_code, reply: m.reply } : null,
    createdAt: new Date(m.created_at).toISOString(),
    text: m.body_text,
  }));
  if (cmd.json) {
    console.log(JSON.stringify(out));
    return;
  }
  for (const m of out) {
    const error = m.error ? `  ${m.error.code}: ${m.error.reply ?? ''}` : '';
    console.log(`${m.createdAt}  ${m.status.padEnd(9)}  ${m.channel.padEnd(8)}  ${m.kind.padEnd(10)}  ${m.to}${error}`);
    console.log(`${m.text.replace(/^/gm, '    ')}`);
  }
}
