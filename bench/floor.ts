// The floor of a creation as a child process (bench/watch-floor.ts): an authenticated request that
// commits one row and one blob with their fsyncs, served beside the real server on its PostgreSQL,
// with no code of the service in it. Scenario A of `npm run bench` and the watch's creation check
// (bench/watch-creation.ts) both measure a creation against it.
import { type ChildProcess, fork } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { BenchRequest } from './load.js';

export interface FloorServer {
  baseUrl: string;
  child: ChildProcess;
  /** The floor's request for a body (the same bytes a creation sends), signed with its key. */
  request(body: Buffer): BenchRequest;
  stop(): Promise<void>;
}

/** Starts the floor on the running server's data directory (its embedded PostgreSQL). */
export async function startFloor(dataDir: string): Promise<FloorServer> {
  const key = randomBytes(32).toString('hex');
  const child = fork(resolve('bin/run-ts.js'), ['bench/watch-floor.ts', dataDir, key], { stdio: 'inherit' });
  const baseUrl = await new Promise<string>((resolveReady, reject) => {
    child.once('exit', (code) => reject(new Error(`the floor server exited during start (code ${code})`)));
    child.on('message', (m: { type: string; baseUrl: string }) => {
      if (m.type === 'ready') {
        resolveReady(m.baseUrl);
      }
    });
  });
  return {
    baseUrl,
    child,
    request: (body) => signedPost('/', 'watch', key, body),
    stop: () => stopChild(child),
  };
}

/** A POST signed as the service's clients sign it (HMAC-SHA256 of the body). */
export function signedPost(path: string, id: string, key: string, body: Buffer): BenchRequest {
  const sig = createHmac('sha256', Buffer.from(key, 'utf8')).update(body).digest('base64');
  return { method: 'POST', path, headers: { 'content-type': 'application/json', authorization: `svc ${id}:${sig}` }, body };
}

/** Asks the child to stop; kills it if it has not exited within 10 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  if (child.connected) {
    child.send({ type: 'stop' });
  } else {
    child.kill('SIGTERM');
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
