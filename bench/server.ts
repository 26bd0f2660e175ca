// The server under test, run as a child process of bench/index.ts so that the load generator does
// not share its event loop (on a 2-core machine an in-process client would steal the server's
// thread). Same wiring as `sello serve`: embedded PostgreSQL in the data directory given as argv[2],
// migrations, the Fastify app on 127.0.0.1 with a free port, and one account.
//
// argv[3], optional: JSON of further settings for the configuration.
//
// Protocol over the IPC channel: sends {type:'ready', baseUrl, webId, apiKey, pgPid, panelEmail}; answers
// {type:'cpu'} with this process's CPU time; on {type:'stop'} (or when the parent goes away) closes
// the app, the pool and the database, then exits.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Runtime } from '../src/runtime.js';

// The service as `sello serve` runs it: the compiled build/ (server-process.ts builds it first when a
// source is newer), not the sources through this file's TypeScript loader.
const { loadConfig } = (await import('../build/config.js' as string)) as typeof import('../src/config.js');
const { createAccount } = (await import(
  '../build/domain/accounts/create-account.js' as string
)) as typeof import('../src/domain/accounts/create-account.js');
const { invitePanelUser } = (await import(
  '../build/domain/panel/invite-panel-user.js' as string
)) as typeof import('../src/domain/panel/invite-panel-user.js');
const { buildApp } = (await import('../build/http/app.js' as string)) as typeof import('../src/http/app.js');
const { startRuntime } = (await import('../build/runtime.js' as string)) as typeof import('../src/runtime.js');

const dataDir = process.argv[2];
if (!dataDir || !process.send) {
  console.error('usage: forked by bench/index.ts with the data directory as argument');
  process.exit(2);
}
const send = (msg: unknown) => process.send!(msg);

const config = loadConfig({
  NODE_ENV: 'production',
  SELLO_DATA_DIR: dataDir,
  SELLO_RATE_LIMIT_PER_MINUTE: '0', // the benchmark is one account far above the default 600/min
  // No per-request log lines (the default, info, writes two JSON lines per request to stdout):
  // the benchmark measures the service, not the terminal it would print to.
  SELLO_LOG_LEVEL: 'warn',
  // A scenario's own settings (bench/server-process.ts), e.g. the limits of a very large document.
  ...(JSON.parse(process.argv[3] ?? '{}') as Record<string, string>),
});

let runtime: Runtime | undefined;
let app: Awaited<ReturnType<typeof buildApp>> | undefined;
let stopping: Promise<void> | undefined;

function stop(): Promise<void> {
  stopping ??= (async () => {
    await app?.close().catch((err) => console.error('bench server: app.close', err));
    await runtime?.close().catch((err) => console.error('bench server: runtime.close', err));
  })();
  return stopping;
}

process.on('message', (msg: { type: string }) => {
  if (msg.type === 'cpu') {
    send({ type: 'cpu', usage: process.cpuUsage() });
  } else if (msg.type === 'stop') {
    void stop().then(() => process.exit(0));
  }
});
// The parent died or closed the channel, or Ctrl-C reached the whole process group: never leave a
// database running behind us.
process.on('disconnect', () => void stop().then(() => process.exit(0)));
process.on('SIGINT', () => void stop().then(() => process.exit(0)));

try {
  runtime = await startRuntime(config, { migrate: true });
  app = await buildApp(runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  // As the test helper does: absolute-URL signatures and returned URLs name the real port.
  (config as { publicUrl: string }).publicUrl = baseUrl;
  const creds = await createAccount(runtime.deps, { name: 'Benchmark' });
  // A panel user, so that "send me a link" can be timed for a known address against unknown ones.
  const panelEmail = 'panel-user@example.com';
  await invitePanelUser(runtime.deps, { webId: creds.webId, email: panelEmail });
  const pgPid = Number((await readFile(join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  send({ type: 'ready', baseUrl, ...creds, pgPid, panelEmail });
} catch (err) {
  console.error('bench server: start failed', err);
  await stop();
  process.exit(1);
}
