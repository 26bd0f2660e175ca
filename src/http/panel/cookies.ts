// The panel's session cookie: read from the Cookie header, written with the attributes that keep
// it to this site's panel (docs/operations.md "Account panel"): HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it), Path=/panel, Secure when the service is
// reached over https.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../domain/panel/panel-settings.js';

export function sessionIdOf(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) {
    return undefined;
  }
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      return part.slice(eq + 1).trim();
    }
  }
  return undefined;
}

export function setSessionCookie(reply: FastifyReply, o: { value: string; maxAgeSeconds: number; secure: boolean }): void {
  const attrs = [`${SESSION_COOKIE}=${o.value}`, 'Path=/panel', `Max-Age=${o.maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (o.secure) {
    attrs.push('Secure');
  }
  reply.header('set-cookie', attrs.join('; '));
}
