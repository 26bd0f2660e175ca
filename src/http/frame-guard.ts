// Clickjacking: no page of the service may be framed by another site, where a signer or a panel user
// could be led to click "Firmar" or "Cancelar" through an invisible frame laid over a decoy. Every
// HTML answer, whichever route made it (the signer and set pages, the panel, verify, the landing
// page, the API reference, an HTML error), is sent with CSP `frame-ancestors 'none'` (CSP Level 2,
// section 7.7) and `X-Frame-Options: DENY` (RFC 7034) for browsers that predate frame-ancestors.
// One onSend hook on the root instance, so a new page cannot forget it.
import type { FastifyInstance } from 'fastify';

const FRAME_ANCESTORS = /(^|;)\s*frame-ancestors\s/i;

export function denyFraming(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    if (!/^\s*text\/html\b/i.test(String(reply.getHeader('content-type') ?? ''))) {
      return payload;
    }
    reply.header('x-frame-options', 'DENY');
    const csp = reply.getHeader('content-security-policy');
    const policy = typeof csp === 'string' ? csp.trim().replace(/;$/, '') : '';
    if (!policy) {
      reply.header('content-security-policy', "frame-ancestors 'none'");
    } else if (!FRAME_ANCESTORS.test(policy)) {
      reply.header('content-security-policy', `${policy}; frame-ancestors 'none'`);
    }
    return payload;
  });
}
