// `npm run bench:watch`: the benchmark watch CI runs (.ci/run). Two ratios, each measured in this
// run against a floor measured beside it, so that the machine's speed and load cancel out:
//
//   creation  CPU per created document of the real server path (authenticated POST /developers/json,
//             1-page PDF, 2 stickers, as scenario A) ÷ CPU per request of the floor (an
//             authenticated request committing one row and one blob with their fsyncs,
//             bench/watch-floor.ts); bench/watch-creation.ts
//   signing   CPU of one signature on a 1-page PDF ÷ CPU of its floor (SHA-256 + one RSA-3072
//             signature), the measured process of scenario F; bench/watch-signing.ts
//
// Each is a statistic of per-pair ratios (reference and measured interleaved: the median for
// creation, the lower quartile for signing), and fails when it exceeds the one recorded for main
// in bench/watch-baseline.json by more than the margin (bench/watch-verdict.ts). The whole watch
// stops after its time limit and fails, having stopped the server, PostgreSQL and the child
// processes and removed its directories. Exit code 0 when every check passed, 1 otherwise.
//
//   --report FILE  also write the verdicts as JSON (.ci/run counts them in its summary line)
//   --record       write this run's ratios into bench/watch-baseline.json instead of judging
//                  (on an idle machine, for a change that makes the code legitimately slower or
//                  faster: docs/performance.md, "The watch in CI")
//   BENCH_WATCH_TIME_LIMIT  seconds before the watch gives up and fails (default 240)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { creationPairs } from './watch-creation.js';
import { Resources } from './watch-resources.js';
import { signingPairs } from './watch-signing.js';
import {
  type Baseline,
  type CheckName,
  type CheckResult,
  judge,
  median,
  readBaseline,
  STATISTIC,
  type WatchReport,
} from './watch-verdict.js';

const BASELINE = 'bench/watch-baseline.json';
/**
 * Four minutes by default: half a minute to a minute and a half on a 2-core machine at load
 * average 5 to 10, under two with two busy loops added on top (docs/performance.md); past that,
 * something is stuck.
 */
const TIME_LIMIT_MS = Number(process.env.BENCH_WATCH_TIME_LIMIT ?? 240) * 1000;
const CREATION_PAIRS = 7;
const CREATION_REQUESTS = 150;
const SIGNING_PAIRS = 27;

const { values: args } = parseArgs({ options: { report: { type: 'string' }, record: { type: 'boolean' } } });

/** The load average (1, 5, 15 min) from /proc: how busy the machine was around the run. */
function loadavg(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}

interface Measured {
  name: CheckName;
  ratios: number[];
  detail: string;
}

const creationRes = new Resources();
const signingRes = new Resources();
const releaseAll = () => Promise.all([creationRes.releaseAll(), signingRes.releaseAll()]);

async function measureAll(): Promise<Measured[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sello-watch-'));
  creationRes.add('the data directory', () => rm(dataDir, { recursive: true, force: true }));
  let t = performance.now();
  const c = await creationPairs(dataDir, creationRes, { pairs: CREATION_PAIRS, requests: CREATION_REQUESTS });
  // The server and its PostgreSQL go before the signatures are timed: they would share the cores.
  await creationRes.releaseAll();
  const creationSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const s = await signingPairs(signingRes, { pairs: SIGNING_PAIRS });
  await signingRes.releaseAll();
  const signingSeconds = (performance.now() - t) / 1000;
  const ms = (xs: number[]) => median(xs).toFixed(2);
  return [
    {
      name: 'creation',
      ratios: c.ratios,
      detail:
        `CPU per document ${ms(c.createMs)} ms, per floor request ${ms(c.floorMs)} ms (medians of ${CREATION_REQUESTS}-document batches; ` +
        `per pair ${c.createMs.map((x) => x.toFixed(2)).join(' ')} and ${c.floorMs.map((x) => x.toFixed(2)).join(' ')}); ` +
        `${creationSeconds.toFixed(0)} s (start ${c.startSeconds.toFixed(0)} s, warm-up ${c.warmupSeconds.toFixed(0)} s)`,
    },
    {
      name: 'signing',
      ratios: s.ratios,
      detail:
        `CPU per signature ${ms(s.signatureMs)} ms, per floor ${ms(s.floorMs)} ms (medians); ` +
        `in elapsed time ×${ms(s.wallRatios)} (not judged: it grows with the machine's load); ${signingSeconds.toFixed(0)} s`,
    },
  ];
}

async function main(): Promise<number> {
  const started = performance.now();
  const loadBefore = loadavg();
  console.log(
    `Benchmark watch, ${new Date().toISOString()}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`,
  );
  console.log(`load average before: ${loadBefore}`);
  const timeLimit = new Promise<never>((_, reject) => {
    setTimeout(() => reject(new Error(`the watch did not finish within ${TIME_LIMIT_MS / 1000} s`)), TIME_LIMIT_MS).unref();
  });
  const report: WatchReport = { checks: [] };
  let measured: Measured[] | undefined;
  try {
    measured = await Promise.race([measureAll(), timeLimit]);
  } catch (err) {
    report.error = (err as Error).message;
    console.error(`watch: ${report.error}`);
    if (!(err instanceof Error && err.message.startsWith('the watch did not finish'))) {
      console.error(err);
    }
  } finally {
    await releaseAll();
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const loadLine = `load average ${loadBefore} before, ${loadavg()} after; ${seconds} s`;
  if (measured && args.record) {
    for (const m of measured) {
      console.log(`watch: ${m.name} ×${STATISTIC[m.name].of(m.ratios).toFixed(2)} (${STATISTIC[m.name].name} of ${m.ratios.length} pairs)`);
      printDetail(m);
    }
    await record(measured, loadBefore);
    console.log(`watch: recorded in ${BASELINE}; ${loadLine}`);
    return 0;
  }
  if (measured) {
    const baseline = readBaseline(BASELINE);
    for (const m of measured) {
      const r: CheckResult = judge(m.name, m.ratios, baseline);
      report.checks.push(r);
      console.log(`watch: ${r.line}`);
      printDetail(m);
    }
  }
  const passed = !report.error && report.checks.length > 0 && report.checks.every((c) => c.passed);
  console.log(`watch: ${passed ? 'passed' : 'FAILED'}; ${loadLine}`);
  if (args.report) {
    await writeFile(args.report, `${JSON.stringify(report, null, 2)}\n`);
  }
  return passed ? 0 : 1;
}

function printDetail(m: Measured) {
  console.log(`       per pair: ${m.ratios.map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`       ${m.detail}`);
}

/** This run's ratios as the new baseline, with where and how they were measured. */
async function record(measured: Measured[], loadBefore: string) {
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const what: Record<CheckName, string> = {
    creation:
      'CPU per created document (server + PostgreSQL) ÷ CPU per floor request (one row, one blob, their fsyncs), median of the pairs',
    signing: 'CPU of one signature on a 1-page PDF ÷ CPU of SHA-256 + one RSA-3072 signature, lower quartile of the pairs',
  };
  const baseline: Baseline = {
    measured: {
      date: new Date().toISOString().slice(0, 10),
      commit,
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`,
      load: `${loadBefore} before, ${loadavg()} after`,
      runs: `npm run bench:watch -- --record: ${CREATION_PAIRS} and ${SIGNING_PAIRS} pairs`,
    },
    checks: Object.fromEntries(
      measured.map((m) => [m.name, { ratio: Number(STATISTIC[m.name].of(m.ratios).toFixed(3)), what: what[m.name] }]),
    ) as Baseline['checks'],
  };
  await writeFile(BASELINE, `${JSON.stringify(baseline, null, 2)}\n`);
}

// Ctrl-C or a CI runner's stop: the server, PostgreSQL and the directories go first.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`watch: ${signal}: stopping the server and PostgreSQL, removing the directories`);
    void releaseAll().finally(() => process.exit(1));
  });
}

// Exits at once: after the time limit, the abandoned measurement may still hold sockets or timers.
process.exit(await main());
