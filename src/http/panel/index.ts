// The account panel's API under /panel/api: cookie sessions instead of HMAC (the page in web/ calls
// it; integrators use /api). Not part of the HMAC API, so hidden from the OpenAPI document and
// documented in docs/api.md "The account panel". Every route but the sign-in ones needs a live
// session, and every change also needs the session's CSRF token in X-CSRF-Token. A session reaches
// its own account only: each handler passes session.account_id to the use case, which scopes its
// queries by it, so another account's object is a 404 like an unknown one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import './session-of.js';
import type { Deps } from '../../domain/deps.js';
import { AppError } from '../../domain/errors.js';
import { csrfMatches, currentSession } from '../../domain/panel/panel-sessions.js';
import { sessionIdOf } from './cookies.js';
import { panelSignInRoutes } from './sign-in-routes.js';
import { panelUsageRoutes } from './usage-routes.js';
import { panelKeyRoutes } from './key-routes.js';
import { panelWebhookRoutes } from './webhook-routes.js';
import { panelDocumentRoutes } from './document-routes.js';
import { panelDocumentActionRoutes } from './document-action-routes.js';
import { panelSetTemplateRoutes } from './set-template-routes.js';
import { panelBrandRoutes } from './brand-routes.js';
import { panelBulkRoutes } from './bulk-routes.js';
import { panelPrepareRoutes } from './prepare-routes.js';

export function panelApiRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.decorateRequest('panelSession', null);
    app.addHook('onRequest', async (req, reply) => {
      // Answers about one person's account: never stored by a browser or a proxy.
      reply.header('cache-control', 'no-store');
      if (req.routeOptions.config?.panelPublic) {
        return;
      }
      req.panelSession = await currentSession(deps, sessionIdOf(req));
      if (req.method !== 'GET' && req.method !== 'HEAD' && !csrfMatches(req.panelSession, header(req, 'x-csrf-token'))) {
        throw new AppError('CSRF_TOKEN_INVALID', 'X-CSRF-Token: missing or not the token of this session; reload the panel');
      }
    });
    await app.register(panelSignInRoutes(deps));
    await app.register(panelUsageRoutes(deps));
    await app.register(panelKeyRoutes(deps));
    await app.register(panelWebhookRoutes(deps));
    await app.register(panelDocumentRoutes(deps));
    await app.register(panelDocumentActionRoutes(deps));
    await app.register(panelSetTemplateRoutes(deps));
    await app.register(panelBrandRoutes(deps));
    await app.register(panelBulkRoutes(deps));
    await app.register(panelPrepareRoutes(deps));
  };
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}
