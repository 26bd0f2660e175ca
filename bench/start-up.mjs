#!/usr/bin/env node
// How fast two installed checkouts start, side by side: `node bench/start-up.mjs OLD NEW [ROUNDS]`
// (each a checkout after `npm ci`, e.g. one of an older commit and this one). Interleaved pairs,
// the order swapped every round, medians and the ratio NEW/OLD; the load average before and after,
// since absolute figures on a shared machine say little. Measures, per checkout:
//   cli     `node bin/sello.js --help`, spawn to exit
//   npx     `npx sello --help`, spawn to exit; and npx's own floor, a one-line command it finds in
//           node_modules/.bin, as it finds sello there since the build
//   worker  a PDF jail worker thread, `new Worker` to its ready message (as jail/worker-pool.ts starts
//           it: worker-boot.mjs on the build's module when there is a build, else on the source), and
//           what it adds to the process's RSS
//   start   `npm start` to /healthz answering 200, the embedded PostgreSQL already initialised (a
//           first start per checkout is not counted), and the server's RSS once it answers
// Plain JavaScript, so it measures the checkouts and not a loader of its own.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

if (process.argv[2] === '--worker') {
  // In a child process of its own: one worker, spawn to ready, and the RSS it adds.
  const [boot, entry] = process.argv.slice(3);
  const rssBefore = process.memoryUsage.rss();
  const t0 = performance.now();
  const worker = new Worker(new URL(boot), { workerData: { entry }, execArgv: [] });
  worker.once('message', async () => {
    const ms = performance.now() - t0;
    const rss = process.memoryUsage.rss() - rssBefore;
    await worker.terminate();
    console.log(JSON.stringify({ ms, rss }));
  });
  worker.once('error', (err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  await compare();
}

async function compare() {
  const [a, b, roundsArg] = process.argv.slice(2);
  if (!a || !b) {
    console.error('usage: node bench/start-up.mjs OLD_CHECKOUT NEW_CHECKOUT [ROUNDS]');
    process.exit(2);
  }
  const dirs = [resolve(a), resolve(b)];
  const rounds = Number(roundsArg ?? 7);
  const loadBefore = loadavg();
  const results = dirs.map(() => ({ cli: [], npx: [], worker: [], workerRss: [], start: [], serverRss: [] }));
  // npx's own floor: a one-line command found in node_modules/.bin, as npx finds `sello` there.
  const floorDir = mkdtempSync(join(tmpdir(), 'sello-npx-floor-'));
  mkdirSync(join(floorDir, 'node_modules/.bin'), { recursive: true });
  writeFileSync(join(floorDir, 'package.json'), '{"name":"npx-floor","private":true}\n');
  writeFileSync(join(floorDir, 'node_modules/.bin/sello'), "#!/usr/bin/env node\nconsole.log('usage: sello');\n", { mode: 0o755 });
  const floor = [];
  const dataDirs = dirs.map(() => mkdtempSync(join(tmpdir(), 'sello-start-up-')));
  try {
    // First starts: initialise each checkout's database (and build its page), and npx's first run
    // (which records the checkout in its cache), not counted.
    for (const [i, dir] of dirs.entries()) {
      await startToHealthy(dir, dataDirs[i]);
      timed('npx', ['sello', '--help'], dir);
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      floor.push(timed('npx', ['sello', '--help'], floorDir));
      for (const i of order) {
        const r = results[i];
        const dir = dirs[i];
        r.cli.push(timed('node', ['bin/sello.js', '--help'], dir));
        r.npx.push(timed('npx', ['sello', '--help'], dir));
        const w = workerBoot(dir);
        r.worker.push(w.ms);
        r.workerRss.push(w.rss / 2 ** 20);
        const s = await startToHealthy(dir, dataDirs[i]);
        r.start.push(s.ms);
        r.serverRss.push(s.rss / 2 ** 20);
      }
    }
  } finally {
    for (const d of [...dataDirs, floorDir]) {
      rmSync(d, { recursive: true, force: true });
    }
  }
  const rows = [
    ['cli: node bin/sello.js --help (ms)', 'cli'],
    ['npx sello --help (ms)', 'npx'],
    ['PDF jail worker, spawn to ready (ms)', 'worker'],
    ['PDF jail worker, RSS added (MB)', 'workerRss'],
    ['npm start to /healthz (ms)', 'start'],
    ['server RSS at /healthz (MB)', 'serverRss'],
  ];
  console.log(`${rounds} interleaved rounds; OLD ${dirs[0]}, NEW ${dirs[1]}`);
  console.log('| measure | OLD median | NEW median | NEW/OLD |');
  console.log('|---|---:|---:|---:|');
  for (const [label, key] of rows) {
    const [o, n] = results.map((r) => median(r[key]));
    console.log(`| ${label} | ${o.toFixed(0)} | ${n.toFixed(0)} | ${(n / o).toFixed(2)} |`);
  }
  console.log(`npx's own floor (a one-line command in node_modules/.bin): ${median(floor).toFixed(0)} ms`);
  console.log(`load average before: ${loadBefore}; after: ${loadavg()}`);
}

function loadavg() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function timed(cmd, args, cwd) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0 || !r.stdout.startsWith('usage: sello')) {
    throw new Error(`${cmd} ${args.join(' ')} in ${cwd}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return ms;
}

function workerBoot(dir) {
  const built = existsSync(join(dir, 'build/jail/worker-boot.mjs'));
  const boot = join(dir, built ? 'build/jail/worker-boot.mjs' : 'src/jail/worker-boot.mjs');
  const entry = join(dir, built ? 'build/jail/pdf-jail-worker.js' : 'src/jail/pdf-jail-worker.ts');
  const r = spawnSync(process.execPath, [import.meta.filename, '--worker', pathToFileURL(boot).href, pathToFileURL(entry).href], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    throw new Error(`worker in ${dir}: ${r.stderr}`);
  }
  return JSON.parse(r.stdout);
}

function freePort() {
  return new Promise((ok) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/** The pids of `pid` and all its descendants. */
function tree(pid) {
  const children = new Map();
  for (const p of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const ppid = Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(p)]);
    } catch {
      // gone meanwhile
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    out.push(...(children.get(out[i]) ?? []));
  }
  return out;
}

/** `npm start` in `dir` to /healthz answering; the RSS of its node server process; then stopped. */
async function startToHealthy(dir, dataDir) {
  const port = await freePort();
  const env = { ...process.env, NODE_ENV: 'production', SELLO_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
  for (const k of Object.keys(env)) {
    if (/^(PG|DATABASE_URL$)/.test(k)) {
      delete env[k];
    }
  }
  const t0 = performance.now();
  const child = spawn('npm', ['start'], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((ok) => child.once('exit', ok));
  let ms;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`npm start in ${dir} exited:\n${output}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) {
        ms = performance.now() - t0;
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((ok) => setTimeout(ok, 10));
  }
  // The node process running bin/sello.js (npm starts it through a shell whose command line names it too).
  const server = tree(child.pid).find((p) => {
    try {
      const [cmd, script] = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      return cmd.endsWith('node') && script === 'bin/sello.js';
    } catch {
      return false;
    }
  });
  const rss = server ? Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server}/status`, 'utf8'))[1]) * 1024 : Number.NaN;
  // Stopped, and waited for to the last process (the database's too), before the next start.
  const pids = tree(child.pid);
  process.kill(-child.pid, 'SIGTERM');
  await exited;
  while (pids.some((p) => existsSync(`/proc/${p}`))) {
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return { ms, rss };
}
