// The health listener of `sello worker`: alive while the runner's heartbeat is no older than the
// runners' own dead-after time, 503 past it, and nothing else served.
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startWorkerHealthServer } from '../../src/jobs/worker-health-server.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe('the job runner health listener', () => {
  it('answers 200 while the heartbeat is current and 503 once it is older than the dead-after time', async () => {
    let now = 1_000_000;
    const lastBeat = 1_000_000;
    server = await startWorkerHealthServer({ port: 0, host: '127.0.0.1', lastBeatAt: () => lastBeat, deadAfterMs: 20_000, now: () => now });
    const address = server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

    now += 20_000;
    const alive = await fetch(`${base}/healthz`);
    expect([alive.status, await alive.json()]).toEqual([200, { status: 'ok' }]);

    now += 1;
    const dead = await fetch(`${base}/healthz?probe=liveness`);
    expect(dead.status).toBe(503);
    const body = (await dead.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.error.message).toContain('has not recorded a heartbeat for 20 s');

    const other = await fetch(`${base}/metrics`);
    expect(other.status).toBe(404);
    const post = await fetch(`${base}/healthz`, { method: 'POST' });
    expect(post.status).toBe(404);
  });
});
