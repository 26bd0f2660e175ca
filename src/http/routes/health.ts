import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { pingDatabase } from '../../store/db.js';
import { errorBody } from '../errors.js';
import { ErrorResponse } from '../../schemas/common.js';
import { Health } from '../../schemas/service.js';

export function healthRoutes(deps: Deps, ready?: () => Promise<boolean>) {
  return async function routes(app: FastifyInstance) {
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
          await pingDatabase(deps.db);
          if (ready && !(await ready())) {
            throw new Error('not ready');
          }
          return { status: 'ok' };
        } catch {
          return reply.code(503).send(errorBody('SERVICE_UNAVAILABLE', 'the database is not reachable or not migrated'));
        }
      },
    );
  };
}
