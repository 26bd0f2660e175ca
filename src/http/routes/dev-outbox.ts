// GET /dev/outbox: the latest emails, SMS and WhatsApp messages, for development without an SMTP
// server or a message provider. Not registered when NODE_ENV=production: the messages carry
// personal signing links and codes.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { listOutbox } from '../../domain/messages/list-outbox.js';
import { DevOutbox } from '../../schemas/service.js';

const OUTBOX_LIMIT = 50;

export function devOutboxRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/dev/outbox', { schema: { hide: true, response: { 200: DevOutbox } } }, async () => listOutbox(deps, { limit: OUTBOX_LIMIT }));
  };
}
