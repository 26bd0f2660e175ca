// The panel session on a request: set by the hook in index.ts before any panel route runs.
import type { FastifyRequest } from 'fastify';
import type { PanelSession } from '../../domain/panel/panel-sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    panelSession: PanelSession | null;
  }
  interface FastifyContextConfig {
    /** A panel route that needs no session (asking for a link, signing in). */
    panelPublic?: boolean;
  }
}

/** The session the hook found; only called from routes that are not panelPublic. */
export function sessionOf(req: FastifyRequest): PanelSession {
  return req.panelSession!;
}
