// GET /dev/outbox (development only): the latest emails and SMS/WhatsApp messages with their texts
// opened, so that a developer without an SMTP server or a provider can follow the links they carry.
import type { DevOutbox } from '../../schemas/service.js';
import { listChannelMessages } from '../../store/channel-messages-repo.js';
import { listMessages } from '../../store/mail-repo.js';
import type { Deps } from '../deps.js';

export async function listOutbox(deps: Pick<Deps, 'db' | 'secrets'>, o: { limit: number }): Promise<DevOutbox> {
  const [rows, texts] = await Promise.all([listMessages(deps, o.limit), listChannelMessages(deps, o.limit)]);
  return {
    texts: texts.map((m) => ({
      message_id: m.message_id,
      channel: m.channel,
      kind: m.kind,
      to: m.recipient,
      status: m.status,
      error_code: m.error_code,
      created_at: new Date(m.created_at).toISOString(),
      text: m.body_text,
    })),
    messages: rows.map((m) => ({
      message_id: m.message_id,
      kind: m.kind,
      to: m.recipient,
      subject: m.subject,
      status: m.status,
      created_at: new Date(m.created_at).toISOString(),
      text: m.body_text,
      html: m.body_html,
    })),
  };
}
