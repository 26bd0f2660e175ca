// /panel/api/sign-in/request (ask for a link), /panel/api/sign-in (follow it), /panel/api/session
// (who is signed in, and the CSRF token for the page), /panel/api/sign-out.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { AppError } from '../../domain/errors.js';
import { panelEmail } from '../../domain/panel/panel-email.js';
import { LINK_REQUEST_FLOOR_MS, SESSION_ABSOLUTE_HOURS } from '../../domain/panel/panel-settings.js';
import { signIn, signOut } from '../../domain/panel/panel-sessions.js';
import { requestSignInLink } from '../../domain/panel/request-sign-in-link.js';
import { StringEnum } from '../../schemas/common.js';
import { accountTimeZone } from '../../store/workflow-repo.js';
import { setSessionCookie } from './cookies.js';
import { sessionOf } from './session-of.js';
import { createLinkRequestLimit } from './link-request-limit.js';

const LinkRequest = Type.Object({ email: Type.String({ maxLength: 254 }), language: Type.Optional(StringEnum(['es', 'en'])) });
const SignInBody = Type.Object({ token: Type.String({ maxLength: 200 }) });

export function panelSignInRoutes(deps: Deps) {
  const limit = createLinkRequestLimit(() => deps.clock.now().getTime());
  const secure = () => deps.config.publicUrl.startsWith('https:');
  return async function routes(app: FastifyInstance) {
    app.post(
      '/panel/api/sign-in/request',
      { schema: { hide: true, body: LinkRequest }, config: { panelPublic: true } },
      async (req, reply) => {
        const body = req.body as { email: string; language?: 'es' | 'en' };
        const email = panelEmail(body.email);
        const retryAfter = limit(email, req.ip);
        if (retryAfter > 0) {
          reply.header('retry-after', String(retryAfter));
          throw new AppError('RATE_LIMITED', `too many sign-in links asked for; retry in ${retryAfter} s`);
        }
        await requestSignInLink(deps, { email, language: body.language ?? 'es' });
        // The same answer, after the same time, whether or not the address is a panel user's.
        await reply.server.answerFloor(reply, LINK_REQUEST_FLOOR_MS);
        return reply.code(202).send({ sent: true });
      },
    );

    app.post('/panel/api/sign-in', { schema: { hide: true, body: SignInBody }, config: { panelPublic: true } }, async (req, reply) => {
      const s = await signIn(deps, { token: (req.body as { token: string }).token });
      setSessionCookie(reply, { value: s.sessionId, maxAgeSeconds: SESSION_ABSOLUTE_HOURS * 3600, secure: secure() });
      return { signed_in: true, expires_at: s.expiresAt.toISOString() };
    });

    app.get('/panel/api/session', { schema: { hide: true } }, async (req) => {
      const s = sessionOf(req);
      return {
        email: s.email,
        // The account's time zone: the panel shows times in it, as the history PDF does, and an
        // expiration date is the end of a day there.
        account: { web_id: s.web_id, name: s.account_name, time_zone: await accountTimeZone(deps.db, s.account_id) },
        csrf_token: s.csrf_token,
        expires_at: s.expires_at.toISOString(),
        idle_expires_at: s.idle_expires_at.toISOString(),
      };
    });

    app.post('/panel/api/sign-out', { schema: { hide: true } }, async (req, reply) => {
      await signOut(deps, sessionOf(req));
      setSessionCookie(reply, { value: '', maxAgeSeconds: 0, secure: secure() });
      return reply.code(204).send();
    });
  };
}
