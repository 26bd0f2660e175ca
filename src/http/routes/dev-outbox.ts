// GET /dev/outbox: the latest emails, for development without an SMTP server. Not registered when
// NODE_ENV=production: the messages carry personal signing links.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { listMessages } from '../../store/mail-repo.js';

export function devOutboxRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.get('/dev/outbox', { schema: { hide: true } }, async () => {
      const rows = await listMessages(deps.db, 50);
      return {
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
