// GET /healthz of a `sello worker` process, which otherwise serves no HTTP: an orchestrator's
// liveness probe (docs/operations.md, "Kubernetes") restarts a runner whose heartbeat stopped (a
// process wedged on a lost database connection, an event loop blocked), the same judgement the
// other runners make before they take its jobs over (worker-liveness.ts). Plain node:http: one
// route, no body to parse, nothing to share with the API's Fastify instance.
import { createServer, type Server } from 'node:http';

export interface WorkerHealthOptions {
  port: number;
  host: string;
  /** When the runner last recorded its heartbeat (ms on `now`). */
  lastBeatAt: () => number;
  /** Silence longer than this is reported as dead: the runners' own rule (SELLO_WORKER_DEAD_AFTER_MS). */
  deadAfterMs: number;
  now?: () => number;
}

/** Starts the listener; resolves with the server once it listens (close it on stop). */
export async function startWorkerHealthServer(o: WorkerHealthOptions): Promise<Server> {
  const now = o.now ?? Date.now;
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/healthz') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'only GET /healthz is served here' } }));
      return;
    }
    const silentMs = now() - o.lastBeatAt();
    if (silentMs <= o.deadAfterMs) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok' }));
      return;
    }
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: `the job runner has not recorded a heartbeat for ${Math.round(silentMs / 1000)} s (dead after ${Math.round(o.deadAfterMs / 1000)} s)`,
        },
      }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
