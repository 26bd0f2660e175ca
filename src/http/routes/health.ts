// GET /healthz: liveness and readiness, for load balancers and orchestrators.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { checkDatabase } from '../../domain/service/database-ready.js';
import { ErrorResponse } from '../../schemas/common.js';
import { Health } from '../../schemas/service.js';
import { errorBody } from '../errors.js';

export function healthRoutes(deps: Deps, ready?: () => Promise<boolean>) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/healthz',
      {
        schema: {
          operationId: 'getHealth',
          security: [],
          summary: 'Liveness and readiness: 200 once the database answers and migrations ran',
          tags: ['service'],
          response: { 200: Health, 503: ErrorResponse },
        },
      },
      async (_req, reply) => {
        try {
          await checkDatabase(deps);
          if (ready && !(await ready())) {
            throw new Error('not ready');
          }
          return { status: 'ok' as const };
        } catch {
          return reply.code(503).send(errorBody('SERVICE_UNAVAILABLE', 'the database is not reachable or not migrated'));
        }
      },
    );
  };
}
