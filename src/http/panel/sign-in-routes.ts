// /panel/api/sign-in/request (ask for a link), /panel/api/sign-in (follow it), /panel/api/session
// (who is signed in, and the CSRF token for the page), /panel/api/sign-out.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { AppError } from '../../domain/errors.js';
import { panelEmail } from '../../domain/panel/panel-email.js';
import { LINK_REQUEST_FLOOR_MS, SESSION_ABSOLUTE_HOURS } from '../../domain/panel/panel-settings.js';
import { signIn, signOut } from '../../domain/panel/panel-sessions.js';
import { requestSignInLink } from '../../domain/panel/request-sign-in-link.js';
import { panelSessionView } from '../../domain/panel/session-view.js';
import { ErrorResponse } from '../../schemas/common.js';
import { PanelLinkRequest, PanelLinkSent, PanelSessionView, PanelSignedIn, PanelSignInBody } from '../../schemas/panel.js';
import { setSessionCookie } from './cookies.js';
import { sessionOf } from './session-of.js';
import { createLinkRequestLimit } from './link-request-limit.js';

export function panelSignInRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    linkRequestRoute(app, deps);
    sessionRoutes(app, deps);
  };
}

function linkRequestRoute(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const limit = createLinkRequestLimit(fastify.requestCounts);
  const schema = { hide: true, body: PanelLinkRequest, response: { 202: PanelLinkSent, '4xx': ErrorResponse } };
  app.post('/panel/api/sign-in/request', { schema, config: { panelPublic: true } }, async (req, reply) => {
    const email = panelEmail(req.body.email);
    const retryAfter = limit(email, req.ip);
    if (retryAfter > 0) {
      reply.header('retry-after', String(retryAfter));
      throw new AppError('RATE_LIMITED', `too many sign-in links asked for; retry in ${retryAfter} s`);
    }
    await requestSignInLink(deps, { email, language: req.body.language ?? 'es' });
    // The same answer, after the same time, whether or not the address is a panel user's.
    await reply.server.answerFloor(reply, LINK_REQUEST_FLOOR_MS);
    return reply.code(202).send({ sent: true });
  });
}

function sessionRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const secure = () => deps.config.publicUrl.startsWith('https:');
  const signInSchema = { hide: true, body: PanelSignInBody, response: { 200: PanelSignedIn, '4xx': ErrorResponse } };
  app.post('/panel/api/sign-in', { schema: signInSchema, config: { panelPublic: true } }, async (req, reply) => {
    const s = await signIn(deps, { token: req.body.token });
    setSessionCookie(reply, { value: s.sessionId, maxAgeSeconds: SESSION_ABSOLUTE_HOURS * 3600, secure: secure() });
    return { signed_in: true as const, expires_at: s.expiresAt.toISOString() };
  });

  app.get('/panel/api/session', { schema: { hide: true, response: { 200: PanelSessionView, '4xx': ErrorResponse } } }, async (req) =>
    panelSessionView(deps, sessionOf(req)),
  );

  const signOutSchema = {
    hide: true,
    response: { 204: Type.Null({ description: 'signed out; the cookie is cleared' }), '4xx': ErrorResponse },
  };
  app.post('/panel/api/sign-out', { schema: signOutSchema }, async (req, reply) => {
    await signOut(deps, sessionOf(req));
    setSessionCookie(reply, { value: '', maxAgeSeconds: 0, secure: secure() });
    return reply.code(204).send(null);
  });
}
