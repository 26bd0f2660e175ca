// The server under test (bench/server.ts) as a child process: started with a data directory,
// ready once it has sent its address and account, stopped with everything it runs. Shared by
// `npm run bench` and the corpus verification (bench/verify-corpus.ts).
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export interface Server {
  child: ChildProcess;
  baseUrl: string;
  webId: string;
  apiKey: string;
  pgPid: number;
  /** A panel user's address (invited at start). */
  panelEmail: string;
}

/**
 * Forks bench/server.ts on `dataDir`; `cpuProfileDir` makes it write a V8 CPU profile there when it
 * stops; `env` adds settings to the server's configuration (a scenario's limits).
 */
export async function startServer(dataDir: string, cpuProfileDir?: string, env: Record<string, string> = {}): Promise<Server> {
  // The server runs build/ (bench/server.ts): made current first, as `npm start` does.
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { stdio: 'inherit' });
  const child = fork(resolve('bin/run-ts.js'), ['bench/server.ts', dataDir, JSON.stringify(env)], {
    execArgv: cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(cpuProfileDir)}`] : [],
    stdio: 'inherit',
  });
  const ready = await new Promise<Server>((resolveReady, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited during start (code ${code})`)));
    child.on('message', (m: { type: string } & Omit<Server, 'child'>) => {
      if (m.type === 'ready') {
        resolveReady({ child, baseUrl: m.baseUrl, webId: m.webId, apiKey: m.apiKey, pgPid: m.pgPid, panelEmail: m.panelEmail });
      }
    });
  }).catch(async (err) => {
    await stopServer({ child, pgPid: 0 } as Server);
    throw err;
  });
  return ready;
}

/**
 * Asks the server to close the app, the pool and PostgreSQL; if it does not exit within 30 s,
 * kills it, then stops a PostgreSQL it may have left behind (by the pid it reported).
 */
export async function stopServer(s: Server | undefined) {
  if (!s) {
    return;
  }
  const { child, pgPid } = s;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    if (child.connected) {
      child.send({ type: 'stop' });
    } else {
      child.kill('SIGTERM');
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
  if (pgPid && alive(pgPid)) {
    process.kill(pgPid, 'SIGINT'); // PostgreSQL's "fast shutdown"
    for (let i = 0; i < 100 && alive(pgPid); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
