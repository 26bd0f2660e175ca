// The server of scenario W (bench/sustained.ts), as `sello serve` runs: the API and signer pages
// with the signer-key pool started, and the job runner in the same process, so that a signature's
// webhooks go out as they do in production. Forked by bench/server-process.ts with the data
// directory (argv[2]) and the webhook receiver's URL on loopback (argv[3]).
//
// The key type of the account's signatures is BENCH_W_KEY: set on the account where the code has
// the per-account choice (the operator default left as it is), else as the operator-wide
// SELLO_SIGNER_KEY (older code, for before-and-after runs). BENCH_W_POOL sets the pool's depth
// where the code reads it. BENCH_W_SPLIT=1 runs the job runner in a process of its own (as `sello api`
// and `sello worker` split them), forked from this one on the same database; otherwise in this one.
//
// Protocol over the IPC channel: as bench/server.ts ({type:'ready', ...} with `note`: where the key type was set; {type:'cpu'};
// {type:'stop'}).
import { fork, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/domain/accounts/create-account.js';
import { setAccountWebhook } from '../src/domain/accounts/set-webhook.js';
import * as accountUpdate from '../src/domain/accounts/update-account.js';
import { buildApp } from '../src/http/app.js';
import { startWorker } from '../src/jobs/index.js';
import { guardedFetch, isPublicAddress } from '../src/net/url-guard.js';
import { startRuntime, type Runtime } from '../src/runtime.js';

const [dataDir, receiverUrl, role] = process.argv.slice(2);
const workerOnly = role === 'worker';
const split = process.env.BENCH_W_SPLIT === '1';
if (!dataDir || !receiverUrl || !process.send) {
  console.error('usage: forked by bench/sustained.ts with the data directory and the receiver URL as arguments');
  process.exit(2);
}
const send = (msg: unknown) => process.send!(msg);
const key = process.env.BENCH_W_KEY ?? 'rsa-2048';
// Present in code with the per-account choice of signer key.
const perAccount = 'SIGNER_KEY_CHOICES' in accountUpdate;

const config = loadConfig({
  NODE_ENV: 'production',
  SELLO_DATA_DIR: dataDir,
  SELLO_RATE_LIMIT_PER_MINUTE: '0',
  SELLO_LOG_LEVEL: 'warn',
  ...(perAccount ? {} : { SELLO_SIGNER_KEY: key }),
  ...(process.env.BENCH_W_POOL ? { SELLO_SIGNER_KEY_POOL: process.env.BENCH_W_POOL } : {}),
  ...(workerOnly ? { DATABASE_URL: process.env.BENCH_W_DATABASE_URL } : {}),
});

let runtime: Runtime | undefined;
let app: Awaited<ReturnType<typeof buildApp>> | undefined;
let runner: { stop(): Promise<void> } | undefined;
let workerChild: ChildProcess | undefined;
let stopping: Promise<void> | undefined;

function stop(): Promise<void> {
  stopping ??= (async () => {
    await app?.close().catch((err) => console.error('bench server: app.close', err));
    if (workerChild && workerChild.exitCode === null) {
      const exited = new Promise((r) => workerChild!.once('exit', r));
      workerChild.send({ type: 'stop' });
      await exited;
    }
    await runner?.stop().catch((err) => console.error('bench server: runner.stop', err));
    await runtime?.close().catch((err) => console.error('bench server: runtime.close', err));
  })();
  return stopping;
}

process.on('message', (msg: { type: string }) => {
  if (msg.type === 'cpu' && workerChild) {
    // Both processes' CPU: the runner's is part of what each signature costs.
    const own = process.cpuUsage();
    workerChild.once('message', (m: { usage: NodeJS.CpuUsage }) =>
      send({ type: 'cpu', usage: { user: own.user + m.usage.user, system: own.system + m.usage.system } }),
    );
    workerChild.send({ type: 'cpu' });
  } else if (msg.type === 'cpu') {
    send({ type: 'cpu', usage: process.cpuUsage() });
  } else if (msg.type === 'stop') {
    void stop().then(() => process.exit(0));
  }
});
process.on('disconnect', () => void stop().then(() => process.exit(0)));
process.on('SIGINT', () => void stop().then(() => process.exit(0)));

try {
  runtime = await startRuntime(config, { migrate: !workerOnly, signing: !workerOnly });
  // The receiver is on loopback: let 127.0.0.1 through the URL guard, as the webhook tests do; every
  // other check of the guard stays.
  (runtime.deps as { fetchUrl: typeof guardedFetch }).fetchUrl = (url, opts) =>
    guardedFetch(url, { ...opts, isAllowedAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) });
  if (workerOnly) {
    runner = await startWorker(runtime.deps, runtime.connectionString);
    send({ type: 'ready' });
    await new Promise(() => {}); // until told to stop
  }
  if (split) {
    workerChild = fork(resolve('bin/run-ts.js'), ['bench/sustained-server.ts', dataDir, receiverUrl, 'worker'], {
      execArgv: process.execArgv,
      env: { ...process.env, BENCH_W_DATABASE_URL: runtime.connectionString },
      stdio: 'inherit',
    });
    await new Promise<void>((resolve, reject) => {
      workerChild!.once('message', () => resolve());
      workerChild!.once('exit', (code) => reject(new Error(`the job runner exited during start (code ${code})`)));
    });
  } else {
    runner = await startWorker(runtime.deps, runtime.connectionString);
  }
  app = await buildApp(runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  (config as { publicUrl: string }).publicUrl = baseUrl;
  const creds = await createAccount(runtime.deps, { name: 'Benchmark' });
  await setAccountWebhook(runtime.deps, { webId: creds.webId, url: receiverUrl });
  if (perAccount) {
    await accountUpdate.updateAccount(runtime.deps, { webId: creds.webId, signerKey: key } as accountUpdate.AccountUpdate);
  }
  const pgPid = Number((await readFile(join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  send({ type: 'ready', baseUrl, ...creds, pgPid, panelEmail: '', note: perAccount ? 'account' : 'SELLO_SIGNER_KEY' });
} catch (err) {
  console.error('bench server: start failed', err);
  await stop();
  process.exit(1);
}
