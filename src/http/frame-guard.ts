// Clickjacking: no page of the service may be framed by another site, where a signer or a panel user
// could be led to click "Firmar" or "Cancelar" through an invisible frame laid over a decoy. Every
// HTML answer, whichever route made it (the signer and set pages, the panel, verify, the landing
// page, the API reference, an HTML error), is sent with CSP `frame-ancestors 'none'` (CSP Level 2,
// section 7.7) and `X-Frame-Options: DENY` (RFC 7034) for browsers that predate frame-ancestors.
// One onSend hook on the root instance, so a new page cannot forget it.
//
// The one exception is a signer page whose account lists the embedding site (domain/signing/
// embedding.ts): its route calls allowFramingBy, and that answer carries `frame-ancestors <origin>`
// and no X-Frame-Options (which cannot name an origin; ALLOW-FROM is obsolete and a DENY beside the
// CSP would be obeyed by browsers that read both only when they lack frame-ancestors).
import type { FastifyInstance, FastifyReply } from 'fastify';

const FRAME_ANCESTORS = /(^|;)\s*frame-ancestors\s[^;]*/i;

/** The answers whose route allowed one origin to frame them. */
const allowed = new WeakMap<FastifyReply, string>();

/** Lets `origin` (a serialised origin the account listed) frame this answer, and nobody else. */
export function allowFramingBy(reply: FastifyReply, origin: string): void {
  allowed.set(reply, origin);
}

export function denyFraming(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    if (!/^\s*text\/html\b/i.test(String(reply.getHeader('content-type') ?? ''))) {
      return payload;
    }
    const origin = allowed.get(reply);
    const csp = reply.getHeader('content-security-policy');
    const policy = typeof csp === 'string' ? csp.trim().replace(/;$/, '') : '';
    if (origin) {
      reply.removeHeader('x-frame-options');
      // Any frame-ancestors the route wrote is replaced: a second directive would be ignored, not combined.
      const rest = policy.replace(FRAME_ANCESTORS, '').replace(/^\s*;\s*/, '');
      reply.header('content-security-policy', `${rest ? `${rest}; ` : ''}frame-ancestors ${origin}`);
      return payload;
    }
    reply.header('x-frame-options', 'DENY');
    if (!policy) {
      reply.header('content-security-policy', "frame-ancestors 'none'");
    } else if (!FRAME_ANCESTORS.test(policy)) {
      reply.header('content-security-policy', `${policy}; frame-ancestors 'none'`);
    }
    return payload;
  });
}
