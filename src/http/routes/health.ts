// GET /healthz: liveness and readiness, for load balancers and orchestrators.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { checkDatabase } from '../../domain/service/database-ready.js';
import { unavailableServiceKeys } from '../../domain/service/service-keys-ready.js';
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
          summary: 'Liveness and readiness: 200 once the database answers, migrations ran and the service keys can sign',
          tags: ['service'],
          response: { 200: Health, 503: ErrorResponse },
        },
      },
      async (req, reply) => {
        try {
          await checkDatabase(deps);
          if (ready && !(await ready())) {
            throw new Error('not ready');
          }
        } catch {
          return reply.code(503).send(errorBody('SERVICE_UNAVAILABLE', 'the database is not reachable or not migrated'));
        }
        const down = await unavailableServiceKeys(deps);
        if (down.length > 0) {
          req.log.error({ keys: down }, 'service keys unavailable');
          const named = down.map((key) => `${key.role} ("${key.label}")`).join(', ');
          return reply.code(503).send(
            errorBody('SERVICE_KEY_UNAVAILABLE', `the PKCS#11 token cannot sign with the ${named} key${down.length > 1 ? 's' : ''}`, {
              keys: down.map(({ role, label }) => ({ role, label, available: false })),
            }),
          );
        }
        return { status: 'ok' as const };
      },
    );
  };
}
