// GET /dev/outbox: the latest emails, SMS and WhatsApp messages, for development without an SMTP
// server or a message provider. Not registered when NODE_ENV=production: the messages carry
// personal signing links and codes.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { listChannelMessages } from '../../store/channel-messages-repo.js';
import { listMessages } from '../../store/mail-repo.js';

export function devOutboxRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.get('/dev/outbox', { schema: { hide: true } }, async () => {
      const rows = await listMessages(deps, 50);
      const texts = await listChannelMessages(deps, 50);
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
    });
  };
}
